"""The vector index: an HNSW graph (usearch, float32 copies) over every vector row, a derived copy of the vectors.

Why: sqlite-vec answers a KNN query by scanning every vector of the partitions it may match (15 ms at 10k memories,
190 ms at 100k). The graph finds the neighbourhood in about a millisecond. It holds float32 copies of the stored
vectors, so the distances it returns are the exact cosine distances: only which candidates are seen is approximate,
never their order. (Re-scoring from sqlite-vec instead would cost about 0.2 ms per vector read, more than the scan.)

How it stays right: the database logs every vector row added or removed (``vector_changes``, by triggers in the
same transaction). Each process holds a graph, catches it up from the log before it answers, and now and then saves
a snapshot (written under new names, then named in the state file, so a reader sees a whole one). The log is pruned
only up to the last snapshot, so a new process maps it (read-only, in milliseconds) and replays the rest; a process
killed between its commit and any of this loses nothing. Caught-up rows wait beside the graph, searched exactly,
until a background thread inserts them (into a copy of a mapped graph, made in the background too). Agent, memory
type and scope of each row are kept beside the graph (as a partition code per row) so the caller can size the
search to its filter and drop rows of other partitions without asking the database. A missing, damaged or foreign
snapshot is rebuilt from the database.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .folder import IndexFolder

try:
    from usearch.index import Index as HNSW
except ImportError:  # a platform without wheels: sqlite-vec scans instead
    HNSW = None

log = logging.getLogger(__name__)
FORMAT = 1  # bump when the snapshot layout or the graph's parameters change: older snapshots are rebuilt
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 128  # at 100k rows; smaller graphs narrow it, larger ones widen it (see expansion_for)
EXPANSION_MIN = 64
SAVE_AFTER = 10_000  # changes applied in memory before a new snapshot is written
REBUILD_AFTER = 20_000  # more changes than this (and than half the graph) to catch up: rebuild instead
EXACT_BELOW = 5_000  # a graph this small is searched exhaustively (as fast as walking it, and exact)
PENDING_MAX = 512  # rows caught up but not yet in the graph, searched exactly, before a background insert begins
COPY_SHARE = 0.01  # a mapped graph is copied (to insert into) once this share of its size waits beside it
INSERT_SLICE = 128  # rows a background insert adds at once, holding the graph: ~55 ms at 100k rows on two cores
Partition = tuple[str, str, str]  # (agent, memory type, encoded scope)


def expansion_for(rows: int) -> int:
    """How widely to walk a graph of ``rows``: a fixed breadth finds less of the true top 10 as the graph grows
    (measured on real sentence vectors: 128 finds 99.8% at 10k, 98.7% at 100k, 96.9% at 300k, 89% at 1M; 256 finds
    99.3% at 300k; at 1M, 512 and 807 find 97.8%, 1,016 98.3%: the graph's own quality is the limit there), so it
    grows with size, from 64 (99.6% at 10k, in 70% of the time) to 1,024."""
    return int(min(1024, max(EXPANSION_MIN, EXPANSION_SEARCH * (rows / 100_000) ** 0.9)))


def _background(work: Any, name: str) -> threading.Thread:
    """Start ``work`` on a thread the interpreter waits for at exit: a daemon thread inside usearch (which lets go
    of the GIL) when the interpreter shuts down is unwound through C++ and aborts the process."""
    thread = threading.Thread(target=work, name=name, daemon=False)
    thread.start()
    return thread


def _exiting() -> bool:
    return not threading.main_thread().is_alive()  # the interpreter is shutting down


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


class VectorIndex:
    """One store's vector index, snapshots in ``folder`` (None: in memory only). Thread-safe; any number of
    processes may share a folder: each holds its own graph, one writes a snapshot at a time."""

    def __init__(self, folder: Path | None, source: VectorSource, dimensions: int) -> None:
        if HNSW is None:
            raise RuntimeError("the usearch package is not installed")
        self.folder = IndexFolder(folder)
        self.source = source
        self.dimensions = int(dimensions)
        self.lock = threading.RLock()
        self.graph: Any = None
        self.identity: dict[str, Any] = {}
        self.applied = -1
        self.saved = -1  # the change the last snapshot (ours or another process's) holds
        self.partitions: list[Partition] = []
        self._codes: dict[Partition, int] = {}
        self.row_codes = np.full(0, -1, dtype=np.int32)  # vector row id -> partition code, -1 when absent
        self.counts = np.zeros(0, dtype=np.int64)  # rows per partition code
        # A loaded snapshot is mapped from its file, read-only (opening takes milliseconds whatever the size, and the
        # processes on one store share its pages); rows removed meanwhile are left out of its answers (stale) until
        # the first insert copies it into memory (_writable), a copy begun in the background (_settle).
        self._mapped = False
        self._copy: tuple[Any, threading.Thread, list[Any]] | None = None  # (mapped graph, copier, [its copy])
        self._inserter: threading.Thread | None = None
        self._closed = False
        self._stale = np.zeros(0, dtype=np.int64)
        # Rows caught up but not inserted yet: a graph insert costs ~0.5 ms a row, so a catch-up only reads the
        # rows and searches them exactly (a small matrix); they join the graph in the background (_settle).
        self._clear_pending()

    # -- freshness ----------------------------------------------------------------------------------------------

    def ensure_fresh(self) -> None:
        """Apply every logged change not in the graph yet (loading the snapshot or rebuilding when needed)."""
        with self.lock:
            identity = self.source.vector_identity()
            head = self.source.vector_log_head()
            if self.graph is not None and self.identity == identity and self.applied >= head:
                self._settle()
                return
            if (self.graph is None or self.identity != identity) and not self._load(identity):
                with self.folder.writer_lock():
                    if not self._load(identity):  # another process may have built it meanwhile
                        self._rebuild(identity)
            if self.applied < head:
                self._catch_up(identity)

    def _load(self, identity: dict[str, Any]) -> bool:
        """Load the snapshot the state file names, if it is ours to use."""
        state = self.folder.read_state()
        if self.folder.path is None or state.get("format") != FORMAT or state.get("identity") != identity:
            return False
        generation = self.folder.path / str(state.get("generation"))
        try:
            graph = HNSW.restore(str(generation.with_suffix(".usearch")), view=True)
            with np.load(generation.with_suffix(".npz")) as parts:
                row_codes = parts["row_codes"]
            partitions = [tuple(p) for p in json.loads(generation.with_suffix(".json").read_text())]
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            log.warning("vector index snapshot %s cannot be loaded (%s); rebuilding it", generation, exc)
            return False
        if graph is None or graph.ndim != self.dimensions:
            return False
        self.graph, self.identity = graph, identity
        self._mapped, self._stale = True, np.zeros(0, dtype=np.int64)
        self._clear_pending()
        self.applied = self.saved = int(state["applied"])
        self.partitions = partitions  # type: ignore[assignment]
        self._codes = {p: i for i, p in enumerate(self.partitions)}
        self.row_codes = row_codes.astype(np.int32)
        present = self.row_codes[self.row_codes >= 0]
        self.counts = np.bincount(present, minlength=len(self.partitions)).astype(np.int64)
        return True

    def _new_graph(self) -> Any:
        return HNSW(
            ndim=self.dimensions,
            metric="cos",
            dtype="f32",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION_SEARCH,
        )

    def _rebuild(self, identity: dict[str, Any]) -> None:
        head = self.source.vector_log_head()  # read first: rows changed after it are replayed by the catch-up
        self.graph, self.identity = self._new_graph(), identity
        self._mapped, self._stale = False, np.zeros(0, dtype=np.int64)
        self._clear_pending()
        self.partitions, self._codes = [], {}
        self.row_codes = np.full(0, -1, dtype=np.int32)
        self.counts = np.zeros(0, dtype=np.int64)
        added = 0
        for rowids, partitions, vectors in self.source.vector_documents(None):
            self._add(rowids, partitions, vectors)
            added += len(rowids)
            log.info("vector index: %d rows built", added)
        self.applied = head
        self._save()

    def _catch_up(self, identity: dict[str, Any]) -> None:
        found = self.source.vector_log_since(self.applied)
        if found is None:  # the log was pruned past our graph: take the newer snapshot (or rebuild) and replay
            with self.folder.writer_lock():
                if not self._load(identity) or self.source.vector_log_since(self.applied) is None:
                    self._rebuild(identity)
            found = self.source.vector_log_since(self.applied)
            if found is None:
                return  # pruned again meanwhile: the next call catches up
        upto, rowids = found
        changed = np.array(sorted(set(rowids)), dtype=np.uint64)
        if len(changed) > max(REBUILD_AFTER, len(self.graph) // 2):  # a bulk load: one scan beats point reads
            with self.folder.writer_lock():
                self._rebuild(identity)
            return
        self._remove(changed)
        batches = list(self.source.vector_documents(changed.tolist()))  # one chunk of vec0 each
        if batches:  # what the rows hold now: replaying twice changes nothing
            keys = np.concatenate([b[0] for b in batches]).astype(np.int64)
            self._place(keys, [p for b in batches for p in b[1]])
            self.pending_keys = np.concatenate([self.pending_keys, keys])
            added = np.vstack([b[2] for b in batches])
            self.pending_vectors = np.vstack([self.pending_vectors, added])
            self.pending_norms = np.concatenate([self.pending_norms, np.linalg.norm(added, axis=1)])
        self._settle()
        self.applied = max(self.applied, upto)
        if self.applied - self.saved >= SAVE_AFTER:
            with self.folder.writer_lock():
                if int(self.folder.read_state().get("applied", -1)) < self.applied:
                    self._save()

    def _settle(self) -> None:
        """Begin inserting the waiting rows in the background once there are PENDING_MAX. A mapped graph must be
        copied first (seconds at 1M rows, in the background too), so it lets rows wait until they are COPY_SHARE of
        its size (their exact search then costs about a hundredth of a scan), and is copied at once only when as
        many wait as a snapshot may lag by."""
        waiting = len(self.pending_keys)
        if waiting < PENDING_MAX or self._closed:
            return
        if self._mapped:
            if waiting < COPY_SHARE * len(self.graph):
                return
            self._start_copy()
            if self._copy[1].is_alive() and waiting < SAVE_AFTER:  # type: ignore[index]
                return
        if self._inserter is None or not self._inserter.is_alive():
            self._inserter = _background(self._insert_waiting, "audrey-graph-insert")

    def _insert_waiting(self) -> None:
        """Move the waiting rows into the graph a slice at a time, off the caller's thread: an insert costs about
        0.5 ms a row (4,000 rows held a recall or a validation for two seconds at 100k rows); a search waits for one
        slice at most, and meanwhile finds the rows still waiting by its exact scan of them."""
        while True:
            with self.lock:
                if self.graph is None or not len(self.pending_keys) or self._closed or _exiting():
                    return
                keys, vectors = self.pending_keys[:INSERT_SLICE], self.pending_vectors[:INSERT_SLICE]
                self._insert(keys, vectors)
                self.pending_keys = self.pending_keys[len(keys) :]
                self.pending_vectors = self.pending_vectors[len(keys) :]
                self.pending_norms = self.pending_norms[len(keys) :]
            time.sleep(0.001)  # a lock is not fair: let a waiting search in before the next slice

    def _remove(self, rowids: np.ndarray) -> None:
        inside = rowids[rowids < len(self.row_codes)]
        codes = self.row_codes[inside.astype(np.int64)]
        present = inside[codes >= 0]
        if len(present):
            if self._mapped:
                self._stale = np.union1d(self._stale, present.astype(np.int64))
            else:
                self.graph.remove(present)  # a key only pending is not in the graph: nothing happens
            np.subtract.at(self.counts, codes[codes >= 0], 1)
            self.row_codes[present.astype(np.int64)] = -1
            kept = ~np.isin(self.pending_keys, present.astype(np.int64))
            self.pending_keys, self.pending_vectors = self.pending_keys[kept], self.pending_vectors[kept]
            self.pending_norms = self.pending_norms[kept]

    def _add(self, rowids: np.ndarray, partitions: list[Partition], vectors: np.ndarray) -> None:
        if len(rowids):
            self._insert(rowids, vectors)
            self._place(rowids.astype(np.int64), partitions)

    def _insert(self, rowids: np.ndarray, vectors: np.ndarray) -> None:
        self._writable()
        self.graph.add(rowids.astype(np.uint64), vectors, threads=os.cpu_count() or 1)

    def _writable(self) -> None:
        """Copy a mapped snapshot into memory (about a second per 200k rows), without the rows removed since."""
        if not self._mapped:
            return
        self._start_copy()  # of this graph, unless one is under way
        _, copier, copied = self._copy  # type: ignore[misc]
        copier.join()  # the copier takes no lock: waiting for it while holding ours is safe
        self._copy = None
        graph = copied[0] if copied else self.graph.copy()  # the copier failed: copy here
        if len(self._stale):
            graph.remove(self._stale.astype(np.uint64))
        self.graph, self._mapped, self._stale = graph, False, np.zeros(0, dtype=np.int64)

    def _start_copy(self) -> None:
        """Begin copying the mapped graph on another thread, so the first insert need not wait seconds for it."""
        if self._copy is None or self._copy[0] is not self.graph:
            source, copied = self.graph, []
            self._copy = (source, _background(lambda: copied.append(source.copy()), "audrey-graph-copy"), copied)

    def _place(self, rowids: np.ndarray, partitions: list[Partition]) -> None:
        """Record the partition of each row (graph or pending)."""
        codes = np.array([self._code(p) for p in partitions], dtype=np.int32)
        top = int(rowids.max()) + 1
        if top > len(self.row_codes):
            grown = np.full(max(top, 2 * len(self.row_codes)), -1, dtype=np.int32)
            grown[: len(self.row_codes)] = self.row_codes
            self.row_codes = grown
        self.row_codes[rowids] = codes
        np.add.at(self.counts, codes, 1)

    def _flush(self) -> None:
        """Insert the pending rows into the graph."""
        if len(self.pending_keys):
            self._insert(self.pending_keys, self.pending_vectors)
        self._clear_pending()

    def _clear_pending(self) -> None:
        self.pending_keys = np.zeros(0, dtype=np.int64)
        self.pending_vectors = np.zeros((0, self.dimensions), dtype=np.float32)
        self.pending_norms = np.zeros(0, dtype=np.float32)

    def _code(self, partition: Partition) -> int:
        code = self._codes.get(partition)
        if code is None:
            code = self._codes[partition] = len(self.partitions)
            self.partitions.append(partition)
            self.counts = np.append(self.counts, 0)
        return code

    def _save(self) -> None:
        """Write a snapshot under a new generation, then name it in the state file (the caller holds the writer
        lock, or the folder is in memory); older snapshots and the log they cover are then deleted."""
        self._flush()
        self._writable()  # a mapped graph may still hold removed rows
        if self.folder.path is not None:
            state = self.folder.read_state()
            number = int(str(state.get("generation") or "g0").lstrip("g") or 0) + 1
            generation = self.folder.path / f"g{number}"
            self.graph.save(str(generation.with_suffix(".usearch")))
            np.savez(generation.with_suffix(".npz"), row_codes=self.row_codes)
            generation.with_suffix(".json").write_text(json.dumps(self.partitions))
            self.folder.write_state(
                {"format": FORMAT, "identity": self.identity, "generation": generation.name, "applied": self.applied}
            )
            for old in self.folder.path.glob("g*.*"):
                if old.stem != generation.name:
                    try:
                        old.unlink(missing_ok=True)  # another process may map it: on Linux its pages stay theirs
                    except OSError:  # mapped, on a system that refuses to unlink it: a later save deletes it
                        log.info("vector index snapshot %s is in use; left for later", old)
            self.source.prune_vector_log(self.applied)  # a new process loads this snapshot and replays the rest
        self.saved = self.applied

    def close(self) -> None:
        """Stop inserting in the background (a copy under way finishes: it cannot be interrupted)."""
        with self.lock:
            self._closed = True
        if self._inserter is not None and self._inserter is not threading.current_thread():
            self._inserter.join()

    def rebuild(self) -> None:
        """Build the graph again from the database (``audrey reindex``)."""
        with self.lock, self.folder.writer_lock():
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
        with self.lock:
            return int(self.counts.sum())  # the graph's rows and the waiting ones, less those removed

    def search(self, vector: np.ndarray, count: int, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row ids and cosine distances of the rows of partitions ``codes`` among the ``count`` nearest rows (all
        partitions: the graph has no filter), nearest first."""
        query = np.asarray(vector, dtype=np.float32)
        with self.lock:
            in_graph = min(int(count), len(self.graph))
            keys, distances = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
            if in_graph:
                self.graph.expansion_search = expansion_for(len(self.graph))
                matches = self.graph.search(query, in_graph, exact=len(self.graph) <= EXACT_BELOW)
                keys, distances = np.asarray(matches.keys, dtype=np.int64), np.asarray(matches.distances)
                if len(self._stale):  # removed since the mapped snapshot (the key may be waiting again, anew)
                    kept = ~np.isin(keys, self._stale)
                    keys, distances = keys[kept], distances[kept]
            if len(self.pending_keys):  # the rows not in the graph yet, exactly
                norms = self.pending_norms * float(np.linalg.norm(query))
                pending = (1.0 - (self.pending_vectors @ query) / np.where(norms > 0, norms, 1.0)).astype(np.float32)
                nearest = np.arange(len(pending))
                if len(pending) > count:  # only the `count` nearest waiting rows can be among the `count` nearest
                    nearest = np.argpartition(pending, int(count) - 1)[: int(count)]
                keys = np.concatenate([keys, self.pending_keys[nearest]])
                distances = np.concatenate([distances, pending[nearest]])
                order = np.argsort(distances, kind="stable")[: int(count)]  # the `count` nearest of both
                keys, distances = keys[order], distances[order]
            mine = np.isin(self.row_codes[keys], codes)
            return keys[mine], distances[mine]

    def memory_types(self, rowids: np.ndarray) -> list[str]:
        """The memory type of each of ``rowids`` (rows the index holds, as :meth:`search` returns them)."""
        with self.lock:
            return [self.partitions[code][1] for code in self.row_codes[np.asarray(rowids, dtype=np.int64)].tolist()]

    def vectors(self, rowids: Sequence[int]) -> dict[int, np.ndarray]:
        """The float32 copies the graph holds of ``rowids`` (those it holds)."""
        with self.lock:
            keys = np.asarray(rowids, dtype=np.int64)
            keys = keys[(keys < len(self.row_codes)) & (keys >= 0)]
            keys = keys[self.row_codes[keys] >= 0]
            if not len(keys):
                return {}
            waiting = np.isin(keys, self.pending_keys)
            in_graph = keys[~waiting & ~np.isin(keys, self._stale)].astype(np.uint64)
            found = self.graph.get(in_graph, dtype=np.float32) if len(in_graph) else ()
            held = {int(key): np.array(vector, dtype=np.float32) for key, vector in zip(in_graph, found)}
            for key in keys[waiting]:  # few asked for, among the few waiting
                held[int(key)] = self.pending_vectors[np.flatnonzero(self.pending_keys == key)[0]].copy()
            return held

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
