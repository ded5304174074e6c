"""A vector index snapshot on disk: the graph, the float32 rows, each row's partition code, the partitions and the
rows not in the graph yet (waiting for an insert; their vectors are among the rows), all under one generation name.
The folder's state file names the current generation and is written last (atomically), so a reader sees a whole
snapshot or the one before it.

Snapshots are saved at a rebuild in the caller's thread, and after every ``save_after`` changes on a background
thread (:class:`SnapshotSaves`). Why in the background: a snapshot writes the whole graph and every float32 row (~0.7
s at 100k rows, seconds at 1M); whichever call crossed the mark used to pay for it, a recall or validation's catch-up.
The saver copies what the index knows (row codes, partitions, the waiting rows, the change applied) holding both
locks for a moment, writes the graph holding only ``graph_lock`` (no insert may land meanwhile, so graph and waiting
rows agree; catch-ups and reads go on), then the rows from a view of them holding no index lock. A row id rewritten
in place while the rows are written changed after the snapshot's change, so whoever loads it replays that change from
the log.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .folder import IndexFolder
from .threads import background, exiting, lower_priority
from .vector_inserts import GraphInserts
from .vector_partitions import Partition
from .vector_rows import RowVectors
from .vector_state import VectorState

log = logging.getLogger(__name__)
QUIET_S = 2.0  # no change applied for this long: a load is over, and a snapshot of its backlog may be written
FORMAT = 3  # bump when the snapshot layout or the graph's parameters change: older snapshots are rebuilt
# 3 may hold rows waiting for an insert: code that reads only 2 would take them for rows in the graph and never find
# them, so it rebuilds instead; a 2 is read as holding none.
READABLE = (2, 3)


@dataclass
class Snapshot:
    graph: Any  # mapped read-only from its file
    rows: RowVectors
    row_codes: np.ndarray  # vector row id -> partition code, -1 when absent
    partitions: list[Partition]
    applied: int  # the last logged change it holds
    waiting: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # held rows not in the graph
    files: list[Path] = field(default_factory=list)  # what it was read from: the graph's file, the rows' file


def read_snapshot(
    folder: IndexFolder, identity: dict[str, Any], dimensions: int, restore: Callable[..., Any]
) -> Snapshot | None:
    """The snapshot the state file names, if it is ours to use (this format, this store, this model)."""
    state = folder.read_state()
    if folder.path is None or state.get("format") not in READABLE or state.get("identity") != identity:
        return None
    generation = folder.path / str(state.get("generation"))
    try:
        graph = restore(str(generation.with_suffix(".usearch")), view=True)
        with np.load(generation.with_suffix(".npz")) as parts:
            row_codes, norms = parts["row_codes"], parts["norms"]
            waiting = parts["waiting"] if "waiting" in parts else np.zeros(0, dtype=np.int64)  # older: none
        rows = RowVectors.mapped(generation.with_suffix(".f32.npy"), norms, dimensions)
        partitions = [tuple(p) for p in json.loads(generation.with_suffix(".json").read_text())]
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        log.warning("vector index snapshot %s cannot be loaded (%s); rebuilding it", generation, exc)
        return None
    if graph is None or graph.ndim != dimensions:
        return None
    files = [generation.with_suffix(".usearch"), generation.with_suffix(".f32.npy")]  # the graph, its rows
    applied = int(state["applied"])
    return Snapshot(graph, rows, row_codes.astype(np.int32), partitions, applied, waiting.astype(np.int64), files)


def new_generation(folder: IndexFolder) -> Path:
    """The path stem of the next snapshot (the caller holds the folder's writer lock)."""
    assert folder.path is not None
    return folder.path / folder.next_generation()


def finish_snapshot(folder: IndexFolder, identity: dict[str, Any], generation: Path, snapshot: Snapshot) -> None:
    """Write everything but the graph (saved as ``generation``.usearch already), name the generation in the state
    file, then delete older generations (the caller holds the folder's writer lock)."""
    assert folder.path is not None
    held = np.flatnonzero(snapshot.row_codes >= 0)
    norms = snapshot.rows.save(generation.with_suffix(".f32.npy"), int(held[-1]) + 1 if len(held) else 0)
    np.savez(generation.with_suffix(".npz"), row_codes=snapshot.row_codes, norms=norms, waiting=snapshot.waiting)
    generation.with_suffix(".json").write_text(json.dumps(snapshot.partitions))
    folder.write_state(
        {
            "format": FORMAT,
            "identity": identity,
            "generation": generation.name,
            "applied": snapshot.applied,
            "waiting": len(snapshot.waiting),
        }
    )
    for old in folder.path.glob("g*.*"):
        if old.name.split(".")[0] != generation.name:
            try:
                old.unlink(missing_ok=True)  # another process may map it: on Linux its pages stay theirs
            except OSError:  # mapped, on a system that refuses to unlink it: a later save deletes it
                log.info("vector index snapshot %s is in use; left for later", old)


class SnapshotSaves:
    """The vector index's snapshots and its save thread."""

    def __init__(self, index: VectorState, inserts: GraphInserts) -> None:
        self.index = index
        self.inserts = inserts  # to copy a mapped graph into memory before saving it without removed rows
        self.thread: threading.Thread | None = None  # audrey-graph-save

    def threads(self) -> list[tuple[threading.Thread | None, str]]:
        return [(self.thread, "saving a vector index snapshot")]

    def save_now(self) -> None:
        """Write a snapshot now (the caller holds the writer lock and ``lock``, or the folder is in memory); older
        snapshots and the log they cover are then deleted. Rows waiting for an insert are saved as waiting."""
        index = self.index
        if index.folder.path is None:
            index.saved = index.applied
            return
        self._write_snapshot(let_go_of_lock=False)

    def due(self, settled: bool = False) -> bool:
        """Whether the last snapshot is worth replacing: ``save_after`` changes applied since; or it held a backlog of
        rows waiting for an insert (``pending_max`` or more) that the graph now holds, and no change came for
        ``QUIET_S`` (``settled``: ``wait_for_idle`` drained it), so a load under way is not slowed by saves. Without
        the second, a snapshot saved during a bulk load's backlog stayed the last one: each new process inserted those
        rows again, and searched every row exactly meanwhile (30,000 rows at 100k: 20-28 ms a recall at first)."""
        index, cfg = self.index, self.index.config
        if index.applied - index.saved >= cfg.save_after:
            return True
        inserted = index.saved_waiting >= cfg.pending_max and len(index.waiting) < cfg.pending_max
        return inserted and (settled or time.monotonic() - index.changed_at >= QUIET_S)

    def save_soon(self, settled: bool = False) -> None:
        """Save once :meth:`due`, on a background thread (the caller holds ``lock``)."""
        index = self.index
        if not self.due(settled) or index.closed:
            return
        if index.folder.path is None:
            index.saved, index.saved_waiting = index.applied, 0  # an in-memory index is rebuilt with its store
        elif self.thread is None or not self.thread.is_alive():
            self.thread = background(self._save_in_background, "audrey-graph-save")

    def _save_in_background(self) -> None:
        index = self.index
        lower_priority()  # upkeep: the foreground's CPU first
        try:
            with index.folder.writer_lock(stop=lambda: index.closed or exiting()), index.lock:  # the lock order
                if index.closed or exiting() or index.graph is None or not self.due(settled=True):
                    return  # closing, or a rebuild or a reload saved meanwhile
                state = index.folder.read_state()  # an older state file does not say: as many as the one we read
                waiting = int(state.get("waiting", index.saved_waiting))
                if int(state.get("applied", -1)) >= index.applied and waiting <= len(index.waiting):
                    index.saved, index.saved_waiting = index.applied, len(index.waiting)  # another process saved
                    return
                self._write_snapshot(let_go_of_lock=True)
        except Exception as exc:  # a snapshot is a cache: the next save, or the log, covers what this one missed
            log.warning("vector index snapshot not saved (%s)", exc)

    def _write_snapshot(self, let_go_of_lock: bool) -> None:
        """Write what the index holds under a new generation and name it in the state file; then prune the log it
        covers. Entered holding the writer lock and ``lock``, and left holding them. What the index knows is copied
        holding ``lock`` and ``graph_lock``; the graph is written holding ``graph_lock`` (no insert lands meanwhile,
        so graph and waiting rows agree), the rest holding neither. With ``let_go_of_lock`` (a background save),
        ``lock`` is let go once the copy is taken, so catch-ups and reads go on, and taken again last, after
        ``graph_lock`` is let go (the order: ``lock`` is never waited for holding ``graph_lock``)."""
        index = self.index
        if len(index.stale):
            self.inserts.writable()  # the mapped graph still holds removed rows
        released = False
        try:
            index.graph_lock.acquire()
            try:
                index.land()
                table = index.table
                snapshot = Snapshot(
                    index.graph,
                    index.rows.view(),
                    table.row_codes.copy(),
                    list(table.partitions),
                    index.applied,
                    index.waiting.keys.copy(),
                )
                index.saved_waiting = len(snapshot.waiting)
                identity = dict(index.identity)
                if let_go_of_lock:
                    index.lock.release()
                    released = True
                generation = new_generation(index.folder)
                snapshot.graph.save(str(generation.with_suffix(".usearch")))
            finally:
                index.graph_lock.release()
            finish_snapshot(index.folder, identity, generation, snapshot)
            index.source.prune_vector_log(snapshot.applied)  # a new process loads this snapshot and replays the rest
        finally:
            if released:
                index.lock.acquire()
        index.saved = max(index.saved, snapshot.applied)
