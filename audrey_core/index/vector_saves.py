"""Saving the vector index's snapshots: at a rebuild in the caller's thread, after every SAVE_AFTER changes on a
background thread.

Why in the background: a snapshot writes the whole graph and every float32 row (~0.7 s at 100k rows, seconds at 1M);
whichever call crossed the mark used to pay for it, a recall or validation's catch-up. The saver copies what the
index knows (row codes, partitions, the waiting rows, the change applied) holding both locks for a moment, writes the
graph holding only ``graph_lock`` (no insert may land meanwhile, so graph and waiting rows agree; catch-ups and
reads go on), then the rows from a view of them holding no index lock. A row id rewritten in place while the rows are
written changed after the snapshot's change, so whoever loads it replays that change from the log.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import numpy as np

from ..config import SAVE_AFTER
from .folder import IndexFolder
from .threads import background, exiting, lower_priority
from .vector_rows import RowVectors, WaitingRows
from .vector_snapshot import Partition, Snapshot, finish_snapshot, new_generation

log = logging.getLogger(__name__)


class SnapshotSaves:
    """Mixed into :class:`~.vector.VectorIndex`."""

    lock: threading.RLock
    graph_lock: threading.RLock
    folder: IndexFolder
    source: Any
    graph: Any
    identity: dict[str, Any]
    rows: RowVectors
    row_codes: np.ndarray
    partitions: list[Partition]
    waiting: WaitingRows
    applied: int
    saved: int
    _stale: np.ndarray
    _closed: bool
    _saver: threading.Thread | None

    def _save(self) -> None:
        """Write a snapshot now (the caller holds the writer lock and ``lock``, or the folder is in memory); older
        snapshots and the log they cover are then deleted. Rows waiting for an insert are saved as waiting."""
        if self.folder.path is None:
            self.saved = self.applied
            return
        self._write_snapshot(let_go_of_lock=False)

    def _save_soon(self) -> None:
        """Save once more than SAVE_AFTER changes are applied since the last snapshot, on a background thread."""
        if self.applied - self.saved < SAVE_AFTER or self._closed:
            return
        if self.folder.path is None:
            self.saved = self.applied  # nothing to write: an in-memory index is rebuilt with its store
        elif self._saver is None or not self._saver.is_alive():
            self._saver = background(self._save_in_background, "audrey-graph-save")

    def _save_in_background(self) -> None:
        lower_priority()  # upkeep: the foreground's CPU first
        try:
            with self.folder.writer_lock(stop=lambda: self._closed or exiting()), self.lock:  # the lock order
                if self._closed or exiting() or self.graph is None or self.applied - self.saved < SAVE_AFTER:
                    return  # closing, or a rebuild or a reload saved meanwhile
                if int(self.folder.read_state().get("applied", -1)) >= self.applied:
                    self.saved = self.applied  # another process saved as much
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
        if len(self._stale):
            self._writable()  # type: ignore[attr-defined]  # the mapped graph still holds removed rows
        released = False
        try:
            self.graph_lock.acquire()
            try:
                self._land()  # type: ignore[attr-defined]
                rows, codes, waiting = self.rows.view(), self.row_codes.copy(), self.waiting.keys.copy()
                snapshot = Snapshot(self.graph, rows, codes, list(self.partitions), self.applied, waiting)
                identity = dict(self.identity)
                if let_go_of_lock:
                    self.lock.release()
                    released = True
                generation = new_generation(self.folder)
                snapshot.graph.save(str(generation.with_suffix(".usearch")))
            finally:
                self.graph_lock.release()
            finish_snapshot(self.folder, identity, generation, snapshot)
            self.source.prune_vector_log(snapshot.applied)  # a new process loads this snapshot and replays the rest
        finally:
            if released:
                self.lock.acquire()
        self.saved = max(self.saved, snapshot.applied)
