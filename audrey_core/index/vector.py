"""The vector index: an HNSW graph (usearch, int8 codes) over every vector row, a derived copy of the vectors.

Why: sqlite-vec answers a KNN query by scanning every vector of the partitions it may match (15 ms at 10k memories,
190 ms at 100k). The graph finds the neighbourhood in about a millisecond. Its candidates are re-scored against
float32 copies of the stored vectors (:mod:`.vector_rows`), so the distances it returns are the exact cosine
distances: only which candidates are seen is approximate, never their order. (Re-scoring from sqlite-vec instead
would cost about 0.2 ms per vector read, more than the scan.) int8 codes cost a third of float32's to insert (0.16
against 0.45 ms a row at 100k on two cores) and find as many of the true top 10 once re-scored (99.6% against 99.5%).

How it stays right: the database logs every vector row added or removed (``vector_changes``, by triggers in the
same transaction). Each process holds a graph, catches it up from the log before it answers, and now and then saves
a snapshot in the background (:mod:`.vector_saves`; written under new names, then named in the state file, so a
reader sees a whole one). The log is pruned only up to the last snapshot, so a new process maps it (read-only, in
milliseconds) and replays the rest; a process killed between its commit and any of this loses nothing. Caught-up
rows wait beside the graph, searched exactly, until a background thread inserts them (:mod:`.vector_inserts`; into a
copy of a mapped graph, made in the background too). Agent, memory type and scope of each row are kept beside the
graph (as a partition code per row) so the caller can size the search to its filter and drop rows of other
partitions without asking the database. A missing, damaged or foreign snapshot (another store, model or vector
table, or ahead of the log: a database restored from an older copy) is rebuilt from the database.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .. import threads
from ..config import (
    EXACT_BELOW,
    PREFETCH_FROM,
    RESCORE_EXTRA,
    VECTOR_REBUILD_AFTER,
)
from .folder import IndexFolder
from .once import CatchesUpOnce
from .threads import prefetch
from .vector_graph import expansion_for, graph_options
from .vector_inserts import GraphInserts
from .vector_rows import RowVectors, WaitingRows
from .vector_saves import SnapshotSaves
from .vector_snapshot import Partition, read_snapshot

try:
    from usearch.index import Index as HNSW
except ImportError:  # a platform without wheels: sqlite-vec scans instead
    HNSW = None  # type: ignore[assignment,misc]

log = logging.getLogger(__name__)


def vector_index_available() -> bool:
    return HNSW is not None


class VectorSource(Protocol):
    """What the index reads from the database (committed data only)."""

    def vector_identity(self) -> dict[str, Any]: ...
    def vector_log_head(self) -> int: ...
    def vector_log_since(self, seq: int) -> tuple[int, list[int]] | None: ...
    def vector_documents(
        self, rowids: Sequence[int] | None
    ) -> Iterable[tuple[np.ndarray, list[Partition], np.ndarray]]: ...
    def prune_vector_log(self, upto: int) -> None: ...


class VectorIndex(CatchesUpOnce, GraphInserts, SnapshotSaves):
    """One store's vector index, snapshots in ``folder`` (None: in memory only). Thread-safe; any number of
    processes may share a folder: each holds its own graph, one writes a snapshot at a time."""

    def __init__(self, folder: Path | None, source: VectorSource, dimensions: int) -> None:
        if HNSW is None:
            raise RuntimeError("the usearch package is not installed")
        self.folder = IndexFolder(folder)
        self.source = source
        self.dimensions = int(dimensions)
        self.lock = threading.RLock()  # what the index knows; graph_lock: the graph (see vector_inserts)
        self.graph_lock = threading.RLock()
        self._landed: list[tuple[np.ndarray, np.ndarray]] = []
        CatchesUpOnce.__init__(self)
        self.graph: Any = None
        self.identity: dict[str, Any] = {}
        self.applied = -1
        self.saved = -1  # the change the last snapshot (ours or another process's) holds
        self.partitions: list[Partition] = []
        self._codes: dict[Partition, int] = {}
        self.row_codes = np.full(0, -1, dtype=np.int32)  # vector row id -> partition code, -1 when absent
        self.counts = np.zeros(0, dtype=np.int64)  # rows per partition code
        self.rows = RowVectors(self.dimensions)  # the float32 vector of every row held (graph or waiting)
        # A loaded snapshot is mapped from its file, read-only (opening takes milliseconds whatever the size, and the
        # processes on one store share its pages); rows removed meanwhile are left out of its answers (stale) until
        # the first insert copies it into memory (_writable), a copy begun in the background (_settle).
        self._mapped = False
        self._copy: tuple[Any, threading.Thread, list[Any]] | None = None  # (mapped graph, copier, [its copy])
        self._inserter: threading.Thread | None = None
        self._saver: threading.Thread | None = None
        self._walked = 0.0  # when the last graph search ended: background inserts give way to a stream of searches
        self._bulk = 0
        self._prefetcher: threading.Thread | None = None
        self._closed = False
        threads.register(self)
        self._stale = np.zeros(0, dtype=np.int64)
        self.waiting = WaitingRows(self.dimensions)  # caught up, not in the graph yet: they join it in _settle

    # -- freshness ----------------------------------------------------------------------------------------------

    def _ensure_fresh(self) -> None:
        identity = self.source.vector_identity()
        head = self.source.vector_log_head()
        if self.graph is not None and self.identity == identity and self.applied >= head:
            # Current: no need to wait for a background insert to finish its slice (searches still take the lock).
            if self.lock.acquire(blocking=False):
                try:
                    self._settle()
                finally:
                    self.lock.release()
            return
        with self.lock:
            if self._caught_up(identity, head):
                return
        # A rebuild, or a catch-up that needs one: the writer lock first, then ``lock`` (the package's lock order).
        with self.folder.writer_lock(), self.lock:
            if (self.graph is None or self.identity != identity) and not self._load(identity):
                self._rebuild(identity)  # no snapshot of ours (another process may have saved one meanwhile)
            if self.applied < head and not self._catch_up(identity, may_rebuild=True):
                self._rebuild(identity)

    def _caught_up(self, identity: dict[str, Any], head: int) -> bool:
        """Load our snapshot if the graph is not ours yet, and catch up (the caller holds ``lock``); False when
        that needs the writer lock (a rebuild)."""
        if self.graph is not None and self.identity == identity and self.applied >= head:
            return True  # caught up by another thread meanwhile
        if (self.graph is None or self.identity != identity) and not self._load(identity):
            return False
        return self.applied >= head or self._catch_up(identity, may_rebuild=False)

    def _load(self, identity: dict[str, Any]) -> bool:
        """Map the snapshot the state file names, if it is ours to use."""
        snapshot = read_snapshot(self.folder, identity, self.dimensions, HNSW.restore)
        if snapshot is None:
            return False
        if snapshot.applied > self.source.vector_log_head():  # the head read after the state: never behind it
            log.warning("vector index snapshot is ahead of its database (restored from an older copy?); rebuilding it")
            return False
        if len(snapshot.graph) >= PREFETCH_FROM:
            graph_file, rows_file = snapshot.files  # the graph first: every search walks it, at random
            self._prefetcher = prefetch([graph_file, rows_file], lambda: self._closed, touch={graph_file})
        with self._graph_held():
            self.graph, self.identity, self.rows = snapshot.graph, identity, snapshot.rows
        self._mapped, self._stale = True, np.zeros(0, dtype=np.int64)
        self.waiting.clear()
        if len(snapshot.waiting):  # saved while waiting for an insert: they wait again, searched exactly
            self.waiting.add(snapshot.waiting, snapshot.rows.get(snapshot.waiting)[0])
        self.applied = self.saved = snapshot.applied
        self.partitions = snapshot.partitions
        self._codes = {p: i for i, p in enumerate(self.partitions)}
        self.row_codes = snapshot.row_codes
        present = self.row_codes[self.row_codes >= 0]
        self.counts = np.bincount(present, minlength=len(self.partitions)).astype(np.int64)
        return True

    def _new_graph(self) -> Any:
        return HNSW(**graph_options(self.dimensions))

    def _rebuild(self, identity: dict[str, Any]) -> None:
        head = self.source.vector_log_head()  # read first: rows changed after it are replayed by the catch-up
        with self._graph_held():
            self.graph, self.identity = self._new_graph(), identity
        self._mapped, self._stale = False, np.zeros(0, dtype=np.int64)
        self.waiting.clear()
        self.partitions, self._codes = [], {}
        self.row_codes = np.full(0, -1, dtype=np.int32)
        self.counts = np.zeros(0, dtype=np.int64)
        self.rows = RowVectors(self.dimensions)
        added = 0
        for rowids, partitions, vectors in self.source.vector_documents(None):
            self._add(rowids, partitions, vectors)
            added += len(rowids)
            log.info("vector index: %d rows built", added)
        self.applied = head
        self._save()

    def _catch_up(self, identity: dict[str, Any], may_rebuild: bool) -> bool:
        """Replay the log since the change applied (the caller holds ``lock``; with ``may_rebuild``, the writer
        lock too). False, with nothing changed, when only a rebuild can catch up and ``may_rebuild`` is false."""
        found = self.source.vector_log_since(self.applied)
        if found is None:  # the log was pruned past our graph: take the newer snapshot (or rebuild) and replay
            if not may_rebuild:
                return False
            if not self._load(identity) or self.source.vector_log_since(self.applied) is None:
                self._rebuild(identity)
            found = self.source.vector_log_since(self.applied)
            if found is None:
                return True  # pruned again meanwhile: the next call catches up
        upto, rowids = found
        changed = np.array(sorted(set(rowids)), dtype=np.uint64)
        if len(changed) > max(VECTOR_REBUILD_AFTER, len(self.graph) // 2):  # a bulk load: one scan beats point reads
            if may_rebuild:
                self._rebuild(identity)
            return may_rebuild
        self._remove(changed)
        batches = list(self.source.vector_documents(changed.tolist()))  # one chunk of vec0 each
        if batches:  # what the rows hold now: replaying twice changes nothing
            keys = np.concatenate([b[0] for b in batches]).astype(np.int64)
            added = np.vstack([b[2] for b in batches])
            self._place(keys, [p for b in batches for p in b[1]], added)
            self.waiting.add(keys, added)
        self._settle()
        self.applied = max(self.applied, upto)
        self._save_soon()
        return True

    def _remove(self, rowids: np.ndarray) -> None:
        inside = rowids[rowids < len(self.row_codes)]
        codes = self.row_codes[inside.astype(np.int64)]
        present = inside[codes >= 0]
        if len(present):
            if self._mapped:
                self._stale = np.union1d(self._stale, present.astype(np.int64))
            else:
                with self._graph_held():
                    self.graph.remove(present)  # a key only waiting is not in the graph: nothing happens
            np.subtract.at(self.counts, codes[codes >= 0], 1)
            self.row_codes[present.astype(np.int64)] = -1
            self.waiting.drop(present)

    def _add(self, rowids: np.ndarray, partitions: list[Partition], vectors: np.ndarray) -> None:
        if len(rowids):
            with self._graph_held():
                self._insert(rowids, vectors)
            self._place(rowids.astype(np.int64), partitions, vectors)

    def _place(self, rowids: np.ndarray, partitions: list[Partition], vectors: np.ndarray) -> None:
        """Record the partition and the float32 vector of each row (graph or waiting)."""
        self.rows.put(rowids, vectors)
        codes = np.array([self._code(p) for p in partitions], dtype=np.int32)
        top = int(rowids.max()) + 1
        if top > len(self.row_codes):
            grown = np.full(max(top, 2 * len(self.row_codes)), -1, dtype=np.int32)
            grown[: len(self.row_codes)] = self.row_codes
            self.row_codes = grown
        self.row_codes[rowids] = codes
        np.add.at(self.counts, codes, 1)

    def _code(self, partition: Partition) -> int:
        code = self._codes.get(partition)
        if code is None:
            code = self._codes[partition] = len(self.partitions)
            self.partitions.append(partition)
            self.counts = np.append(self.counts, 0)
        return code

    def stop_for_exit(self) -> None:
        self._closed = True  # read by each background thread between its slices (no lock: a flag)

    def close(self) -> None:
        """Stop inserting, saving and reading ahead in the background (the slice, copy or save under way finishes)
        and wait for each thread."""
        self._closed = True
        threads.unregister(self)
        copier = self._copy[1] if self._copy is not None else None
        for thread, what in (
            (self._inserter, "inserting waiting rows into the vector graph"),
            (self._saver, "saving a vector index snapshot"),
            (copier, "copying the mapped vector graph"),
            (self._prefetcher, "reading the vector index's files ahead"),
        ):
            threads.join(thread, what)

    def rebuild(self) -> None:
        """Build the graph again from the database (``audrey reindex``)."""
        with self.folder.writer_lock(), self.lock:
            self._rebuild(self.source.vector_identity())

    # -- search -------------------------------------------------------------------------------------------------

    def codes_for(self, agent: str | None, memory_types: Sequence[str] | None, scope: Any) -> np.ndarray:
        """Partition codes whose agent, type and encoded scope pass; ``scope(encoded) -> bool`` tests the scope."""
        return np.array(
            [
                code
                for code, (a, t, s) in enumerate(self.partitions)
                if (agent is None or a == agent) and (memory_types is None or t in memory_types) and scope(s)
            ],
            dtype=np.int32,
        )

    def rows_in(self, codes: np.ndarray) -> int:
        return int(self.counts[codes].sum()) if len(codes) else 0

    def size(self) -> int:
        return int(self.counts.sum())  # the graph's rows and the waiting ones, less those removed (no lock: a count)

    def search(self, vector: np.ndarray, count: int, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row ids and cosine distances of the rows of partitions ``codes`` among the ``count`` nearest rows (all
        partitions: the graph has no filter), nearest first."""
        query = np.asarray(vector, dtype=np.float32)
        count = int(count)
        if count <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        with self.lock:
            if self.rows.length <= EXACT_BELOW:  # small: every row held, exactly
                distances = self.rows.scan(query)
                keys = np.flatnonzero(self.row_codes[: len(distances)] >= 0)
                distances = distances[keys]
            else:
                keys, distances = self._walk(query, count)
            if len(keys) > count:
                nearest = np.argpartition(distances, count - 1)[:count]
                keys, distances = keys[nearest], distances[nearest]
            order = np.argsort(distances, kind="stable")
            keys, distances = keys[order], distances[order]
            mine = np.isin(self.row_codes[keys], codes)
            return keys[mine], distances[mine]

    def _walk(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The graph's ``count`` nearest re-scored exactly, and the nearest of the rows waiting beside it."""
        self._searching()
        keys = np.zeros(0, dtype=np.int64)
        with self._graph_held():
            if len(self.graph):
                self.graph.expansion_search = expansion_for(len(self.graph))
                asked = min(count + RESCORE_EXTRA, len(self.graph))
                keys = np.asarray(self.graph.search(query, asked).keys, dtype=np.int64)
        self._walked = time.monotonic()  # the run goes on from here (see _giving_way)
        if len(self._stale):  # removed since the mapped snapshot (the key may be waiting again, anew)
            keys = keys[~np.isin(keys, self._stale)]
        distances = self.rows.distances(keys, query)
        if len(self.waiting):  # the rows not in the graph yet, exactly: only their `count` nearest can count
            waiting, apart = self.waiting.nearest(query, count)
            keys, distances = np.concatenate([keys, waiting]), np.concatenate([distances, apart])
        return keys, distances

    def memory_types(self, rowids: np.ndarray) -> list[str]:
        """The memory type of each of ``rowids`` (rows the index holds, as :meth:`search` returns them)."""
        with self.lock:
            return [self.partitions[code][1] for code in self.row_codes[np.asarray(rowids, dtype=np.int64)].tolist()]

    def vectors(self, rowids: Sequence[int]) -> dict[int, np.ndarray]:
        """The float32 copies the index holds of ``rowids`` (those it holds)."""
        with self.lock:
            keys = np.asarray(rowids, dtype=np.int64)
            keys = keys[(keys < len(self.row_codes)) & (keys >= 0)]
            keys = keys[self.row_codes[keys] >= 0]
            found, _ = self.rows.get(keys)
            return {int(key): vector for key, vector in zip(keys.tolist(), found)}

    def status(self) -> dict[str, Any]:
        with self.lock:
            return {
                "engine": "usearch",
                "documents": self.size() if self.graph is not None else 0,
                "applied": self.applied,
                "lag": max(0, self.source.vector_log_head() - self.applied),
                "bytes": self.folder.size_on_disk(),
                "folder": str(self.folder.path) if self.folder.path is not None else ":memory:",
                "model": self.identity.get("model"),
                "mapped": self._mapped,
            }
