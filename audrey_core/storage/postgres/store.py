"""The PostgreSQL + pgvector backend: one memory shared by many processes and machines.

``Audrey(path="postgresql://user:pass@host/db")`` opens it. Same tables, columns and behaviour as the SQLite store
(the SQL they share lives in ``storage/sql/``); what differs:

* vectors live in a table with a pgvector ``vector(d)`` column, an HNSW index for cosine distance and btrees on
  (agent, scope) and (agent, memory type, scope): the planner searches a small scope (or the few principles) exactly
  through their own rows and a large one through HNSW, with pgvector's iterative scan so filters never starve the
  top k;
* keyword search is PostgreSQL full text (``tsvector`` with a GIN index, English stemming, ``ts_rank``), ranking
  candidates from the rarest terms first (``postgres/keywords.py``);
* row ids come from sequences, and every write is a transaction on a pooled connection, so many writers work at
  once; consolidation takes an advisory lock per agent (a run covers the agent's scopes) for its whole run.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from ...errors import ClosedError, InvalidInputError, StorageError
from ...index_settings import NEIGHBOUR_EF_SEARCH, IndexConfig
from ...models import Memory
from ...rules.filters import Filter
from ...rules.keywords import TermCounts
from ...rules.ownership import Tenant
from ..base import Storage, TurnRelevance, VectorFilter, VectorHit
from ..maintenance import Maintenance
from ..sql.embedding_check import check_embedding
from ..sql.maintenance import SQLMaintenance
from ..sql.migrations import FTS_TABLE, STORE_TABLES, VECTOR_TABLE
from ..sql.overview import SQLOverview
from ..sql.reads import SQLReads
from ..sql.records import SQLRecords
from ..sql.rows import COLUMNS, TABLES, row_to_memory
from ..sql.turns import WINDOW
from ..sql.validation_queue import SQLValidationQueue
from ..sql.writes import SQLWrites
from .connection import DEFAULT_EF_SEARCH, Session, driver_error, open_pool, redact, require_psycopg
from .filters import compile_jsonb_filter
from .keywords import PostgresKeywords
from .schema import (
    LATEST_VERSION,
    MIGRATION_LOCK,
    TEXT_SEARCH_CONFIG,
    VECTOR_TABLES,
    hnsw_widths,
    migrate,
    vector_table_statements,
)

# A text row's document from (its own words, its neighbours' words): its own at weight A, the neighbours' at D (see
# keywords.py for the weights ts_rank gives them).
DOCUMENT = (
    f"setweight(to_tsvector('{TEXT_SEARCH_CONFIG}', ?), 'A') || setweight(to_tsvector('{TEXT_SEARCH_CONFIG}', ?), 'D')"
)
FEW_ROWS = 1_000  # a filter matching this many vector rows at most is scored exactly (~0.1 ms a query)
# After this many new rows (and a fifth of what the tables held), a writer refreshes the planner's statistics itself:
# autovacuum looks once a minute, and a bulk load outruns it. With stale statistics the planner scores every row of a
# 10k store exactly for each neighbour search (7 ms a query) instead of walking the HNSW graph (1 ms).
ANALYZE_AFTER_ROWS = 5_000
ANALYZE_GROWTH = 0.2


@contextmanager
def walk_width(db: Any, ef_search: int) -> Iterator[None]:
    """HNSW's candidate list set to ``ef_search`` on this connection for the statements inside, then put back to
    :data:`DEFAULT_EF_SEARCH` (the pool's connections are shared); nothing is sent when they are equal."""
    if ef_search == DEFAULT_EF_SEARCH:
        yield
        return
    db.execute("SELECT set_config('hnsw.ef_search', ?, false)", [str(ef_search)])
    try:
        yield
    finally:
        db.execute("SELECT set_config('hnsw.ef_search', ?, false)", [str(DEFAULT_EF_SEARCH)])


class PostgresStorage(
    PostgresKeywords,
    SQLMaintenance,
    SQLReads,
    SQLOverview,
    SQLWrites,
    SQLRecords,
    SQLValidationQueue,
    Storage,
    Maintenance,
):
    """Audrey's server store. Thread-safe and multi-process: each transaction runs on its own pooled connection."""

    schema_version = LATEST_VERSION

    def __init__(
        self,
        url: str,
        *,
        model_name: str,
        dimensions: int,
        pool_size: int = 4,
        index: IndexConfig | None = None,
        replica_url: str | None = None,
    ) -> None:
        psycopg = require_psycopg()
        self.url = url
        self.index_config = index or IndexConfig()
        self.path = redact(url)
        self.vector_error: str | None = None
        self._error: type[BaseException] = psycopg.Error
        self._local = threading.local()  # .session: the thread's open transaction (nested use joins it)
        self._closed = False
        self._term_counts = TermCounts()  # steers which keyword terms lead (postgres/keywords.py)
        try:
            with psycopg.connect(url, autocommit=True) as connection:
                migrate(connection)
                self.vector_table, self.model_name, self.dimensions = self._settle_embedding(
                    connection, model_name, int(dimensions)
                )
        except psycopg.Error as exc:
            raise StorageError(f"PostgreSQL error opening {self.path}: {driver_error(exc, url)}") from exc
        self._pool = open_pool(url, max_size=pool_size)
        self._replica_url = replica_url
        try:
            self._replica = open_pool(replica_url, max_size=pool_size) if replica_url else None
        except StorageError:
            self._pool.close()
            raise
        self._analysis = threading.Lock()
        self._rows_analysed, self._rows_since_analysis = self._table_rows(), 0

    def _settle_embedding(self, connection: Any, model_name: str, dimensions: int) -> tuple[str, str, int]:
        """Check the stored embedding model; on first open, record it and create the vector table."""
        with connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            config = dict(connection.execute("SELECT key, value FROM audrey_config").fetchall())
            new_config = check_embedding(self.path, config, model_name, dimensions)
            if new_config is not None:
                config = new_config
                for key, value in config.items():
                    connection.execute("INSERT INTO audrey_config (key, value) VALUES (%s, %s)", (key, value))
                for statement in vector_table_statements(VECTOR_TABLE, dimensions):  # in the same transaction
                    connection.execute(statement)
        return config["vector_table"], model_name, dimensions

    # -- plumbing ---------------------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise ClosedError("this Audrey store is closed; open a new Audrey instance")

    def held_by_this_thread(self) -> bool:
        return getattr(self._local, "session", None) is not None

    def _open_session(self) -> Any:
        """The thread's open transaction, if any (checking the store is open)."""
        self._check_open()
        return getattr(self._local, "session", None)

    @contextmanager
    def _driver_errors(self, url: str | None = None) -> Iterator[None]:
        url = url or self.url
        try:
            yield
        except (UnicodeEncodeError, OverflowError) as exc:  # a value the input checks let through
            raise InvalidInputError(f"a value cannot be stored or compared in PostgreSQL: {exc}") from exc
        except self._error as exc:
            raise StorageError(f"PostgreSQL error on {redact(url)}: {driver_error(exc, url)}") from exc

    @contextmanager
    def _read(self) -> Iterator[Any]:
        """The thread's transaction when it has one, else a pooled connection (autocommit) for this read: the
        replica's inside :meth:`replica_reads`."""
        session = self._open_session()
        if session is not None:
            yield session
            return
        replica = self._replica_here()
        if replica is not None:
            with replica.connection() as connection, self._driver_errors(self._replica_url):
                yield Session(connection)
            return
        with self._pool.connection() as connection, self._driver_errors():
            yield Session(connection)

    @contextmanager
    def replica_reads(self) -> Iterator[None]:
        if self._replica is None:
            yield
            return
        before = getattr(self._local, "replica", False)
        self._local.replica = True
        try:
            yield
        finally:
            self._local.replica = before

    def _replica_here(self) -> Any:
        """The replica's pool when this thread's reads outside a transaction go there (inside
        :meth:`replica_reads`), else None."""
        return self._replica if getattr(self._local, "replica", False) else None

    def _alongside(self, search: Callable[..., Any]) -> Callable[..., Any]:
        if self._replica_here() is None:
            return search

        def on_the_replica(*args: Any) -> Any:
            with self.replica_reads():
                return search(*args)

        return on_the_replica

    _side_read = _read  # every read outside a transaction has its own connection already

    @contextmanager
    def _write(self) -> Iterator[Any]:
        """One transaction on a pooled connection; nested use on the same thread joins it."""
        session = self._open_session()
        if session is not None:
            yield session
            return
        with self._pool.connection() as connection, self._driver_errors():
            self._local.session = session = Session(connection)
            try:
                with connection.transaction():
                    yield session
            finally:
                self._local.session = None
        self._analyse_if_due()  # rows a caller's transaction inserted count once it committed

    def transaction(self) -> Any:
        return self._write()

    @contextmanager
    def consolidation_lock(self, agent: str) -> Iterator[None]:
        """A session advisory lock on the agent, held on a connection of its own for the whole run: a second
        worker waits, then finds the episodes consolidated. A worker that dies releases it with its connection."""
        self._check_open()
        key = "audrey-consolidation\x1f" + agent
        with self._pool.connection() as connection:
            connection.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (key,))
            try:
                yield
            finally:
                connection.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (key,))

    def lock_memory(self, memory_id: str) -> Memory | None:
        with self._write() as db:  # joins the caller's transaction; the row lock lasts until it ends
            for memory_type, table in TABLES.items():
                row = db.execute(
                    f"SELECT {', '.join(COLUMNS[memory_type])} FROM {table} WHERE id = ? FOR UPDATE", [memory_id]
                ).fetchone()
                if row is not None:
                    return row_to_memory(memory_type, row)
        return None

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.close()
            if self._replica is not None:
                self._replica.close()

    def insert_memories(
        self,
        memories: Sequence[Memory],
        vectors: np.ndarray | None,
        replace: bool = False,
        chunks: Sequence[Sequence[tuple[int, int]]] | None = None,
        owner: Tenant | None = None,
        queued_by: str | None = None,
    ) -> None:
        super().insert_memories(memories, vectors, replace, chunks, owner, queued_by)
        self._analyse_after(len(memories))

    def _analyse_after(self, added: int) -> None:
        """Refresh the planner's statistics of the memory tables once they grew by :data:`ANALYZE_AFTER_ROWS` and
        :data:`ANALYZE_GROWTH` since this process last did (not inside a caller's transaction: then when it ends).
        ANALYZE samples (about 30k rows a table, whatever its size) and blocks no reader or writer."""
        with self._analysis:
            self._rows_since_analysis += added
        self._analyse_if_due()

    def _analyse_if_due(self) -> None:
        with self._analysis:
            due = max(ANALYZE_AFTER_ROWS, ANALYZE_GROWTH * self._rows_analysed)
            if self._rows_since_analysis < due or self.held_by_this_thread():
                return
            self._rows_since_analysis = 0
        with self._pool.connection() as connection, self._driver_errors():
            connection.execute(f"ANALYZE {', '.join([*TABLES.values(), self.vector_table, FTS_TABLE])}")
        rows = self._table_rows()
        with self._analysis:
            self._rows_analysed = rows

    def _table_rows(self) -> int:
        """The memories the planner believes the store holds (its statistics; 0 before any were gathered)."""
        with self._pool.connection() as connection, self._driver_errors():
            found = connection.execute(
                "SELECT sum(greatest(reltuples, 0)) FROM pg_class WHERE oid = ANY(%s::regclass[])",
                [list(TABLES.values())],
            ).fetchone()
        return int(found[0] or 0)

    # -- status -----------------------------------------------------------------------------------------------------

    def search_indexes(self) -> list[dict[str, Any]]:
        """The server's indexes of this store: the vector (HNSW) and keyword (GIN) indexes one by one, the lookup
        btrees together; each with its size, whether it is valid (a failed concurrent build leaves one that is not),
        the rows the planner counts in its table (None before its first ANALYZE or VACUUM), when that table's
        statistics were last gathered and, for the HNSW graph, the widths it links with (pgvector's defaults unless
        set: ``m`` 16, ``ef_construction`` 64; migration 11 sets 128 for the vectors added after it)."""
        with self._read() as db:
            version = db.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            rows = db.execute(
                "SELECT c.relname, am.amname, i.indisvalid AND i.indisready, pg_relation_size(c.oid), "
                "t.reltuples::bigint, greatest(s.last_analyze, s.last_autoanalyze), c.reloptions "
                "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid "
                "JOIN pg_am am ON am.oid = c.relam LEFT JOIN pg_stat_all_tables s ON s.relid = t.oid "
                "WHERE t.oid IN (SELECT to_regclass(name) FROM unnest(?::text[]) AS name) ORDER BY c.relname",
                [[*STORE_TABLES, self.vector_table]],
            ).fetchall()
        found: list[dict[str, Any]] = []
        lookup_bytes, invalid = [], []
        for name, method, valid, size, table_rows, analysed, options in rows:
            if method in ("hnsw", "gin"):
                engine = f"pgvector {version[0] if version else '?'} hnsw" if method == "hnsw" else "postgres gin"
                found.append(
                    {
                        "kind": "vector" if method == "hnsw" else "keyword",
                        "engine": engine,
                        "index": name,
                        "rows": int(table_rows) if table_rows >= 0 else None,  # -1: never counted
                        "bytes": int(size),
                        "valid": bool(valid),
                        "analysed": analysed.isoformat() if analysed else None,
                        **({"graph": hnsw_widths(options)} if method == "hnsw" else {}),
                    }
                )
                continue
            lookup_bytes.append(int(size))
            if not valid:
                invalid.append(name)
        if lookup_bytes:
            found.append(
                {
                    "kind": "lookup",
                    "engine": "postgres btree",
                    "indexes": len(lookup_bytes),
                    "bytes": sum(lookup_bytes),
                    "invalid": invalid,
                }
            )
        return found

    # -- backend hooks for the shared SQL ------------------------------------------------------------------------

    def _next_rowids(self, db: Any, table: str, count: int) -> list[int]:
        if count <= 0:
            return []
        rows = db.execute(f"SELECT nextval('{table}_ids') FROM generate_series(1, ?)", [count]).fetchall()
        return [int(r[0]) for r in rows]

    def _index_text(self, db: Any, rows: Sequence[tuple[int, Memory, str]]) -> None:
        db.executemany(
            f"INSERT INTO {FTS_TABLE} (rowid, document) VALUES (?, {DOCUMENT})",
            [(rowid, m.content, context) for rowid, m, context in rows],
        )

    def _index_context(self, db: Any, rows: Sequence[tuple[int, str, str]]) -> None:
        db.executemany(
            f"UPDATE {FTS_TABLE} SET document = {DOCUMENT} WHERE rowid = ?",
            [(content, context, rowid) for rowid, content, context in rows],
        )

    def _one_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        # One array parameter: the same text for any count, so psycopg prepares it after a few uses (an IN list of
        # 40 to 100 ids was planned anew each time: 20% slower per read, measured at 10k).
        return f"{column} = ANY(?)", [list(values)]

    def _embedding_param(self, vector: np.ndarray) -> Any:
        return vector  # pgvector's psycopg adapter sends numpy arrays as vector(d)

    def _metadata_sql(self, flt: Filter, column: str) -> tuple[str, list[Any]]:
        return compile_jsonb_filter(flt, column)

    def _fetch_vectors(self, db: Any, sql: str, params: Sequence[Any]) -> list[Any]:
        return list(db.fetch_binary(sql, params))

    def _to_array(self, stored: Any) -> np.ndarray:
        values = stored.to_numpy() if hasattr(stored, "to_numpy") else stored  # pgvector's Vector, or an array
        return np.asarray(values, dtype=np.float32)

    def _table_columns(self, db: Any, table: str) -> set[str]:
        rows = db.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = ?",
            [table],
        )
        return {r[0] for r in rows}

    def _vector_table_names(self, db: Any) -> list[str]:
        return [r[0] for r in db.execute(VECTOR_TABLES)]

    def _create_vector_table(self, db: Any, table: str, dimensions: int) -> None:
        for statement in vector_table_statements(table, dimensions):
            db.execute(statement)

    # -- searches -------------------------------------------------------------------------------------------------

    def knn(self, vector: np.ndarray, k: int, where: VectorFilter) -> list[VectorHit]:
        conditions = self._vector_conditions(where)
        if k <= 0 or conditions is None:
            return []
        query = np.ascontiguousarray(vector, dtype=np.float32)
        # a narrow time span: its memories, scored exactly
        span = self.span_memories(where, self.index_config.span_exact_upto)
        if span is not None:
            with self._read() as db:
                rows = db.execute(
                    "SELECT r.memory_id, r.memory_type, v.embedding <=> ? AS distance, v.rowid "
                    f"FROM memory_vector_rows r JOIN {self.vector_table} v ON v.rowid = r.rowid "
                    "WHERE r.memory_id = ANY(?)",
                    [query, list(span)],
                ).fetchall()
            return self._best_chunk_per_memory(rows, k)
        filters = " AND ".join(conditions[0])
        sql = (
            f"SELECT memory_id, memory_type, embedding <=> ? AS distance, rowid FROM {self.vector_table}"
            + (f" WHERE {filters}" if filters else "")
            + " ORDER BY embedding <=> ? LIMIT ?"
        )
        with self._read() as db, walk_width(db, min(max(k, DEFAULT_EF_SEARCH), 1000)):  # at least k
            rows = db.execute(sql, [query, *conditions[1], query, int(k)]).fetchall()
        return self._best_chunk_per_memory(rows, k)

    def knn_many(self, vectors: np.ndarray, k: int, where: VectorFilter) -> list[list[VectorHit]]:
        """:meth:`knn` for each of ``vectors`` in one statement: each query walks the HNSW index in a lateral join
        (a validation batch's neighbours in one round trip), or, when the filter matches few rows (a validation
        batch of long texts compared with principles only), scores those rows exactly. A narrow time span, or more
        neighbours than one walk finds, go one by one."""
        queries = [np.ascontiguousarray(v, dtype=np.float32) for v in np.atleast_2d(vectors)]
        conditions = self._vector_conditions(where)
        if k <= 0 or conditions is None or not queries:
            return [[] for _ in queries]
        narrow = self.span_memories(where, self.index_config.span_exact_upto) is not None
        if len(queries) == 1 or narrow or k > DEFAULT_EF_SEARCH:
            return super().knn_many(np.asarray(queries), k, where)
        filtered = self.vector_table + (f" WHERE {' AND '.join(conditions[0])}" if conditions[0] else "")
        rows_sql = f"SELECT memory_id, memory_type, embedding, rowid FROM {filtered}"
        lateral = (
            "SELECT q.n, m.memory_id, m.memory_type, m.distance, m.rowid "
            "FROM unnest(?::vector[]) WITH ORDINALITY AS q(v, n) CROSS JOIN LATERAL ("
            "SELECT memory_id, memory_type, embedding <=> q.v AS distance, rowid FROM {rows} "
            "ORDER BY embedding <=> q.v LIMIT ?) m"
        )
        with self._read() as db:
            if self._few_rows(db, rows_sql, conditions[1]):  # the rows once, scored exactly for every query
                sql = f"WITH few AS MATERIALIZED ({rows_sql}) " + lateral.format(rows="few")
                rows = db.execute_vectors(sql, [*conditions[1], queries, int(k)]).fetchall()
            else:
                with walk_width(db, max(k, NEIGHBOUR_EF_SEARCH)):
                    rows = db.execute_vectors(
                        lateral.format(rows=filtered), [queries, *conditions[1], int(k)]
                    ).fetchall()
        found: list[list[Any]] = [[] for _ in queries]
        for n, *row in rows:
            found[int(n) - 1].append(row)
        return [self._best_chunk_per_memory(each, k) for each in found]

    def turn_relevance(
        self,
        ids: Sequence[str],
        query: np.ndarray | None,
        unknown: Collection[str],
        before: int,
        after: int,
        self_weight: float,
    ) -> TurnRelevance:
        """:meth:`Storage.turn_relevance` in one statement, scored by the server: the turns' windows, their unit
        vectors summed (pgvector's ``l2_normalize`` and ``sum``), and for each candidate its cosine and its context's,
        with |w u + s|^2 = w^2 u.u + 2 w u.s + s.s. Only three numbers a candidate cross the wire, not the ~240
        vectors of a recall's turns and their neighbours, which the client decoded and blended (a third of a hybrid
        recall's client time on a store of turns)."""
        if query is None or not ids:
            return super().turn_relevance(ids, query, unknown, before, after, self_weight)
        length = float(np.linalg.norm(query)) or 1.0
        unit = np.ascontiguousarray(query / length, dtype=np.float32)
        sql = (
            "WITH asked AS (SELECT unnest(?::text[]) AS id), q AS (SELECT ?::vector AS v), "
            "turn AS (SELECT e.id, e.speaker, e.agent, e.session, e.scope, e.turn FROM episodes e "
            "WHERE e.id = ANY(?) AND (e.session IS NOT NULL OR e.speaker IS NOT NULL)), "
            "own AS (SELECT r.memory_id AS id, l2_normalize(v.embedding) AS u FROM memory_vector_rows r "
            f"JOIN {self.vector_table} v ON v.rowid = r.rowid WHERE r.chunk_index = 0 AND r.memory_id = ANY(?)), "
            "around AS (SELECT t.id, sum(l2_normalize(v.embedding)) AS s FROM turn t JOIN episodes n "
            f"ON {WINDOW.format(c='t', n='n')} "
            "LEFT JOIN memory_vector_rows r ON r.memory_id = n.id AND r.chunk_index = 0 "
            f"LEFT JOIN {self.vector_table} v ON v.rowid = r.rowid GROUP BY t.id) "
            "SELECT a.id, t.id IS NOT NULL, t.speaker, -(o.u <#> q.v), CASE WHEN w.id IS NOT NULL THEN "
            "-(o.u <#> q.v) * ? + COALESCE(-(w.s <#> q.v), 0) END, "
            "-(o.u <#> o.u) * ? * ? + 2 * ? * COALESCE(-(o.u <#> w.s), 0) + COALESCE(-(w.s <#> w.s), 0) "
            "FROM asked a CROSS JOIN q LEFT JOIN turn t ON t.id = a.id LEFT JOIN own o ON o.id = a.id "
            "LEFT JOIN around w ON w.id = a.id"
        )
        weight = float(self_weight)
        asked = list(dict.fromkeys(ids))
        params = [asked, unit, asked, asked, int(before), int(after), weight, weight, weight, weight]
        speakers: dict[str, str | None] = {}
        cosines: dict[str, float] = {}
        in_context: dict[str, float] = {}
        with self._read() as db:
            rows = db.execute(sql, params).fetchall()
        for memory_id, is_turn, speaker, cosine, blended, squared in rows:
            if is_turn:
                speakers[memory_id] = speaker
            if cosine is None:  # no vector: neither its cosine nor its context's
                continue
            if memory_id in unknown:
                cosines[memory_id] = float(cosine)
            if blended is not None:
                in_context[memory_id] = float(blended) / math.sqrt(squared) if squared > 0 else 0.0
        return TurnRelevance(speakers, cosines, in_context)

    def _few_rows(self, db: Any, rows_sql: str, params: Sequence[Any]) -> bool:
        """Whether ``rows_sql`` (a filter on the vector table) matches at most :data:`FEW_ROWS` rows, counted up to
        one more through the table's btrees. Why: with statistics a bulk load has made stale, the planner walks the
        HNSW graph for a filter that matches few rows or none (principles, early on), and an iterative scan then
        visits up to ``hnsw.max_scan_tuples`` for each query: 38 ms a query during a 10k load."""
        found = db.execute(f"SELECT count(*) FROM ({rows_sql} LIMIT ?) c", [*params, FEW_ROWS + 1]).fetchone()
        return int(found[0]) <= FEW_ROWS

    def _json_elements(self, column: str) -> str:
        return f"LATERAL jsonb_array_elements_text({column}::jsonb) AS j(value)"


__all__ = ["PostgresStorage"]
