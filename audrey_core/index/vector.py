"""The vector index: an HNSW graph (usearch, int8 codes) over every vector row, a derived copy of the vectors.

Why: sqlite-vec answers a KNN query by scanning every vector of the partitions it may match (15 ms at 10k memories,
190 ms at 100k). The graph finds the neighbourhood in about a millisecond. Its candidates are re-scored against
float32 copies of the stored vectors (:mod:`.vector_rows`), so the distances it returns are the exact cosine
distances: only which candidates are seen is approximate, never their order. (Re-scoring from sqlite-vec instead
would cost about 0.2 ms per vector read, more than the scan.) int8 codes cost a third of float32's to insert (0.16
against 0.45 ms a row at 100k on two cores) and find as many of the true top 10 once re-scored (99.6% against 99.5%).

How it stays right: the database logs every vector row added or removed (``vector_changes``, by triggers in the
same transaction). Each process holds a graph, catches it up from the log before it answers, and now and then saves
a snapshot in the background (:mod:`.vector_snapshot`; written under new names, then named in the state file, so a
reader sees a whole one). The log is pruned only up to the last snapshot, so a new process maps it (read-only, in
milliseconds) and replays the rest; a process killed between its commit and any of this loses nothing. Caught-up
rows wait beside the graph, searched exactly, until a background thread inserts them (:mod:`.vector_inserts`; into a
copy of a mapped graph, made in the background too). Agent, memory type and scope of each row are kept beside the
graph (as a partition code per row) so the caller can size the search to its filter and drop rows of other
partitions without asking the database. A missing, damaged or foreign snapshot (another store, model or vector
table, or ahead of the log: a database restored from an older copy) is rebuilt from the database: in the thread that
needs it when the store is small, else on a background thread while searches go to the database.

Threads and locks: see the package's contract (``audrey_core/index/__init__.py``). :class:`VectorIndex` is a
:class:`~.vector_state.VectorState` (every piece of state, declared once); :class:`~.vector_inserts.GraphInserts`
and :class:`~.vector_snapshot.SnapshotSaves` own their threads and act on the state they are given.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import numpy as np

from .. import threads
from ..errors import IndexNotReady
from ..index_settings import RESCORE_EXTRA, VECTOR_REBUILD_AFTER, IndexConfig
from .folder import WRITER_WAIT_S
from .once import caught_up_by, check_not_building
from .threads import background, exiting, prefetch
from .vector_graph import BuiltGraph, build, expansion_for, graph_options, neighbour_expansion
from .vector_inserts import GraphInserts
from .vector_partitions import PartitionTable
from .vector_snapshot import SnapshotSaves, read_snapshot
from .vector_state import VectorSource, VectorState

try:
    from usearch.index import Index as HNSW
except ImportError:  # a platform without wheels: sqlite-vec scans instead
    HNSW = None  # type: ignore[assignment,misc]

log = logging.getLogger(__name__)
LANDING_CHECK_S = 0.1  # wait_until_inserted looks again this often for a landing deferred (the graph held by a save)


def vector_index_available() -> bool:
    return HNSW is not None


class VectorIndex(VectorState):
    """One store's vector index, snapshots in ``folder`` (None: in memory only). Thread-safe; any number of
    processes may share a folder: each holds its own graph, one writes a snapshot at a time."""

    def __init__(
        self, folder: Path | None, source: VectorSource, dimensions: int, config: IndexConfig | None = None
    ) -> None:
        if HNSW is None:
            raise RuntimeError("the usearch package is not installed")
        super().__init__(folder, source, dimensions, self._ensure_fresh, config or IndexConfig())
        self.inserts = GraphInserts(self)
        self.saves = SnapshotSaves(self, self.inserts)
        self.on_landed = self.saves.save_soon  # a snapshot's backlog in the graph is worth a snapshot too
        self._builder: threading.Thread | None = None  # audrey-graph-build
        self._build_error: Exception | None = None  # why the last background build failed (raised once)
        self._prefetcher: threading.Thread | None = None  # audrey-prefetch
        threads.register(self)

    # -- freshness ----------------------------------------------------------------------------------------------

    def ensure_fresh(self) -> None:
        """Apply every logged change not in the index yet (once per batch inside :meth:`caught_up_once`), in memory:
        a search never takes the writer lock or writes a file. Where only a rebuild can (no snapshot of ours, a log
        pruned past it), one starts in the background and :class:`IndexNotReady` sends searches to the database."""
        self.freshness.ensure_fresh()

    def open_fresh(self, wait: float = WRITER_WAIT_S) -> None:
        """:meth:`ensure_fresh` when the store opens, which may rebuild a small index here (seconds) under the writer
        lock rather than in the background; :class:`~.folder.IndexLockTimeout` when another writer holds that lock
        past ``wait`` seconds (the next search then rebuilds it in the background, or loads what that writer saved)."""
        self._ensure_fresh(rebuild_here=True, wait=wait)

    def caught_up_once(self) -> AbstractContextManager[None]:
        return self.freshness.caught_up_once()

    def _ensure_fresh(self, rebuild_here: bool = False, wait: float = WRITER_WAIT_S) -> None:
        check_not_building(self, "vector")
        identity = self.source.vector_identity()
        head = self.source.vector_log_head()
        if self.graph is not None and self.identity == identity and self.applied >= head:
            # Current: no need to wait for a background insert to finish its slice (searches still take the lock).
            if self.lock.acquire(blocking=False):
                try:
                    self.inserts.settle()
                    self.saves.save_soon()  # a backlog in the graph once a load is over
                finally:
                    self.lock.release()
            return
        with self.lock:
            if self._caught_up(identity, head):
                return
        if not rebuild_here or self.source.vector_row_count() > self.config.build_inline_upto:
            self._start_build()
            raise IndexNotReady("the vector index is being rebuilt in the background")
        # A small rebuild, here: the writer lock first, then ``lock`` (the package's lock order).
        with self.folder.writer_lock(wait), self.lock:
            if (self.graph is None or self.identity != identity) and not self._load(identity):
                self._rebuild(identity)  # no snapshot of ours (another process may have saved one meanwhile)
            if self.applied < head and not self._catch_up(identity, may_rebuild=True):
                self._rebuild(identity)

    def _caught_up(self, identity: dict[str, Any], head: int) -> bool:
        """Load our snapshot if the graph is not ours yet, and catch up (the caller holds ``lock``); False when
        that needs a rebuild."""
        if self.graph is not None and self.identity == identity and self.applied >= head:
            return True  # caught up by another thread meanwhile
        if (self.graph is None or self.identity != identity) and not self._load(identity):
            return False
        return self.applied >= head or self._catch_up(identity, may_rebuild=False)

    def building(self) -> bool:
        """Whether a rebuild runs in the background (searches go to the database meanwhile)."""
        return self._builder is not None and self._builder.is_alive()

    def wait_for_build(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` seconds (None: as long as it takes) for a background rebuild to end; whether none
        runs now."""
        return threads.join(self._builder, "rebuilding the vector index", timeout, quiet=True)

    def _start_build(self) -> None:
        with self.lock:
            if not self.building() and not self.closed:
                self._builder = background(self._build_in_background, "audrey-graph-build")

    def _build_in_background(self) -> None:
        """Build the graph without holding ``lock`` (searches go to the database meanwhile), install it, catch up
        what was committed during the build and save it. Stops between batches once the index closes."""
        stop = lambda: self.closed or exiting()  # noqa: E731
        try:
            with self.folder.writer_lock(stop=stop):
                identity, head = self.source.vector_identity(), self.source.vector_log_head()
                with self.lock:
                    if self._caught_up(identity, head):
                        return  # another process saved a snapshot meanwhile: loaded
                began = time.monotonic()
                built = build(self.source.vector_documents(None), self._new_graph(), self.dimensions, stop)
                if built is None:
                    return
                with self.lock:
                    self._install(built, identity, head)
                    self._catch_up(identity, may_rebuild=False)  # what was committed meanwhile
                    self.saves.save_now()
                log.info("vector index rebuilt in the background: %d rows in %.1f s", len(built.graph),
                         time.monotonic() - began)  # fmt: skip
        except Exception as exc:  # a cache: searches go to the database; the next search reports it, then retries
            log.warning("vector index not rebuilt (%s)", exc)
            self._build_error = exc

    def _load(self, identity: dict[str, Any]) -> bool:
        """Map the snapshot the state file names, if it is ours to use (the caller holds ``lock``)."""
        snapshot = read_snapshot(self.folder, identity, self.dimensions, HNSW.restore)
        if snapshot is None:
            return False
        if snapshot.applied > self.source.vector_log_head():  # the head read after the state: never behind it
            log.warning("vector index snapshot is ahead of its database (restored from an older copy?); rebuilding it")
            return False
        if len(snapshot.graph) >= self.config.prefetch_from:
            graph_file, rows_file = snapshot.files  # the graph first: every search walks it, at random
            self._prefetcher = prefetch([graph_file, rows_file], lambda: self.closed, touch={graph_file})
        with self.graph_held():
            self.graph, self.identity, self.rows = snapshot.graph, identity, snapshot.rows
        self.mapped, self.stale = True, np.zeros(0, dtype=np.int64)
        self.waiting.clear()
        if len(snapshot.waiting):  # saved while waiting for an insert: they wait again, searched exactly
            self.waiting.add(snapshot.waiting, snapshot.rows.get(snapshot.waiting)[0])
        self.applied = self.saved = snapshot.applied
        self.saved_waiting = len(snapshot.waiting)
        self.table = PartitionTable(snapshot.partitions, snapshot.row_codes)
        return True

    def _new_graph(self) -> Any:
        return HNSW(**graph_options(self.dimensions))

    def _install(self, built: BuiltGraph, identity: dict[str, Any], applied: int) -> None:
        """Search ``built`` from now on (the caller holds ``lock``)."""
        with self.graph_held():
            self.graph, self.identity = built.graph, identity
        self.table, self.rows = built.table, built.rows
        self.mapped, self.stale = False, np.zeros(0, dtype=np.int64)
        self.waiting.clear()
        self.applied = applied

    def _rebuild(self, identity: dict[str, Any]) -> None:
        """Build the graph again here (the caller holds the writer lock and ``lock``) and save it."""
        head = self.source.vector_log_head()  # read first: rows changed after it are replayed by the catch-up
        built = build(self.source.vector_documents(None), self._new_graph(), self.dimensions)
        assert built is not None  # never stopped
        self._install(built, identity, head)
        self.saves.save_now()

    def _catch_up(self, identity: dict[str, Any], may_rebuild: bool) -> bool:
        """Replay the log since the change applied (the caller holds ``lock``; with ``may_rebuild``, the writer
        lock too). False, with nothing changed, when only a rebuild can catch up and ``may_rebuild`` is false."""
        found = self.source.vector_log_since(self.applied)
        if found is None:  # the log was pruned past our graph: take the newer snapshot (or rebuild) and replay
            if self._load(identity):
                found = self.source.vector_log_since(self.applied)
            if found is None:
                if not may_rebuild:
                    return False
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
            self.rows.put(keys, added)
            self.table.place(keys, [p for b in batches for p in b[1]])
            self.waiting.add(keys, added)
        self.inserts.settle()
        if upto > self.applied:
            self.applied, self.changed_at = upto, time.monotonic()
        self.saves.save_soon()
        return True

    def _remove(self, rowids: np.ndarray) -> None:
        present = self.table.remove(rowids)
        if len(present):
            if self.mapped:
                self.stale = np.union1d(self.stale, present)
            else:
                with self.graph_held():
                    self.graph.remove(present.astype(np.uint64))  # a key only waiting is not in the graph: no-op
            self.waiting.drop(present)

    def inserting(self) -> bool:
        """Whether a background insert is under way."""
        return self.inserts.inserting()

    def wait_until_inserted(self, until: float) -> bool:
        """Catch up, then insert every waiting row, however few (``wait_for_idle``), until the monotonic time
        ``until``; whether none waits now, and a snapshot under way (one that a backlog now in the graph calls for
        included) is written. A background rebuild is waited for first."""
        if not caught_up_by(self, until):
            return False
        with self.lock:
            while len(self.waiting) and not self.closed:
                left = until - time.monotonic()
                if left <= 0:
                    return False
                self.land_now()  # a slice inserted while another held the graph (a save) lands here
                if not self.inserting():
                    self.inserts.settle(drain=True)  # none under way (or it ended with rows added meanwhile)
                self.rows_landed.wait(min(left, LANDING_CHECK_S))  # lets go of the lock meanwhile
            if len(self.waiting):
                return False
            self.saves.save_soon(settled=True)  # the backlog a snapshot held is in the graph: saved before we return
            saver = self.saves.thread
        bound = None if until == float("inf") else max(0.0, until - time.monotonic())
        return threads.join(saver, "saving a vector index snapshot", bound, quiet=True)

    # -- lifecycle ----------------------------------------------------------------------------------------------

    def stop_for_exit(self) -> None:
        self.closed = True  # read by each background thread between its slices

    def close(self) -> None:
        """Stop the background work (no new slice, save, copy or build batch starts) and wait for each thread."""
        self.closed = True
        threads.unregister(self)
        for thread, what in [
            (self._builder, "rebuilding the vector index"),
            *self.inserts.threads(),
            *self.saves.threads(),
            (self._prefetcher, "reading the vector index's files ahead"),
        ]:
            threads.join(thread, what)

    def rebuild(self) -> None:
        """Build the graph again from the database, here (``audrey reindex``)."""
        with self.folder.writer_lock(), self.lock:
            self._rebuild(self.source.vector_identity())

    # -- search -------------------------------------------------------------------------------------------------

    def codes_for(self, agent: str | None, memory_types: Sequence[str] | None, scope: Any) -> np.ndarray:
        """Partition codes whose agent, type and encoded scope pass; ``scope(encoded) -> bool`` tests the scope."""
        return self.table.codes_for(agent, memory_types, scope)

    def rows_in(self, codes: np.ndarray) -> int:
        return self.table.rows_in(codes)

    def size(self) -> int:
        return self.table.size()  # the graph's rows and the waiting ones, less those removed (no lock: a count)

    def search(self, vector: np.ndarray, count: int, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row ids and cosine distances of the rows of partitions ``codes`` among the ``count`` nearest rows (all
        partitions: the graph has no filter), nearest first."""
        return self.search_many(np.atleast_2d(np.asarray(vector, dtype=np.float32)), count, codes)[0]

    def search_many(
        self, queries: np.ndarray, count: int, codes: np.ndarray, few: bool = False
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`search` for several queries (a validation batch's episodes): one lock, and where the rows are
        scanned exactly (a small index, or a bulk slice holding the graph) one matrix product for all of them.
        ``few``: only each query's few nearest matter (validation's), walked less widely
        (:func:`~.vector_graph.neighbour_expansion`)."""
        matrix = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        count = int(count)
        if count <= 0:
            return [(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)) for _ in matrix]
        self.inserts.searching(len(matrix))  # a validation run may insert a backlog first, holding the graph only
        with self.lock:
            exact = self.rows.length <= self.config.exact_below or self.inserts.bulk_under_way
            breadth = neighbour_expansion if few else expansion_for
            found = self._scan_held(matrix) if exact else self._walk(matrix, count, breadth)
            return [self._nearest_of(keys, distances, count, codes) for keys, distances in found]

    def _nearest_of(
        self, keys: np.ndarray, distances: np.ndarray, count: int, codes: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``count`` nearest of ``keys``, nearest first, then those of partitions ``codes`` among them."""
        if len(keys) > count:
            nearest = np.argpartition(distances, count - 1)[:count]
            keys, distances = keys[nearest], distances[nearest]
        order = np.argsort(distances, kind="stable")
        keys, distances = keys[order], distances[order]
        mine = self.table.in_codes(keys, codes)
        return keys[mine], distances[mine]

    def _walk(
        self, queries: np.ndarray, count: int, breadth: Callable[[int], int]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The graph's ``count`` nearest of each query re-scored exactly, walking as widely as ``breadth`` says for
        its size, and the nearest of the rows waiting beside it (a bulk slice holding the graph: every row held,
        scanned). The graph is searched once for all the queries (usearch spreads a batch over the cores), the waiting
        rows scanned in one matrix product."""
        if self.inserts.bulk_under_way:  # a bulk slice holds the graph: scan every row held rather than wait for it
            return self._scan_held(queries)
        walked: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * len(queries)
        with self.graph_held():
            if len(self.graph):
                self.graph.expansion_search = breadth(len(self.graph))
                asked = min(count + RESCORE_EXTRA, len(self.graph))
                found = self.graph.search(queries, asked)
                if found.keys.ndim == 1:  # one query: usearch answers with a single match list
                    walked = [np.asarray(found.keys, dtype=np.int64)]
                else:
                    walked = [np.asarray(row[:n], dtype=np.int64) for row, n in zip(found.keys, found.counts)]
        self.inserts.walked = time.monotonic()  # the run goes on from here (see GraphInserts._in_a_run)
        if len(self.stale):  # removed since the mapped snapshot (the key may be waiting again, anew)
            walked = [keys[~np.isin(keys, self.stale)] for keys in walked]
        out = list(zip(walked, self.rows.distances(walked, queries)))
        if len(self.waiting):  # the rows not in the graph yet, exactly: only their `count` nearest can count
            nearby = self.waiting.nearest(queries, count)
            out = [(np.concatenate([k, w]), np.concatenate([d, a])) for (k, d), (w, a) in zip(out, nearby)]
        return out

    def _scan_held(self, queries: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Every row the index holds (graph and waiting, less those removed) and its exact distance to each query, in
        one matrix product."""
        distances = self.rows.scan(queries)
        keys = np.flatnonzero(self.table.row_codes[: distances.shape[1]] >= 0)
        return [(keys, row[keys]) for row in distances]

    def memory_types(self, rowids: np.ndarray) -> list[str]:
        """The memory type of each of ``rowids`` (rows the index holds, as :meth:`search` returns them)."""
        with self.lock:
            return self.table.memory_types(np.asarray(rowids, dtype=np.int64))

    def vectors(self, rowids: Sequence[int]) -> dict[int, np.ndarray]:
        """The float32 copies the index holds of ``rowids`` (those it holds)."""
        with self.lock:
            keys = np.asarray(rowids, dtype=np.int64)
            keys = keys[self.table.held(keys)]
            found, _ = self.rows.get(keys)
            return {int(key): vector for key, vector in zip(keys.tolist(), found)}

    def unit_vectors(self, rowids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which of ``rowids`` the index holds, and a matrix of their unit vectors in that order (a row of zeros for
        each it does not hold, and for a zero vector)."""
        with self.lock:
            held = self.table.held(rowids)
            units = np.zeros((len(rowids), self.rows.dimensions), dtype=np.float32)
            found, norms = self.rows.get(rowids[held])
        units[held] = found / np.where(norms > 0, norms, 1.0)[:, None]
        return held, units

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
                "mapped": self.mapped,
                "building": self.building(),
                "waiting": len(self.waiting),  # caught up, not in the graph yet (searched exactly meanwhile)
                "inserting": self.inserting(),
            }
