"""What the vector index knows, declared once: :class:`~.vector.VectorIndex` is a :class:`VectorState` with the
behaviour (freshness, search, lifecycle), and its parts (:mod:`.vector_inserts`, :mod:`.vector_snapshot`) are given
the state they act on. Which lock guards what: the package's contract (``audrey_core/index/__init__.py``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..index_settings import IndexConfig
from .folder import IndexFolder
from .once import CatchUpOnce
from .vector_partitions import Partition, PartitionTable
from .vector_rows import RowVectors, WaitingRows


class VectorSource(Protocol):
    """What the index reads from the database (committed data only)."""

    def vector_identity(self) -> dict[str, Any]: ...
    def vector_log_head(self) -> int: ...
    def vector_log_since(self, seq: int) -> tuple[int, list[int]] | None: ...
    def vector_row_count(self) -> int: ...
    def vector_documents(
        self, rowids: Sequence[int] | None
    ) -> Iterable[tuple[np.ndarray, list[Partition], np.ndarray]]: ...
    def prune_vector_log(self, upto: int) -> None: ...


class VectorState:
    def __init__(
        self,
        folder: Path | None,
        source: VectorSource,
        dimensions: int,
        catch_up: Callable[[], None],
        config: IndexConfig,
    ):
        self.folder = IndexFolder(folder)
        self.config = config  # sizes and thresholds of this index (AudreyConfig.index)
        self.source = source
        self.dimensions = int(dimensions)
        self.lock = threading.RLock()  # guards everything below but the graph's contents and `landed`
        self.rows_landed = threading.Condition(self.lock)  # notified when inserted rows leave the waiting rows
        self.graph_lock = threading.RLock()  # guards the graph's contents and `landed` (see vector_inserts)
        self.graph: Any = None
        self.identity: dict[str, Any] = {}  # what the graph was built from (store, model, vector table)
        self.applied = -1  # the last logged change the index holds
        self.saved = -1  # the change the last snapshot (ours or another process's) holds
        self.table = PartitionTable()  # each row's partition
        self.rows = RowVectors(self.dimensions)  # the float32 vector of every row held (graph or waiting)
        self.waiting = WaitingRows(self.dimensions)  # caught up, not in the graph yet: inserted in the background
        self.landed: list[tuple[np.ndarray, np.ndarray]] = []  # (keys, serials) inserted, still listed as waiting
        self.saved_waiting = 0  # rows the last snapshot held as waiting: a process that loads it inserts them again
        self.changed_at = 0.0  # when a catch-up last applied a change (time.monotonic())
        self.on_landed: Callable[[], None] = lambda: None  # called once inserted rows leave the waiting rows
        # A loaded snapshot is mapped from its file, read-only (opening takes milliseconds whatever the size, and the
        # processes on one store share its pages); rows removed meanwhile are left out of its answers (stale) until
        # the first insert copies it into memory (GraphInserts.writable, a copy begun in the background).
        self.mapped = False
        self.stale = np.zeros(0, dtype=np.int64)
        self.closed = False  # no background work starts once set (a flag: read without the lock)
        self.freshness = CatchUpOnce(catch_up)  # catching up once per validation batch

    @contextmanager
    def graph_held(self) -> Iterator[None]:
        """Hold the graph (the caller holds ``lock``), with every landed slice out of the waiting rows."""
        with self.graph_lock:
            self.land()
            yield

    def land_now(self) -> None:
        """Land the slices inserted since if no one holds the graph (the caller holds ``lock``): otherwise the next
        :meth:`graph_held` does. Holding ``lock`` while waiting for ``graph_lock`` would hold up every search (which
        needs ``lock``) for as long as a bulk slice is inserted."""
        if self.graph_lock.acquire(blocking=False):
            try:
                self.land()
            finally:
                self.graph_lock.release()

    def land(self) -> None:
        """Take the slices inserted since out of the waiting rows (the caller holds both locks)."""
        for keys, serials in self.landed:
            still = self.waiting.drop_serials(serials)
            if not still.all():  # removed (and perhaps added anew) while being inserted
                self.graph.remove(keys[~still].astype(np.uint64))
        if self.landed:
            self.landed.clear()
            self.rows_landed.notify_all()
            self.on_landed()
