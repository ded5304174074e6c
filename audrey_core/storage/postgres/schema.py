"""PostgreSQL schema and migrations: versioned, recorded in ``schema_migrations``, each in one transaction.

The memory tables are SQLite's (same names, columns and meaning; see :mod:`..sql.migrations`), with types mapped:
REAL -> DOUBLE PRECISION (SQLite's REAL is 8 bytes), TEXT -> TEXT COLLATE "C" (scopes and timestamps compare
byte by byte, whatever the database's locale). What differs lives here: the full-text table (a ``tsvector`` with a GIN
index), vector tables (pgvector ``vector(d)`` with an HNSW index for cosine distance), and sequences for row ids
(many writers at once). A transaction-scoped advisory lock serialises migrations of processes opening together.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...index_settings import HNSW_EF_CONSTRUCTION
from ..sql.migrations import (
    EVIDENCE_TABLE,
    FTS_TABLE,
    Migration,
    chunk_index_statements,
    claim_statements,
    dispute_side_statements,
    evidence_statements,
    expiry_statements,
    initial_statements,
    reading_statements,
    run_log_statements,
    run_migrations,
    text_and_time_statements,
    turn_statements,
    validation_queue_statements,
    validity_statements,
)

MIGRATION_LOCK = 0x41554452  # "AUDR": one key for every Audrey schema change
TEXT_SEARCH_CONFIG = "english"  # stemming like SQLite's porter tokenizer


def to_postgres(sql: str) -> str:
    """One of the shared DDL statements in PostgreSQL's types."""
    sql = re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)
    sql = re.sub(r"\bTEXT\b", 'TEXT COLLATE "C"', sql)
    sql = re.sub(r"\browid INTEGER PRIMARY KEY\b", "rowid BIGINT PRIMARY KEY", sql)
    return sql.replace("WITHOUT ROWID", "")


def _initial(connection: Any, dimensions: int = 0) -> None:
    connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
    for statement in initial_statements() + text_and_time_statements():
        connection.execute(to_postgres(statement))
    connection.execute(f"CREATE TABLE {FTS_TABLE} (rowid BIGINT PRIMARY KEY, document tsvector NOT NULL)")
    connection.execute(f"CREATE INDEX {FTS_TABLE}_document ON {FTS_TABLE} USING gin (document)")
    for table in ("memory_text_rows", "memory_vector_rows"):
        connection.execute(f"CREATE SEQUENCE {table}_ids")
    for table in ("episodes", "semantics", "procedures"):  # scope-prefix ranges and exact scopes
        connection.execute(f"CREATE INDEX {table}_by_scope_range ON {table}(scope, agent)")
    connection.execute("CREATE INDEX memory_vector_rows_by_memory ON memory_vector_rows(memory_id)")
    connection.execute("CREATE INDEX memory_text_rows_by_memory ON memory_text_rows(memory_id)")


def _validity(connection: Any, dimensions: int = 0) -> None:
    for statement in validity_statements():
        connection.execute(to_postgres(statement))


def _validation_queue(connection: Any, dimensions: int = 0) -> None:
    for statement in validation_queue_statements():
        connection.execute(to_postgres(statement))


def _turns(connection: Any, dimensions: int = 0) -> None:
    # A document is the text's own words at weight A and its turn's neighbours' words at weight D (ranked lower by
    # ts_rank's weights, see keywords.py); documents so far held their own words only, at the default weight D.
    for statement in turn_statements():
        connection.execute(to_postgres(statement))
    connection.execute(f"UPDATE {FTS_TABLE} SET document = setweight(document, 'A')")


def _expiry(connection: Any, dimensions: int = 0) -> None:
    for statement in expiry_statements():
        connection.execute(to_postgres(statement))


def _claims(connection: Any, dimensions: int = 0) -> None:
    for statement in claim_statements():
        connection.execute(to_postgres(statement))


def _dispute_sides(connection: Any, dimensions: int = 0) -> None:
    for statement in dispute_side_statements():
        connection.execute(to_postgres(statement))


def _evidence(connection: Any, dimensions: int = 0) -> None:
    for statement in evidence_statements():
        connection.execute(to_postgres(statement))
    connection.execute(
        f"""CREATE FUNCTION {EVIDENCE_TABLE}_kept() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' THEN
                DELETE FROM {EVIDENCE_TABLE} WHERE memory_id = OLD.id;
            END IF;
            IF TG_OP <> 'DELETE' THEN
                INSERT INTO {EVIDENCE_TABLE} SELECT e, NEW.id
                FROM jsonb_array_elements_text(NEW.evidence_episode_ids::jsonb) e ON CONFLICT DO NOTHING;
            END IF;
            RETURN NULL;
        END $$"""
    )
    for table in ("semantics", "procedures"):
        connection.execute(
            f"CREATE TRIGGER {table}_evidence AFTER INSERT OR DELETE OR UPDATE OF evidence_episode_ids ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {EVIDENCE_TABLE}_kept()"
        )
        connection.execute(
            f"INSERT INTO {EVIDENCE_TABLE} SELECT e, m.id FROM {table} m, "
            "jsonb_array_elements_text(m.evidence_episode_ids::jsonb) e ON CONFLICT DO NOTHING"
        )


def _run_log(connection: Any, dimensions: int = 0) -> None:
    for statement in run_log_statements():
        connection.execute(to_postgres(statement))


def _chunk_index(connection: Any, dimensions: int = 0) -> None:
    for statement in chunk_index_statements():
        connection.execute(to_postgres(statement))


def _readings(connection: Any, dimensions: int = 0) -> None:
    for statement in reading_statements():
        connection.execute(to_postgres(statement))


VECTOR_TABLES = (
    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND left(tablename, 14) = 'memory_vectors'"
)
"""The store's vector tables: the active one and any a re-embed left beside it (``memory_vectors``, ``..._2``)."""


def _graph_width(connection: Any, dimensions: int = 0) -> None:
    # Vectors that join an existing graph from now on link as widely as a new store's; the links already made stay
    # until `REINDEX INDEX CONCURRENTLY <table>_hnsw` builds the graph again (docs/postgres.md).
    indexes = connection.execute(
        f"SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ({VECTOR_TABLES}) "
        "AND position('USING hnsw' in indexdef) > 0"
    ).fetchall()
    for (index,) in indexes:
        connection.execute(f'ALTER INDEX "{index}" SET (ef_construction = {HNSW_EF_CONSTRUCTION})')


MIGRATIONS = (
    Migration(1, "memory tables, full text, sequences (SQLite schema 3 in PostgreSQL types)", _initial),
    Migration(2, "validity intervals and supersession for every memory type (SQLite schema 4)", _validity),
    Migration(3, "episodes waiting for validation, resumed by the next open (SQLite schema 7)", _validation_queue),
    Migration(4, "conversation turns: session, speaker, place; neighbours' words (SQLite schema 8)", _turns),
    Migration(5, "expiry: a time to live the caller gives a memory (SQLite schema 9)", _expiry),
    Migration(6, "typed claims: what an episode states (SQLite schema 10)", _claims),
    Migration(7, "contradictions by their newer side (SQLite schema 11)", _dispute_sides),
    Migration(8, "principles and procedures by the episodes they rest on (SQLite schema 12)", _evidence),
    Migration(9, "a consolidation run's undo log and results, one row per entry (SQLite schema 13)", _run_log),
    Migration(10, "the vector rows of texts stored in chunks, indexed apart (SQLite schema 14)", _chunk_index),
    Migration(11, "HNSW graphs built as widely as SQLite's (ef_construction 128 for the vectors added)", _graph_width),
    Migration(12, "each statement's reading by the parser, derived (SQLite schema 15)", _readings),
)
LATEST_VERSION = MIGRATIONS[-1].version


PGVECTOR_HNSW_DEFAULTS = {"m": 16, "ef_construction": 64}


def hnsw_widths(options: list[str] | None) -> dict[str, int]:
    """An HNSW index's ``m`` and ``ef_construction`` from its storage options (``pg_class.reloptions``, such as
    ``["ef_construction=128"]``), pgvector's defaults where unset."""
    widths = dict(PGVECTOR_HNSW_DEFAULTS)
    for option in options or ():
        name, _, value = option.partition("=")
        if name in widths:
            widths[name] = int(value)
    return widths


def vector_table_statements(table: str, dimensions: int) -> list[str]:
    """A vector table: one row per vector (chunk), the columns recall filters on, an HNSW index for cosine
    distance and btrees on (agent, scope) and (agent, memory type, scope), so a small scope, or the few principles
    validation compares an episode with, are searched exactly through their own rows."""
    return [
        f'CREATE TABLE IF NOT EXISTS {table} (rowid BIGINT PRIMARY KEY, agent TEXT COLLATE "C" NOT NULL, '
        'scope TEXT COLLATE "C" NOT NULL, memory_type TEXT COLLATE "C" NOT NULL, state TEXT COLLATE "C" NOT NULL, '
        'source TEXT COLLATE "C" NOT NULL, consolidated INTEGER NOT NULL, memory_id TEXT COLLATE "C" NOT NULL, '
        f"embedding vector({int(dimensions)}) NOT NULL)",
        f"CREATE INDEX IF NOT EXISTS {table}_hnsw ON {table} USING hnsw (embedding vector_cosine_ops) "
        f"WITH (ef_construction = {HNSW_EF_CONSTRUCTION})",
        f"CREATE INDEX IF NOT EXISTS {table}_by_scope ON {table} (agent, scope)",
        f"CREATE INDEX IF NOT EXISTS {table}_by_type ON {table} (agent, memory_type, scope)",
    ]


def applied_version(connection: Any) -> int:
    exists = connection.execute("SELECT to_regclass('schema_migrations')").fetchone()[0]
    if exists is None:
        return 0
    return int(connection.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()[0])


class _PostgresMigrations:
    placeholder = "%s"
    migrations_table = (
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        '(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT COLLATE "C" NOT NULL)'
    )

    @staticmethod
    @contextmanager
    def migration_transaction(connection: Any) -> Iterator[None]:
        with connection.transaction():
            # two processes opening a new database never both create it
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            yield

    applied_version = staticmethod(applied_version)


def migrate(connection: Any) -> list[int]:
    """Apply pending migrations (``connection`` autocommits; each migration is its own transaction, under the
    advisory lock) through the one runner every dialect shares."""
    return run_migrations(connection, MIGRATIONS, _PostgresMigrations(), 0)


__all__ = ["LATEST_VERSION", "MIGRATIONS", "TEXT_SEARCH_CONFIG", "migrate", "to_postgres", "vector_table_statements"]
