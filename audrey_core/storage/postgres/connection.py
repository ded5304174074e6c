"""PostgreSQL connections: a psycopg 3 pool, pgvector's adapter, and the shared SQL's ``?`` placeholders.

The portable SQL of :mod:`..sql` (reads, writes, records, maintenance) is
written with ``?`` placeholders (SQLite's style); :class:`Session` turns them into psycopg's ``%s``. That SQL never
holds a literal ``?`` or ``%``: values always travel as parameters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ...errors import StorageError, install_hint
from ...index_settings import DEFAULT_EF_SEARCH as DEFAULT_EF_SEARCH  # re-exported for the store

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(path: Any) -> bool:
    """Whether an Audrey ``path`` names a PostgreSQL server rather than an SQLite file."""
    return isinstance(path, str) and path.startswith(POSTGRES_SCHEMES)


def require_psycopg() -> Any:
    """The psycopg module, or a StorageError saying which extra installs it."""
    try:
        import pgvector.psycopg  # noqa: F401
        import psycopg
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise StorageError(
            f"a postgresql:// store needs psycopg 3, psycopg_pool and pgvector ({exc}); "
            f"install them with: {install_hint('postgres')}"
        ) from None
    return psycopg


@lru_cache(maxsize=4096)
def to_pyformat(sql: str) -> str:
    """``?`` placeholders -> ``%s`` (and a literal ``%`` doubled, should one ever appear)."""
    return sql.replace("%", "%%").replace("?", "%s")


class Session:
    """One pooled connection, speaking the shared SQL's dialect: ``execute`` / ``executemany`` with ``?``."""

    __slots__ = ("connection",)

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        params = tuple(params)
        return self.connection.execute(to_pyformat(sql) if params else sql, params or None)

    def execute_vectors(self, sql: str, params: Sequence[Any]) -> Any:
        """``execute`` with the arrays of vectors (``?::vector[]``) sent in binary: pgvector's adapter writes an
        array's vectors as text, a formatted number per dimension (128 query vectors of 384 dimensions: 26 ms of
        Python against 0.4 ms in binary)."""
        return self.connection.execute(to_pyformat(sql).replace("%s::vector[]", "%b::vector[]"), tuple(params))

    def fetch_binary(self, sql: str, params: Sequence[Any]) -> list[Any]:
        """``execute(...).fetchall()`` with the results in binary: pgvector parses a vector's text form number by
        number in Python (a third of a hybrid recall's time at 10k went to reading ~150 vectors)."""
        return list(self.connection.execute(to_pyformat(sql), tuple(params), binary=True).fetchall())

    def executemany(self, sql: str, rows: Any) -> Any:
        rows = list(rows)
        cursor = self.connection.cursor()
        if rows:
            cursor.executemany(to_pyformat(sql), rows)
        return cursor


@lru_cache(maxsize=1)
def _flat_list_dumper() -> type:
    """psycopg's text dumper for lists, writing a flat list of ``str`` or of ``int`` (the ids and row ids a read
    passes as one ``= ANY(?)`` array) in one join instead of element by element: 160 memory ids took 0.55 ms of
    Python each time (a third of it per element quoting), 0.12 ms so. Other lists go through psycopg's own."""
    from psycopg.types.array import ListDumper

    class FlatListDumper(ListDumper):
        def dump(self, obj: list[Any]) -> Any:
            if obj and self.delimiter == b",":
                kinds = set(map(type, obj))
                if kinds == {str} and self.sub_dumper is not None:
                    plain = "".join(obj)
                    if "\\" in plain or '"' in plain:
                        obj = [v.replace("\\", "\\\\").replace('"', '\\"') for v in obj]
                    return self.sub_dumper.dump('{"' + '","'.join(obj) + '"}')  # in the connection's encoding
                if kinds == {int}:
                    return ("{" + ",".join(map(str, obj)) + "}").encode()
            return super().dump(obj)

    return FlatListDumper


@lru_cache(maxsize=1)
def _vector_array_loader() -> type:
    """A loader of pgvector's binary form (two 16-bit words, then big-endian float32s) straight into a float32 numpy
    array: pgvector's own builds a ``Vector`` through a Python ``array`` first, 7 us a vector against 3.4 (a recall
    on a store of turns reads ~160)."""
    from psycopg.adapt import Loader
    from psycopg.pq import Format

    class VectorArrayLoader(Loader):
        format = Format.BINARY

        def load(self, data: Any) -> np.ndarray:
            return np.frombuffer(data, dtype=">f4", offset=4).astype(np.float32)

    return VectorArrayLoader


def open_pool(url: str, *, max_size: int = 4) -> Any:
    """A connection pool whose connections autocommit (transactions are explicit), know pgvector's type (read in
    binary as numpy arrays: :func:`_vector_array_loader`) and write flat lists of ids quickly
    (:func:`_flat_list_dumper`)."""
    require_psycopg()
    from pgvector.psycopg import register_vector
    from psycopg_pool import ConnectionPool

    def configure(connection: Any) -> None:
        connection.autocommit = True
        register_vector(connection)  # the extension exists: the store's migration ran before the pool opened
        connection.adapters.register_loader(connection.adapters.types["vector"].oid, _vector_array_loader())
        connection.adapters.register_dumper(list, _flat_list_dumper())
        # Filtered HNSW scans keep walking the graph until enough rows pass the filter (pgvector >= 0.8).
        connection.execute("SET hnsw.iterative_scan = strict_order")
        connection.execute(f"SET hnsw.ef_search = {DEFAULT_EF_SEARCH}")

    pool = ConnectionPool(url, min_size=1, max_size=max_size, configure=configure, open=False, timeout=60)
    try:
        pool.open(wait=True, timeout=30)
    except Exception as exc:
        pool.close()
        raise StorageError(f"cannot connect to PostgreSQL at {redact(url)}: {driver_error(exc, url)}") from None
    return pool


def redact(url: str) -> str:
    """The URL without its password (in the user part or a ``password=`` parameter), for messages."""
    scheme, _, rest = url.partition("://")
    if "@" in rest.split("?", 1)[0]:
        credentials, _, host = rest.rpartition("@")
        user = credentials.split(":", 1)[0]
        rest = f"{user}:***@{host}" if ":" in credentials else rest
    rest = re.sub(r"(?i)([?&]password=)[^&]*", r"\1***", rest)
    return f"{scheme}://{rest}"


def driver_error(error: BaseException, url: str) -> str:
    """A driver's error message fit for ours: on one line, with ``url`` redacted and its password masked should
    the driver repeat either."""
    message = " ".join(str(error).replace(url, redact(url)).split())
    password = url.partition("://")[2].split("?", 1)[0].rpartition("@")[0].partition(":")[2]
    return message.replace(password, "***") if password else message


__all__ = ["Session", "driver_error", "is_postgres_url", "open_pool", "redact", "require_psycopg", "to_pyformat"]
