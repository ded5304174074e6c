"""Opening SQLite with sqlite-vec loaded, on any Python.

Many Pythons (macOS system and python.org builds, several distributions, this project's CI) ship a ``sqlite3``
compiled without ``enable_load_extension``. We try the standard module first and fall back to a wheel that bundles
an extension-capable SQLite: ``sqlean.py`` (a dependency of Audrey, so normally present), then ``pysqlite3``.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import Any

from ...errors import StorageError

log = logging.getLogger(__name__)

# Module names tried in order; each must be DB-API compatible with the standard ``sqlite3``.
DEFAULT_CANDIDATES: tuple[str, ...] = ("sqlite3", "sqlean", "pysqlite3.dbapi2")
INSTALL_HINT = (
    "pip install sqlean.py  (or pysqlite3-binary on Linux); "
    "Audrey needs a SQLite that can load the sqlite-vec extension"
)

_chosen: ModuleType | None = None


def can_load_extensions(module: Any) -> bool:
    """True when ``module.connect()`` gives connections that can load SQLite extensions."""
    connection_class = getattr(module, "Connection", None)
    return connection_class is not None and hasattr(connection_class, "enable_load_extension")


def select_sqlite_module(candidates: Iterable[str | ModuleType] = DEFAULT_CANDIDATES) -> ModuleType:
    """The first candidate that imports and can load extensions; raise :class:`StorageError` naming the fix."""
    tried: list[str] = []
    for candidate in candidates:
        if isinstance(candidate, str):
            try:
                module = importlib.import_module(candidate)
            except ImportError:
                tried.append(f"{candidate} (not installed)")
                continue
        else:
            module = candidate
        name = getattr(module, "__name__", repr(module))
        if can_load_extensions(module):
            return module
        tried.append(f"{name} (cannot load extensions)")
    raise StorageError(f"no SQLite module here can load extensions; tried {', '.join(tried)}. Fix: {INSTALL_HINT}")


def sqlite_module() -> ModuleType:
    """The extension-capable SQLite module for this process (chosen once, then cached)."""
    global _chosen
    if _chosen is None:
        _chosen = select_sqlite_module()
        if _chosen.__name__ != "sqlite3":
            log.debug("standard sqlite3 cannot load extensions; using %s", _chosen.__name__)
    return _chosen


def load_sqlite_vec(connection: Any) -> None:
    """Load sqlite-vec into ``connection``; raise :class:`StorageError` when it cannot be loaded."""
    try:
        import sqlite_vec
    except ImportError as exc:  # pragma: no cover - sqlite-vec is a hard dependency
        raise StorageError("sqlite-vec is not installed: pip install sqlite-vec") from exc
    try:
        connection.enable_load_extension(True)
        try:
            sqlite_vec.load(connection)
        finally:
            connection.enable_load_extension(False)
    except Exception as exc:
        raise StorageError(f"could not load the sqlite-vec extension ({exc}). Fix: {INSTALL_HINT}") from exc


def connect(path: str, *, module: ModuleType | None = None, busy_timeout_ms: int = 5000, vectors: bool = True) -> Any:
    """Open ``path`` in autocommit mode (we issue BEGIN/COMMIT ourselves) with WAL, foreign keys and, when
    ``vectors``, sqlite-vec (a failure to load it raises)."""
    mod = module or sqlite_module()
    try:
        connection = mod.connect(path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000)
    except Exception as exc:
        raise StorageError(f"cannot open SQLite database {path!r}: {exc}") from exc
    try:
        if vectors:
            load_sqlite_vec(connection)
        connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        connection.execute("PRAGMA foreign_keys = ON")
        if path != ":memory:" and not path.startswith("file::memory:"):
            mode = _switch_to_wal(connection, mod, busy_timeout_ms)
            if str(mode).lower() != "wal":
                log.warning("SQLite refused WAL mode for %s (got %s)", path, mode)
            connection.execute("PRAGMA synchronous = NORMAL")
    except StorageError:
        connection.close()
        raise
    except Exception as exc:
        connection.close()
        raise StorageError(f"cannot prepare SQLite database {path!r}: {exc}") from exc
    return connection


def _switch_to_wal(connection: Any, mod: ModuleType, busy_timeout_ms: int) -> str:
    """``PRAGMA journal_mode = WAL``, retried while another process holds the file: SQLite answers "database is
    locked" at once there instead of waiting (processes creating one new file together), until the busy timeout."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            return str(connection.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except mod.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def placeholders(values: Sequence[Any]) -> str:
    """'?, ?, ?' for an IN list of ``values``."""
    return ", ".join("?" * len(values))
