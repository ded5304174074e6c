"""What maintenance needs from a store, apart from what every caller needs (:class:`.base.Storage`): vector
coverage and backfill, export and import of every record, re-embedding with another model, the store's
configuration, and its derived search indexes. The ``audrey`` command and :mod:`audrey_core.admin.maintenance` use
this; the pipeline stages never do."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ..models import Memory
from ..rules.calibration import Baseline


class Maintenance(ABC):
    """Store-wide operations (each backend implements them beside :class:`.base.Storage`)."""

    @abstractmethod
    def vector_coverage(self, agent: str | None = None) -> tuple[int, int]:
        """(memories with a vector, memories without one)."""

    @abstractmethod
    def missing_vectors(self, limit: int) -> list[Memory]:
        """Memories that have no vector yet."""

    @abstractmethod
    def add_vectors(
        self, memories: Sequence[Memory], vectors: np.ndarray, chunks: Sequence[Sequence[tuple[int, int]]] | None = None
    ) -> None:
        """Give vector-less memories their vectors (one per chunk span when ``chunks`` is given)."""

    @abstractmethod
    def export_records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every stored row as (table, row) records, vectors as ("vector", {memory_id, chunk_index, vector})."""

    @abstractmethod
    def is_empty(self) -> bool:
        """True when the store holds nothing."""

    @abstractmethod
    def import_records(self, records: Iterable[tuple[str, dict[str, Any]]], progress: Any = None) -> int:
        """Restore exported records into an empty store (one transaction); return how many were read."""

    @abstractmethod
    def reembed_target(self) -> tuple[str, int, str] | None:
        """(model, dimensions, where) of a re-embed in progress."""

    @abstractmethod
    def begin_reembed(self, model_name: str, dimensions: int) -> str:
        """Start or resume re-embedding with another model."""

    @abstractmethod
    def cancel_reembed(self) -> None:
        """Abandon a re-embed in progress."""

    @abstractmethod
    def reembed_pending(self, limit: int) -> list[tuple[int, Memory, str]]:
        """Vectors not yet rewritten: (vector row id, memory, the text the vector embeds: a chunk's own, or the
        memory's content)."""

    @abstractmethod
    def reembed_progress(self) -> tuple[int, int]:
        """(vectors rewritten, vectors in all)."""

    @abstractmethod
    def write_reembedded(self, rows: Sequence[tuple[int, Memory]], vectors: np.ndarray) -> None:
        """Store new-model vectors for these rows."""

    @abstractmethod
    def finish_reembed(self) -> None:
        """Switch to the new model's vectors once all are rewritten (the old model's similarity baseline goes)."""

    @abstractmethod
    def similarity_baseline(self) -> Baseline | None:
        """The recorded baseline of the store's embedding model (as :meth:`.base.Storage.similarity_baseline`)."""

    @abstractmethod
    def record_similarity_baseline(self, baseline: Baseline) -> None:
        """Record ``baseline`` with the store."""

    @abstractmethod
    def config(self) -> dict[str, str]:
        """The store's configuration (embedding model, dimensions, ...)."""

    def rebuild_search_indexes(self) -> list[dict[str, Any]]:
        """Build every derived search index again from the database; their status afterwards."""
        return []
