"""The SQLite + sqlite-vec backend: one file (or ``:memory:``), one connection, every write one transaction.

Why one vector table: all vectors live in a single vec0 table (named in ``audrey_config.vector_table``) with the
memory type as a discriminator (seed 003), metadata columns for state, source and consolidated flag (seed 000 §2),
and agent, scope and memory type as vec0 partition keys. So:

* recall across episodic, semantic and procedural memories is one KNN scan, not three merged by hand;
* state, source and consolidated filters run inside the KNN scan (k counts only matching rows), tags through a
  ``rowid IN (subquery)`` constraint that sqlite-vec also applies during the scan;
* agent, scope and type are partition keys: a query scans only its agent's vectors, a scoped query only its scope's
  (a scope prefix is a range over the partition key, exact by construction of the encoding), so another tenant's
  volume costs it nothing, and validation's search among principles never scans episodes (sqlite-vec answers a
  partition constraint matching several partitions with k rows per partition; :meth:`knn` merges them);
* a memory may own several vector rows (chunks of a long text) through ``memory_vector_rows``, which also indexes
  memory id -> vec0 rowid for state updates.

vec0 shadow tables are ordinary SQLite tables, so a memory row and its vector commit or roll back together.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from ... import threads
from ...errors import ClosedError, IndexNotReady, InvalidInputError, StorageError
from ...index_settings import IndexConfig
from ...rules.keywords import TermCounts

try:
    import fcntl
except ImportError:  # Windows: consolidation is serialised within a process only
    fcntl = None  # type: ignore[assignment]
from ...models import Memory
from ..base import Storage, TurnRelevance
from ..maintenance import Maintenance
from ..sql.embedding_check import check_embedding
from ..sql.filters import scope_tokens
from ..sql.migrations import FTS_TABLE
from ..sql.overview import SQLOverview
from ..sql.records import SQLRecords
from ..sql.validation_queue import SQLValidationQueue
from ..sql.writes import SQLWrites
from .connection import connect, load_sqlite_vec, sqlite_module
from .maintenance import SQLiteMaintenance
from .reads import SQLiteReads
from .schema import LATEST_VERSION, migrate, vector_table_sql
from .search_log import SQLiteSearchLog

log = logging.getLogger(__name__)
OPEN_WAIT_S = 1.0  # how long opening a store waits for another process's index writer (a save; not its rebuild)
_warned_without_index = False
_warned_without_graph = False


class SQLiteStorage(
    SQLiteSearchLog,
    SQLiteMaintenance,
    SQLiteReads,
    SQLOverview,
    SQLWrites,
    SQLRecords,
    SQLValidationQueue,
    Storage,
    Maintenance,
):
    """Audrey's embedded store. Thread-safe: one connection guarded by a re-entrant lock."""

    schema_version = LATEST_VERSION

    def __init__(self, path: str | Path, *, model_name: str, dimensions: int, index: IndexConfig | None = None) -> None:
        self.path = str(path)
        self.index_config = index or IndexConfig()
        if not self._in_memory():
            try:
                Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
                raise StorageError(f"cannot create the folder for the store {self.path}: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0  # nesting of write transactions on the thread holding the lock
        module = sqlite_module()
        self._db_error: type[BaseException] = module.Error
        self._conn: Any = connect(self.path, module=module, vectors=False)
        self.vector_error: str | None = None  # why vector search is unavailable, if it is
        try:
            load_sqlite_vec(self._conn)
        except StorageError as exc:
            self.vector_error = str(exc)
            warnings.warn(
                f"Audrey is running without vector search: {exc}. It recalls by keyword only and stores memories "
                "without vectors; once sqlite-vec loads, run `audrey backfill` to embed them.",
                RuntimeWarning,
                stacklevel=2,
            )
        self._closed = False
        self._closing = False
        self._prefetcher: threading.Thread | None = None
        self._holder: int | None = None  # the thread inside _main(), if any
        self._side: Any = None  # a second connection for reads that may run beside the main one (file stores)
        self._side_lock = threading.RLock()
        self._side_readers = threading.local()  # depth: how deep this thread is inside a read of the side connection
        self._term_counts = TermCounts()  # for FTS5 ranking without the keyword index
        self._index_failed_at: dict[str, float] = {}  # see SQLiteIndexedSearch._from_index
        self.keyword_index = None  # opened once the schema is current (below)
        self.vector_index = None
        try:
            new_store = check_embedding(self.path, self._stored_config(), model_name, int(dimensions)) is not None
            migrate(self._conn, int(dimensions))
            if new_store:
                with self._write() as db:  # checked again under the write lock: another process may be creating it
                    new_config = check_embedding(self.path, self._stored_config(), model_name, int(dimensions))
                    if new_config is not None:
                        db.executemany("INSERT INTO audrey_config (key, value) VALUES (?, ?)", list(new_config.items()))
            self.vector_table = self._conn.execute(
                "SELECT value FROM audrey_config WHERE key = 'vector_table'"
            ).fetchone()[0]
            if self.vector_error is None:
                with self._write() as db:
                    db.execute(vector_table_sql(self.vector_table, int(dimensions)))
                self.upgrade_vector_layout()
        except BaseException:
            self._conn.close()
            self._closed = True
            raise
        self.model_name = model_name
        self.dimensions = int(dimensions)
        self.store_id = self._store_id()
        if not self._in_memory():
            self._side = connect(self.path, module=module, vectors=self.vector_error is None)
        self.keyword_index = self._open_keyword_index()
        self.vector_index = self._open_vector_index()
        self._warm_files()

    def _warm_files(self) -> None:
        """Read a large store's keyword index and database file through on a background thread, so the first
        recalls after opening find their pages in the OS cache instead of each waiting on the disk (at 1M memories
        a cold database put the first recalls' p95 at 15 ms against 5 ms warm: candidate rows are read at random)."""
        if self._in_memory() or os.path.getsize(self.path) < self.index_config.warm_from_bytes:
            return
        from ...index.threads import prefetch  # here: importing index/ loads tantivy and usearch

        files = self.keyword_index.files() if self.keyword_index is not None else []
        self._prefetcher = prefetch([*files, Path(self.path)], lambda: self._closing)

    def _open_keyword_index(self) -> Any:
        """The tantivy keyword index in ``<db>-indexes/keyword`` (in memory for ``:memory:``), caught up now; None
        without tantivy, when keyword search runs through FTS5 (linear in the store's size: one warning)."""
        from ...index import KeywordIndex, keyword_index_available

        global _warned_without_index
        if not keyword_index_available():
            if not _warned_without_index:
                _warned_without_index = True
                warnings.warn(
                    "the tantivy package is not importable: Audrey's keyword search runs through SQLite FTS5, which "
                    "slows down as the store grows; `pip install tantivy` makes it an index lookup",
                    RuntimeWarning,
                    stacklevel=3,
                )
            return None
        folder = None if self._in_memory() else Path(f"{self.path}-indexes") / "keyword"
        index = KeywordIndex(folder, self, self.index_config)
        if not _catch_up_at_open(index.ensure_fresh, "keyword"):
            index.request_catch_up()  # its thread waits for the writer lock, off the caller's
        return index

    def _open_vector_index(self) -> Any:
        """The usearch graph, snapshots in ``<db>-indexes/vector`` (none for ``:memory:``), caught up now; None
        without sqlite-vec or usearch, when KNN scans every vector of the filter's partitions (one warning)."""
        from ...index import VectorIndex, vector_index_available

        global _warned_without_graph
        if self.vector_error is not None:
            return None
        if not vector_index_available():
            if not _warned_without_graph:
                _warned_without_graph = True
                warnings.warn(
                    "the usearch package is not importable: Audrey's vector search scans every vector, which slows "
                    "down as the store grows; `pip install usearch` makes it a graph search",
                    RuntimeWarning,
                    stacklevel=3,
                )
            return None
        folder = None if self._in_memory() else Path(f"{self.path}-indexes") / "vector"
        index = VectorIndex(folder, self, self.dimensions, self.index_config)
        try:
            _catch_up_at_open(index.open_fresh, "vector")
        except StorageError as exc:  # vec0's tables not laid out as this version reads them: scan instead
            warnings.warn(f"Audrey's vector index cannot be built ({exc}); vectors are scanned", RuntimeWarning, 3)
            return None
        return index

    def _store_id(self) -> str:
        """This store's identity, made once (a store made before it gets one on its next open). The indexes beside
        the file record it: a folder left by a deleted or replaced database is never taken for this one's."""
        found = self._stored_config().get("store_id")
        if found:
            return found
        with self._write() as db:  # another process opening it now may make one first: the first one stays
            db.execute("INSERT OR IGNORE INTO audrey_config (key, value) VALUES ('store_id', ?)", [uuid.uuid4().hex])
            return str(db.execute("SELECT value FROM audrey_config WHERE key = 'store_id'").fetchone()[0])

    def _in_memory(self) -> bool:
        """A ``:memory:`` or ``file:`` URI store: no folder beside it for locks and indexes."""
        return self.path == ":memory:" or self.path.startswith("file:")

    # -- plumbing ---------------------------------------------------------------------------------------------

    def _stored_config(self) -> dict[str, str]:
        has_config = self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audrey_config'"
        ).fetchone()
        return dict(self._conn.execute("SELECT key, value FROM audrey_config").fetchall()) if has_config else {}

    def held_by_this_thread(self) -> bool:
        """True while the calling thread is inside a read or write of this store (e.g. a transaction)."""
        return self._holder == threading.get_ident() or getattr(self._side_readers, "depth", 0) > 0

    @contextmanager
    def searches_caught_up_once(self) -> Iterator[None]:
        with self.vector_index.caught_up_once() if self.vector_index is not None else nullcontext():
            yield  # the keyword index: a search reads its last commit and the log since, and catches nothing up

    def wait_for_indexes(self, stop: Callable[[], bool], timeout: float) -> bool:
        until = time.monotonic() + timeout
        for index in (self.keyword_index, self.vector_index):
            while index is not None and index.building():  # joined a second at a time, to see stop() turn true
                left = until - time.monotonic()
                if stop() or left <= 0:
                    return False
                index.wait_for_build(min(left, 1.0))
        return True

    def settle_indexes(self, timeout: float | None = None) -> bool:
        from ...index.once import caught_up_by  # here: importing index/ loads tantivy and usearch

        until = time.monotonic() + (timeout if timeout is not None else float("inf"))
        settled = self.keyword_index is None or caught_up_by(self.keyword_index, until)
        return (self.vector_index is None or self.vector_index.wait_until_inserted(until)) and settled

    def turn_relevance(
        self,
        ids: Sequence[str],
        query: np.ndarray | None,
        unknown: Collection[str],
        before: int,
        after: int,
        self_weight: float,
    ) -> TurnRelevance:
        found = (
            None if query is None else self._turn_relevance_from_index(ids, query, unknown, before, after, self_weight)
        )
        return found if found is not None else super().turn_relevance(ids, query, unknown, before, after, self_weight)

    def overlap_searches(self) -> bool:
        # Through both indexes the two searches take ~0.5 ms each, mostly holding the GIL: a second thread only
        # adds its hand-over (2.14 against 2.29 ms hybrid recall at 10k, 2.56 against 2.70 at 100k). Scans overlap.
        return self.keyword_index is None or self.vector_index is None

    @contextmanager
    def _read(self) -> Iterator[Any]:
        """A connection to read through: the main one inside this thread's transaction (it sees its own rows), else
        the side one, so a read never waits for a write under way on the main connection, which may itself wait
        (up to the busy timeout) for another process's transaction."""
        if self._side is not None and self._holder != threading.get_ident():
            with self._side_read() as db:
                yield db
            return
        with self._main() as db:
            yield db

    @contextmanager
    def _main(self) -> Iterator[Any]:
        """The main connection, which every write transaction goes through, held by this thread."""
        with self._lock:
            if self._closed:
                raise ClosedError("this Audrey store is closed; open a new Audrey instance")
            outer, self._holder = self._holder, threading.get_ident()
            try:
                yield self._conn
            except (StorageError, ClosedError):
                raise
            except (UnicodeEncodeError, OverflowError) as exc:  # a value the input checks let through
                raise InvalidInputError(f"a value cannot be stored or compared in SQLite: {exc}") from exc
            except self._db_error as exc:
                raise StorageError(f"SQLite error on {self.path}: {exc}") from exc
            finally:
                self._holder = outer

    @contextmanager
    def _side_read(self) -> Iterator[Any]:
        """The side connection when there is one (so a keyword search can run while the main connection scans
        vectors), else the main connection. It sees committed data only."""
        if self._side is None:
            with self._main() as db:
                yield db
            return
        with self._side_lock:
            if self._closed:
                raise ClosedError("this Audrey store is closed; open a new Audrey instance")
            readers = self._side_readers
            readers.depth = getattr(readers, "depth", 0) + 1
            try:
                yield self._side
            except (UnicodeEncodeError, OverflowError) as exc:
                raise InvalidInputError(f"a value cannot be stored or compared in SQLite: {exc}") from exc
            except self._db_error as exc:
                raise StorageError(f"SQLite error on {self.path}: {exc}") from exc
            finally:
                readers.depth -= 1

    @contextmanager
    def _write(self) -> Iterator[Any]:
        with self._main() as db:
            if self._depth:  # already inside a transaction on this thread: join it
                self._depth += 1
                try:
                    yield db
                finally:
                    self._depth -= 1
                return
            db.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield db
            except BaseException:
                self._depth = 0
                db.execute("ROLLBACK")
                raise
            self._depth = 0
            db.execute("COMMIT")

    def transaction(self) -> Any:
        return self._write()

    @contextmanager
    def consolidation_lock(self, agent: str) -> Iterator[None]:
        """The per-process lock, then (for a file store) an exclusive OS lock on a file beside the database, held for
        the whole run: a consolidation in another process waits for it, then finds the episodes consolidated. The
        kernel releases the lock when its holder dies, as it does SQLite's own locks."""
        with super().consolidation_lock(agent):
            if self._in_memory() or fcntl is None:
                yield
                return
            try:
                handle = open(f"{self.path}-consolidation.lock", "a+b")  # noqa: SIM115 - held across the yield
            except OSError as exc:
                raise StorageError(f"cannot open the consolidation lock beside {self.path}: {exc}") from exc
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                yield
            finally:
                handle.close()  # closing the file releases the lock

    def close(self) -> None:
        self._closing = True  # the read-ahead stops at its next slice
        for index in (self.keyword_index, self.vector_index):
            if index is not None:
                index.close()
        threads.join(self._prefetcher, "reading the store's files ahead")
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()
                if self._side is not None:
                    with self._side_lock:
                        self._side.close()

    # -- writes -----------------------------------------------------------------------------------------------

    def _index_text(self, db: Any, rows: Sequence[tuple[int, Memory, str]]) -> None:
        db.executemany(
            f"INSERT INTO {FTS_TABLE} (rowid, content, scopes, context) VALUES (?, ?, ?, ?)",
            [(rowid, m.content, scope_tokens(m.scope), context) for rowid, m, context in rows],
        )

    def _index_context(self, db: Any, rows: Sequence[tuple[int, str, str]]) -> None:
        db.executemany(f"UPDATE {FTS_TABLE} SET context = ? WHERE rowid = ?", [(c, rowid) for rowid, _, c in rows])

    def _embedding_param(self, vector: np.ndarray) -> Any:
        return vector.tobytes()


def _catch_up_at_open(catch_up: Callable[[float], None], name: str) -> bool:
    """Catch an index up as its store opens, waiting at most ``OPEN_WAIT_S`` for another process's writer (its
    rebuild may hold the folder for minutes); whether it is caught up. An index is a cache: one that another writer
    holds, or whose folder cannot be written (deleted as it was written, a file in its place), does not stop or hold
    up the open; searches use its last commit or the database until a later catch-up or rebuild succeeds."""
    try:
        catch_up(OPEN_WAIT_S)
        return True
    except IndexNotReady:  # a large rebuild runs in the background meanwhile
        return True
    except TimeoutError:  # IndexLockTimeout (not imported here: the index package loads tantivy and usearch)
        log.info(
            "%s index: another process holds its writer lock; searches read it as last saved, and the rows "
            "written since, until it is caught up",
            name,
        )
    except (OSError, ValueError, RuntimeError) as exc:  # tantivy raises ValueError, usearch RuntimeError
        log.warning("%s index not ready as the store opened (%s); searches run through the database", name, exc)
    return False


def read_store_info(path: str | Path) -> dict[str, str] | None:
    """A store's configuration (embedding model, dimensions, ...) without opening it for writing; None if the file
    holds no Audrey store."""
    if not Path(path).is_file():
        return None
    module = sqlite_module()
    connection = module.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    try:
        return dict(connection.execute("SELECT key, value FROM audrey_config").fetchall())
    except module.Error:
        return None
    finally:
        connection.close()


__all__ = ["SQLiteStorage", "read_store_info"]
