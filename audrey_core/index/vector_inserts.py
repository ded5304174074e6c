"""Inserting caught-up rows into the vector index's graph in the background, without holding up its callers.

Two locks: ``lock`` guards what the index knows (rows, partitions, the waiting rows, the applied change) and
``graph_lock`` the graph itself (usearch's graph cannot be searched or changed while a batch is inserted). A
background insert copies a slice of the waiting rows under ``lock``, inserts it holding only ``graph_lock`` (~30 ms
for 128 rows at 100k), and the slice "lands": it leaves the waiting rows the next time anyone holds both locks. So a
catch-up or a read of stored vectors (validation's) never waits for an insert; a graph search waits for one slice at
most. Order: ``lock`` first, then ``graph_lock`` (:meth:`GraphInserts._graph_held`); never the other way round.
A row removed while its slice was being inserted is taken out of the graph when the slice lands. A run of graph
searches keeps the background insert away until PENDING_BUSY rows wait, and a validation batch's run (short
statements, each compared with its nearest memories) then inserts them itself, in bulk
(:meth:`GraphInserts._searching`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..config import COPY_SHARE, INSERT_SLICE, PENDING_BUSY, PENDING_MAX, QUIET, SAVE_AFTER
from .threads import background, exiting, lower_priority
from .vector_graph import expansion_add_for
from .vector_rows import WaitingRows


class GraphInserts:
    """Mixed into :class:`~.vector.VectorIndex`."""

    lock: threading.RLock
    graph_lock: threading.RLock
    graph: Any
    waiting: WaitingRows
    _mapped: bool
    _stale: np.ndarray
    _closed: bool
    _walked: float
    _inserter: threading.Thread | None
    _copy: tuple[Any, threading.Thread, list[Any]] | None
    _bulk: int  # bulk inserts by searches so far
    _landed: list[tuple[np.ndarray, np.ndarray]]  # (keys, serials) inserted into the graph, still listed as waiting

    @contextmanager
    def _graph_held(self) -> Iterator[None]:
        """Hold the graph (the caller holds ``lock``), with every landed slice out of the waiting rows."""
        with self.graph_lock:
            self._land()
            yield

    def _land(self) -> None:
        """Take the slices inserted since out of the waiting rows (the caller holds both locks)."""
        for keys, serials in self._landed:
            still = self.waiting.drop_serials(serials)
            if not still.all():  # removed (and perhaps added anew) while being inserted
                self.graph.remove(keys[~still].astype(np.uint64))
        self._landed.clear()

    def inserting(self) -> bool:
        """Whether a background insert is under way (it ends once no row waits)."""
        return self._inserter is not None and self._inserter.is_alive()

    def _settle(self) -> None:
        """Begin inserting the waiting rows in the background once there are PENDING_MAX. A mapped graph must be
        copied first (see :meth:`_start_copy`: the process stalls while it is), so it lets rows wait until they are
        COPY_SHARE of its size (their exact search then costs about a hundredth of a scan), and is copied at once
        only when as many wait as a snapshot may lag by."""
        waiting = len(self.waiting)
        if waiting < PENDING_MAX or self._closed:
            return
        if self._mapped:
            if waiting < COPY_SHARE * len(self.graph):
                return
            self._start_copy()
            if self._copy[1].is_alive() and waiting < SAVE_AFTER:  # type: ignore[index]
                return
        if self._inserter is None or not self._inserter.is_alive():
            yielding = self.batches_under_way()  # type: ignore[attr-defined]
            self._inserter = background(lambda: self._insert_waiting(yielding), "audrey-graph-insert")

    def _insert_waiting(self, yielding: bool) -> None:
        """Move the waiting rows into the graph a slice at a time: an insert costs about 0.25 ms of CPU a row at
        100k rows. Begun while a validation batch runs (``yielding``), at a lower priority than the foreground:
        validating conversation turns needs no graph search and should not wait for it (5,900 against 4,500
        turns/s validated). Otherwise at the usual priority: a lone search waits for one slice at most, and slices
        at the lower priority beside a busy foreground put a first pass of recalls' p95 at 4x its p50. While graph
        searches come one after another it waits, up to PENDING_BUSY rows (see :meth:`_searching`); each search
        finds the rows still waiting by its exact scan of them. A thread cannot take its priority back: one begun
        lower keeps it to the end."""
        if yielding:
            lower_priority()
        while True:
            if self._giving_way():
                time.sleep(QUIET)  # graph searches keep coming: they go first (validation's insert in bulk)
                continue
            with self.lock:
                if self.graph is None or not len(self.waiting) or self._closed or exiting():
                    return
                if self._giving_way():  # a search held the lock meanwhile (perhaps waiting for our last slice)
                    continue
                self._writable()
                graph, bulk = self.graph, self._bulk
                keys, vectors, serials = self.waiting.first(INSERT_SLICE)
            with self.graph_lock:
                if graph is self.graph and bulk == self._bulk:  # not replaced, nor inserted by a search, meanwhile
                    self._insert(keys, vectors)
                    self._landed.append((keys, serials))
            with self.lock, self._graph_held():
                pass  # land the slice now rather than on the next search
            time.sleep(0.001)  # a lock is not fair: let a waiting search in before the next slice

    def _in_a_run(self) -> bool:
        """Whether graph searches come one after another: the last ended less than QUIET ago. Counted from the end
        of the last search, so a search that waited for a slice still belongs to its run: counted from its start,
        the wait itself looked quiet, and every later search of the run waited for a slice in turn (1,372 rows
        inserted during 200 recalls at 10k, measured)."""
        return time.monotonic() - self._walked < QUIET

    def _giving_way(self) -> bool:
        """Whether a background insert waits: searches come in a run and fewer than PENDING_BUSY rows wait."""
        return self._in_a_run() and len(self.waiting) < PENDING_BUSY and not self._closed

    def _searching(self) -> None:
        """Called before each search of the graph (holding ``lock``). While searches come one after another (a
        validation run comparing each episode with its nearest memories), slices inserted between them would make
        each wait, and rows left waiting would be scanned by each: so the background insert stays away until
        PENDING_BUSY rows wait, and a validation batch's search that finds that many inserts them all at once, on its
        own thread (~1 s at 100k rows). A recall never does (a server's back-to-back recalls during an import would
        pay it in one of them); past PENDING_BUSY the background insert takes slices between its searches."""
        stream = self._in_a_run()
        in_a_batch = self.in_a_batch()  # type: ignore[attr-defined]  # see CatchesUpOnce
        if stream and in_a_batch and len(self.waiting) >= PENDING_BUSY and not self._mapped:  # mapped: see _settle
            with self._graph_held():  # a slice being inserted lands first
                self._insert(self.waiting.keys, self.waiting.vectors)
                self.waiting.clear()
                self._bulk += 1  # a slice taken before this is not inserted again

    def _insert(self, rowids: np.ndarray, vectors: np.ndarray) -> None:
        """Add rows to the graph (the caller holds ``graph_lock``; the graph is writable). usearch's first worker
        takes the GIL back after each row it inserts (to check for signals), so beside a busy Python thread each of
        its rows waits up to the switch interval (5 ms): with 16 workers the graph kept up faster, but validation
        slowed (4,700 against 5,900 turns/s), so as many workers as cores."""
        self.graph.expansion_add = expansion_add_for(len(self.graph))
        self.graph.add(rowids.astype(np.uint64), vectors, threads=os.cpu_count() or 1)

    def _writable(self) -> None:
        """Copy a mapped snapshot into memory, without the rows removed since (the caller holds ``lock``)."""
        if not self._mapped:
            return
        self._start_copy()  # of this graph, unless one is under way
        _, copier, copied = self._copy  # type: ignore[misc]
        copier.join()  # the copier takes no lock: waiting for it while holding ours is safe
        self._copy = None
        graph = copied[0] if copied else self.graph.copy()  # the copier failed: copy here
        if len(self._stale):
            graph.remove(self._stale.astype(np.uint64))
        with self._graph_held():
            self.graph, self._mapped, self._stale = graph, False, np.zeros(0, dtype=np.int64)

    def _start_copy(self) -> None:
        """Begin copying the mapped graph on another thread. usearch's copy holds the GIL throughout, so every Python
        thread of the process stops for it all the same (measured at 1M rows: 0.35-1.7 s, once per snapshot mapped;
        40 ms at 100k); the thread only leaves ``lock`` free meanwhile."""
        if self._copy is None or self._copy[0] is not self.graph:
            source, copied = self.graph, []
            self._copy = (source, background(lambda: copied.append(source.copy()), "audrey-graph-copy"), copied)
