"""Inserting caught-up rows into the vector index's graph in the background, without holding up its callers.

Two locks (see the package's contract): the index's ``lock`` guards what it knows (rows, partitions, the waiting
rows, the applied change) and ``graph_lock`` the graph itself (usearch's graph cannot be searched or changed while a
batch is inserted). A background insert copies a slice of the waiting rows under ``lock``, inserts it holding only
``graph_lock`` (~30 ms for 128 rows at 100k), and the slice "lands": it leaves the waiting rows the next time anyone
holds both locks (``VectorIndex.graph_held``). So a catch-up or a read of stored vectors (validation's) never waits
for an insert; a graph search waits for one slice at most. A row removed while its slice was being inserted is taken
out of the graph when the slice lands. A run of graph searches keeps the background insert away until ``pending_busy``
rows wait, and a validation batch's run (short statements, each compared with its nearest memories) then inserts
them itself, in bulk (:meth:`GraphInserts.searching`).

A backlog (``pending_busy`` rows or more: a bulk load, a restore) is inserted in bulk slices sized to take about
BULK_SLICE_S each with every core; a search meanwhile does not wait for the graph but scans every row the index
holds exactly (``bulk_under_way``; ~5 ms at 100k rows). Slices of 128 rows beside an exact scan of the rest kept
recall at 96 ms p50 for ~25 s after 100k rows were loaded (measured: ``benchmarks.bulk_load``).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from .. import threads
from ..index_settings import BULK_SLICE_MAX, BULK_SLICE_S, COPY_SHARE, QUIET
from .threads import background, exiting, lower_priority
from .vector_graph import insert
from .vector_state import VectorState


class GraphInserts:
    """The vector index's inserts: its insert thread and the copy of a mapped graph. Every method but the threads'
    own is called holding the index's ``lock``."""

    def __init__(self, index: VectorState) -> None:
        self.index = index
        self.thread: threading.Thread | None = None  # audrey-graph-insert
        self.copy: tuple[Any, threading.Thread, list[Any]] | None = None  # (mapped graph, copier, [its copy])
        self.walked = 0.0  # when the last graph search ended: background inserts give way to a stream of searches
        self.in_flight: list[np.ndarray] = []  # serials of the slices taken to insert and not landed yet (``lock``)
        self._bulk_slices = 0  # bulk slices being inserted (``lock``)
        self.bulk_under_way = False  # a bulk slice holds the graph: searches scan the rows exactly meanwhile
        self.bulk_rate = 8_000.0  # rows a second the last bulk slice went in at (sizes the next)

    def threads(self) -> list[tuple[threading.Thread | None, str]]:
        copier = self.copy[1] if self.copy is not None else None
        return [(self.thread, "inserting waiting rows into the vector graph"), (copier, "copying the vector graph")]

    def inserting(self) -> bool:
        """Whether a background insert is under way (it ends once no row waits)."""
        return self.thread is not None and self.thread.is_alive()

    def settle(self, drain: bool = False) -> None:
        """Begin inserting the waiting rows in the background once there are ``pending_max`` (with ``drain``, however
        few: ``wait_for_idle``). A mapped graph must be copied first (see :meth:`start_copy`: the process stalls
        while it is), so it lets rows wait until they are COPY_SHARE of its size (their exact search then costs
        about a hundredth of a scan), and is copied at once only when as many wait as a snapshot may lag by."""
        index = self.index
        waiting = len(index.waiting)
        if not waiting or (waiting < self.index.config.pending_max and not drain) or index.closed:
            return
        if index.mapped and not drain:
            if waiting < COPY_SHARE * len(index.graph):
                return
            copier = self.start_copy()
            if copier.is_alive() and waiting < index.config.save_after:
                return
        if not self.inserting():
            yielding = index.freshness.batches_under_way()
            self.thread = background(lambda: self._insert_waiting(yielding), "audrey-graph-insert")

    def _insert_waiting(self, yielding: bool) -> None:
        """Move the waiting rows into the graph a slice at a time: an insert costs about 0.25 ms of CPU a row at
        100k rows. Begun while a validation batch runs (``yielding``), at a lower priority than the foreground:
        validating conversation turns needs no graph search and should not wait for it (5,900 against 4,500
        turns/s validated). Otherwise at the usual priority: a lone search waits for one slice at most, and slices
        at the lower priority beside a busy foreground put a first pass of recalls' p95 at 4x its p50. While graph
        searches come one after another it waits, up to ``pending_busy`` rows (see :meth:`searching`); each search
        finds the rows still waiting by its exact scan of them. A thread cannot take its priority back: one begun
        lower keeps it to the end. Stops between slices once the index closes or the interpreter exits."""
        index = self.index
        if yielding:
            lower_priority()
        while True:
            if self._giving_way():
                time.sleep(QUIET)  # graph searches keep coming: they go first (validation's insert in bulk)
                continue
            with index.lock:
                if index.graph is None or not len(index.waiting) or index.closed or exiting():
                    return
                if self._giving_way():  # a search held the lock meanwhile (perhaps waiting for our last slice)
                    continue
                self.writable()
                in_bulk = len(index.waiting) >= index.config.pending_busy
                slice_rows = index.config.insert_slice
                size = min(BULK_SLICE_MAX, max(slice_rows, int(self.bulk_rate * BULK_SLICE_S)))
                taken = self._take(size if in_bulk else slice_rows, in_bulk)
            if taken is None:
                return  # every row waiting is being inserted by a validation run's bulk slice
            began = time.perf_counter()
            if self._put(*taken, in_bulk) and in_bulk:
                self.bulk_rate = len(taken[1]) / max(time.perf_counter() - began, 1e-3)
            time.sleep(0.001)  # a lock is not fair: let a waiting search in before the next slice

    def _take(self, count: int, bulk: bool) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray] | None:
        """The graph and the first ``count`` waiting rows no one is inserting yet, now in flight (the caller holds
        ``lock``); None when there are none. A bulk slice counts from now: searches scan exactly instead of waiting
        for the graph."""
        index = self.index
        busy = [serials for _, serials in index.landed] + self.in_flight
        keys, vectors, serials = index.waiting.first(count, np.concatenate(busy) if busy else None)
        if not len(keys):
            return None
        self.in_flight.append(serials)
        if bulk:
            self._bulk_slices += 1
            self.bulk_under_way = True
        return index.graph, keys, vectors, serials

    def _put(self, graph: Any, keys: np.ndarray, vectors: np.ndarray, serials: np.ndarray, bulk: bool) -> bool:
        """Insert a slice :meth:`_take` took, holding the graph only, then land it if no one holds the graph (else
        the next to hold it does). False if the graph was replaced meanwhile (the rows wait for the new one)."""
        index = self.index
        inserted = False
        try:
            with index.graph_lock:
                if graph is index.graph:
                    insert(graph, keys, vectors)
                    index.landed.append((keys, serials))
                    inserted = True
        finally:
            with index.lock:
                self.in_flight = [s for s in self.in_flight if s is not serials]
                if bulk:
                    self._bulk_slices -= 1
                    self.bulk_under_way = self._bulk_slices > 0
                index.land_now()
        return inserted

    def _in_a_run(self) -> bool:
        """Whether graph searches come one after another: the last ended less than QUIET ago. Counted from the end
        of the last search, so a search that waited for a slice still belongs to its run: counted from its start,
        the wait itself looked quiet, and every later search of the run waited for a slice in turn (1,372 rows
        inserted during 200 recalls at 10k, measured)."""
        return time.monotonic() - self.walked < QUIET

    def _giving_way(self) -> bool:
        """Whether a background insert waits: searches come in a run and fewer than ``pending_busy`` rows wait."""
        return self._in_a_run() and len(self.index.waiting) < self.index.config.pending_busy and not self.index.closed

    def searching(self, queries: int = 1) -> None:
        """Called before each search (of ``queries`` queries at once), holding no lock. While searches come one after
        another (a validation run comparing each episode with its nearest memories), slices inserted between them
        would make each wait, and rows left waiting would be scanned by each: so the background insert stays away
        until ``pending_busy`` rows wait, and a validation batch's search that finds that many (one search of the
        batch's queries, or one of a run of searches) inserts them all at once, on its own thread (~1 s at 100k
        rows), as a bulk slice: holding the graph only, so other searches meanwhile scan every row exactly instead
        of waiting for it. A recall never does (a server's back-to-back recalls during an import would pay it in one
        of them); past ``pending_busy`` the background insert takes slices between its searches."""
        index = self.index
        if not index.freshness.in_a_batch() or not (queries > 1 or self._in_a_run()):
            return
        with index.lock:
            busy = len(index.waiting) >= index.config.pending_busy and index.rows.length > index.config.exact_below
            if not busy or index.mapped or index.graph is None:  # a mapped graph: see settle
                return
            taken = self._take(len(index.waiting), bulk=True)
        if taken is not None:
            self._put(*taken, bulk=True)

    def writable(self) -> None:
        """Copy a mapped snapshot into memory, without the rows removed since."""
        index = self.index
        if not index.mapped:
            return
        copier = self.start_copy()  # of this graph, unless one is under way
        copied = self.copy[2] if self.copy is not None else []
        threads.join(copier, "copying the mapped vector graph")  # takes no lock: safe to wait for holding ours
        self.copy = None
        graph = copied[0] if copied else index.graph.copy()  # the copier failed (or is stuck): copy here
        if len(index.stale):
            graph.remove(index.stale.astype(np.uint64))
        with index.graph_held():
            index.graph, index.mapped, index.stale = graph, False, np.zeros(0, dtype=np.int64)

    def start_copy(self) -> threading.Thread:
        """Begin copying the mapped graph on another thread (unless one is under way). usearch's copy holds the GIL
        throughout, so every Python thread of the process stops for it all the same (measured at 1M rows: 0.35-1.7
        s, once per snapshot mapped; 40 ms at 100k); the thread only leaves ``lock`` free meanwhile."""
        if self.copy is None or self.copy[0] is not self.index.graph:
            source, copied = self.index.graph, []
            self.copy = (source, background(lambda: copied.append(source.copy()), "audrey-graph-copy"), copied)
        return self.copy[1]
