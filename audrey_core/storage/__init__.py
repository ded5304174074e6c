"""Storage backends. Only this package writes SQL; stages use the :class:`Storage` interface."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import KeywordHit, Storage, StoreCounts, VectorFilter, VectorHit
from .postgres.connection import is_postgres_url
from .sqlite.store import SQLiteStorage


def open_storage(path: str | Path, *, model_name: str, dimensions: int, **options: Any) -> Storage:
    """The backend a path names: ``postgresql://...`` (or ``postgres://``) opens PostgreSQL, anything else an
    SQLite file (or ``:memory:``)."""
    if is_postgres_url(path):
        from .postgres.store import PostgresStorage

        return PostgresStorage(str(path), model_name=model_name, dimensions=dimensions, **options)
    return SQLiteStorage(path, model_name=model_name, dimensions=dimensions)


__all__ = ["KeywordHit", "SQLiteStorage", "Storage", "StoreCounts", "VectorFilter", "VectorHit", "open_storage"]
