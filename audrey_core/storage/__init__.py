"""Storage backends. Only this package writes SQL; stages use the :class:`Storage` interface, administration the
names below (locating, opening and copying stores, snapshots)."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigurationError
from ..index_settings import IndexConfig
from .base import Candidates, KeywordHit, Storage, StoreCounts, TurnWindow, VectorFilter, VectorHit
from .locations import (
    CopyTally,
    copy_store,
    count_records,
    display_name,
    embedding_of,
    location,
    not_a_database,
    open_store,
    opened,
    read_info,
    same_store,
)
from .maintenance import Maintenance
from .postgres.connection import is_postgres_url
from .sql.maintenance import SNAPSHOT_VERSION, snapshot_header
from .sqlite.store import SQLiteStorage


def open_storage(
    path: str | Path,
    *,
    model_name: str,
    dimensions: int,
    index: IndexConfig | None = None,
    pool_size: int = 4,
    replica_url: str | None = None,
) -> Storage:
    """The backend a path names: ``postgresql://...`` (or ``postgres://``) opens PostgreSQL with a pool of at most
    ``pool_size`` connections (and recall's reads on ``replica_url``, a read replica, when given), anything else an
    SQLite file (or ``:memory:``), with its derived indexes set by ``index``."""
    if is_postgres_url(path):
        from .postgres.store import PostgresStorage

        return PostgresStorage(
            str(path),
            model_name=model_name,
            dimensions=dimensions,
            index=index,
            pool_size=pool_size,
            replica_url=replica_url,
        )
    if replica_url is not None:
        raise ConfigurationError("a read replica (replica_url) applies to a PostgreSQL store, not to an SQLite file")
    return SQLiteStorage(path, model_name=model_name, dimensions=dimensions, index=index)


__all__ = [
    "SNAPSHOT_VERSION",
    "Candidates",
    "CopyTally",
    "KeywordHit",
    "Maintenance",
    "SQLiteStorage",
    "Storage",
    "StoreCounts",
    "TurnWindow",
    "VectorFilter",
    "VectorHit",
    "copy_store",
    "count_records",
    "display_name",
    "embedding_of",
    "is_postgres_url",
    "location",
    "not_a_database",
    "open_storage",
    "open_store",
    "opened",
    "read_info",
    "same_store",
    "snapshot_header",
]
