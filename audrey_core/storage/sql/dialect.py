"""The dialect interface: what the portable SQL layer (the mixins in this folder) needs from each dialect's store.
A store class that leaves one of these out cannot be instantiated (``TypeError`` naming it), so a new dialect finds
out at once what it must supply."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from ...models import Memory
from ...rules.filters import Filter
from ..sqlite.connection import placeholders


class SQLDialect(ABC):
    """Connections and transactions, and the few statements whose SQL differs between dialects."""

    path: str
    model_name: str
    dimensions: int
    vector_error: str | None  # why vector search is unavailable (SQLite without sqlite-vec), or None
    vector_table: str

    # -- connections ------------------------------------------------------------------------------------------

    @abstractmethod
    def _read(self) -> AbstractContextManager[Any]:
        """A connection to read with (the thread's open transaction, when it has one)."""

    @abstractmethod
    def _write(self) -> AbstractContextManager[Any]:
        """A write transaction (joining the thread's open one); committed on leaving, rolled back on an error."""

    def _read_value(self, sql: str) -> Any:
        """The one value a one-row, one-column read without parameters returns."""
        with self._read() as db:
            return db.execute(sql).fetchone()[0]

    # -- statements that differ -------------------------------------------------------------------------------

    def _one_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """SQL (and parameters) testing that ``column`` is one of ``values`` (not empty): an IN list here; a
        dialect may say it with one parameter, so that the statement's text does not change with the count."""
        return f"{column} IN ({placeholders(values)})", list(values)

    @abstractmethod
    def _index_text(self, db: Any, rows: Sequence[tuple[int, Memory, str]]) -> None:
        """Add (text row id, memory, its neighbours' words) rows to the dialect's full-text index."""

    @abstractmethod
    def _embedding_param(self, vector: np.ndarray) -> Any:
        """One float32 vector as the driver takes it for the embedding column."""

    @abstractmethod
    def _to_array(self, stored: Any) -> np.ndarray:
        """A stored embedding as a float32 vector."""

    @abstractmethod
    def _fetch_vectors(self, db: Any, sql: str, params: Sequence[Any]) -> list[Any]:
        """The rows of a query selecting embeddings, read in the form the driver decodes fastest."""

    @abstractmethod
    def _metadata_sql(self, flt: Filter, column: str) -> tuple[str, list[Any]]:
        """SQL (and parameters) testing a metadata filter against the JSON text in ``column``."""

    @abstractmethod
    def _json_elements(self, column: str) -> str:
        """A FROM item (aliased j, one row per element, text in j.value) over the JSON array in ``column``."""

    @abstractmethod
    def _table_columns(self, db: Any, table: str) -> set[str]:
        """The columns of ``table``."""

    @abstractmethod
    def _vector_table_names(self, db: Any) -> list[str]:
        """Every vector table in the store (the active one and any re-embed target)."""

    @abstractmethod
    def _create_vector_table(self, db: Any, table: str, dimensions: int) -> None:
        """A vector table for ``dimensions``-d vectors."""

    def _next_rowids(self, db: Any, table: str, count: int) -> list[int]:
        """``count`` fresh row ids for ``table`` (here max + 1 onwards: right when writers are serialised, as in
        SQLite; a dialect with concurrent writers draws them from a sequence)."""
        first = int(db.execute(f"SELECT COALESCE(MAX(rowid), 0) + 1 FROM {table}").fetchone()[0])
        return list(range(first, first + count))
