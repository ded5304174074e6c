"""Stores by location, as the ``audrey`` command and maintenance name them: an SQLite file or a ``postgresql://``
URL (``--db``, ``--from``, ``--to``).

Reading a store's configuration without creating it, naming a store in messages (never with its password), opening
it with its own embedding model, and copying every record of one store into another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StorageError
from .base import Storage
from .maintenance import Maintenance
from .postgres.connection import driver_error, is_postgres_url, redact, require_psycopg
from .sql.rows import TABLES
from .sqlite.store import read_store_info

Location = str | Path  # a PostgreSQL URL (str) or an SQLite file (Path)


def location(db: str | Path) -> Location:
    """The URL as given for PostgreSQL, else the SQLite file's path."""
    return str(db) if is_postgres_url(str(db)) else Path(db)


def display_name(db: str | Path) -> str:
    """How messages name a store: an SQLite path as given, a URL without its password."""
    return redact(str(db)) if is_postgres_url(str(db)) else str(Path(db))


def same_store(a: str | Path, b: str | Path) -> bool:
    """Whether two locations name the same store (the same file, or the same URL)."""
    if is_postgres_url(str(a)) or is_postgres_url(str(b)):
        return str(a) == str(b)
    return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()


def not_a_database(db: str | Path) -> bool:
    """Whether ``db`` names a file that is not SQLite at all (an empty file is a new database to SQLite)."""
    if is_postgres_url(str(db)) or not Path(db).is_file():
        return False
    with Path(db).open("rb") as file:
        head = file.read(16)
    return bool(head) and head != b"SQLite format 3\x00"


def read_info(db: str | Path) -> dict[str, str] | None:
    """A store's ``audrey_config`` (embedding model, dimensions, vector table, any re-embed in progress) without
    creating anything; None when there is no Audrey store there yet."""
    if is_postgres_url(str(db)):
        return postgres_store_info(str(db))
    return read_store_info(db)


def postgres_store_info(url: str) -> dict[str, str] | None:
    """The configuration of the Audrey store at ``url``, or None if the database has no Audrey tables yet."""
    psycopg = require_psycopg()
    try:
        with psycopg.connect(url, autocommit=True) as connection:
            if connection.execute("SELECT to_regclass('audrey_config')").fetchone()[0] is None:
                return None
            info = dict(connection.execute("SELECT key, value FROM audrey_config").fetchall())
    except psycopg.Error as exc:
        raise StorageError(f"cannot read the Audrey store at {redact(url)}: {driver_error(exc, url)}") from None
    return info if "embedding_model" in info else None


def embedding_of(info: dict[str, str]) -> tuple[str, int]:
    """(embedding model, dimensions) from a store's configuration."""
    return info["embedding_model"], int(info["embedding_dimensions"])


def open_store(db: str | Path, info: dict[str, str]) -> Storage:
    """The store at ``db``, opened with the embedding model its configuration (``info``) names."""
    from . import open_storage  # the package's entry point, defined beside this module's import

    model_name, dimensions = embedding_of(info)
    return open_storage(location(db), model_name=model_name, dimensions=dimensions)


@contextmanager
def opened(db: str | Path, info: dict[str, str]) -> Iterator[Storage]:
    """:func:`open_store`, closed on the way out."""
    storage = open_store(db, info)
    try:
        yield storage
    finally:
        storage.close()


def count_records(storage: Maintenance) -> int:
    """How many records :meth:`Storage.export_records` yields (a full read; for a progress bar's length)."""
    return sum(1 for _ in storage.export_records())


@dataclass
class CopyTally:
    """What a copy moved: every record, of which memories (all three types) and vectors (one per chunk)."""

    records: int = 0
    memories: int = 0
    vectors: int = 0


MEMORY_TABLES = frozenset(TABLES.values())


def copy_store(source: Maintenance, target: Maintenance, progress: Callable[[int], None] | None = None) -> CopyTally:
    """Stream every record of ``source`` into the empty ``target`` (one transaction there: all or nothing)."""
    tally = CopyTally()

    def records() -> Iterator[tuple[str, dict[str, Any]]]:
        for table, row in source.export_records():
            if table == "vector":
                tally.vectors += 1
            elif table in MEMORY_TABLES:
                tally.memories += 1
            yield table, row

    tally.records = target.import_records(records(), progress)
    baseline = source.similarity_baseline()  # the same model's (the copy checks it): no need to measure it again
    if baseline is not None:
        target.record_similarity_baseline(baseline)
    return tally


__all__ = [
    "CopyTally",
    "copy_store",
    "count_records",
    "display_name",
    "embedding_of",
    "location",
    "not_a_database",
    "open_store",
    "opened",
    "read_info",
    "same_store",
]
