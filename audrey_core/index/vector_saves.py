"""Saving the vector index's snapshots: at a rebuild in the caller's thread, after every ``save_after`` changes on a
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

from .threads import background, exiting, lower_priority
from .vector_inserts import GraphInserts
from .vector_snapshot import Snapshot, finish_snapshot, new_generation
from .vector_state import VectorState

log = logging.getLogger(__name__)


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

    def save_soon(self) -> None:
        """Save once more than ``save_after`` changes are applied since the last snapshot, on a background thread (the
        caller holds ``lock``)."""
        index = self.index
        if index.applied - index.saved < index.config.save_after or index.closed:
            return
        if index.folder.path is None:
            index.saved = index.applied  # nothing to write: an in-memory index is rebuilt with its store
        elif self.thread is None or not self.thread.is_alive():
            self.thread = background(self._save_in_background, "audrey-graph-save")

    def _save_in_background(self) -> None:
        index = self.index
        lower_priority()  # upkeep: the foreground's CPU first
        try:
            with index.folder.writer_lock(stop=lambda: index.closed or exiting()), index.lock:  # the lock order
                unsaved = index.applied - index.saved
                if index.closed or exiting() or index.graph is None or unsaved < index.config.save_after:
                    return  # closing, or a rebuild or a reload saved meanwhile
                if int(index.folder.read_state().get("applied", -1)) >= index.applied:
                    index.saved = index.applied  # another process saved as much
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
