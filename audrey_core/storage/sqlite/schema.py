"""The SQLite dialect's schema: its migrations (vec0 vectors, FTS5 full text, the change logs derived indexes follow)
applied by the one runner of :mod:`..sql.migrations`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...index_settings import KEYWORD_CONTEXT_WEIGHT
from ..sql.migrations import (
    EVIDENCE_TABLE,
    FTS_RANK,
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
    search_log_statements,
    text_and_time_statements,
    turn_statements,
    validation_queue_statements,
    validity_statements,
    vector_log_statements,
)


def _initial_schema(connection: Any, dimensions: int) -> None:
    # Memory tables follow seed 002; vectors live in one vec0 table (see sqlite/store.py for why).
    for statement in initial_statements():
        connection.execute(statement)


def _scoped_full_text(connection: Any, dimensions: int) -> None:
    # The full-text index gains a column of scope words (see sql/filters.scope_tokens): a scoped keyword search
    # intersects with its scope's short list, so a large tenant's matches cost a small tenant nothing. FTS5 tables
    # cannot gain columns, so the index is rebuilt.
    from ..sql.filters import decode_scope, scope_tokens

    connection.execute(f"DROP TABLE {FTS_TABLE}")
    connection.execute(
        f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(content, scopes, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    connection.execute(f"INSERT INTO {FTS_TABLE} ({FTS_TABLE}, rank) VALUES ('rank', '{FTS_RANK}')")
    rows = connection.execute(
        "SELECT t.rowid, m.content, m.scope FROM memory_text_rows t JOIN ("
        "SELECT id, content, scope FROM episodes UNION ALL SELECT id, content, scope FROM semantics "
        "UNION ALL SELECT id, content, scope FROM procedures) m ON m.id = t.memory_id"
    ).fetchall()
    connection.executemany(
        f"INSERT INTO {FTS_TABLE} (rowid, content, scopes) VALUES (?, ?, ?)",
        [(rowid, content, scope_tokens(decode_scope(scope))) for rowid, content, scope in rows],
    )


def _full_text(connection: Any, dimensions: int) -> None:
    # Keyword search over every memory's whole text.
    statements = text_and_time_statements()
    connection.execute(statements[0])
    connection.execute(
        f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(content, tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    for table in ("episodes", "semantics", "procedures"):
        connection.execute(f"INSERT INTO memory_text_rows (memory_id) SELECT id FROM {table} ORDER BY id")
    for statement in statements[1:]:
        connection.execute(statement)
    connection.execute(
        f"INSERT INTO {FTS_TABLE} (rowid, content) SELECT t.rowid, m.content FROM memory_text_rows t JOIN ("
        "SELECT id, content FROM episodes UNION ALL SELECT id, content FROM semantics "
        "UNION ALL SELECT id, content FROM procedures) m ON m.id = t.memory_id"
    )


VECTOR_CHUNK_SIZE = 64


def vector_table_sql(table: str, dimensions: int) -> str:
    """The vec0 table holding every vector: agent, scope and memory type partition it, so a scoped recall scans only
    its own scope's vectors and validation's search among principles never scans episodes; state, source and
    consolidated flag are metadata filtered inside the KNN scan. Created when sqlite-vec is available (see
    SQLiteStorage)."""
    return (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING vec0(agent TEXT PARTITION KEY, scope TEXT PARTITION KEY, "
        f"memory_type TEXT PARTITION KEY, embedding float[{int(dimensions)}] distance_metric=cosine, state TEXT, "
        f"source TEXT, consolidated INTEGER, +memory_id TEXT, chunk_size={VECTOR_CHUNK_SIZE})"
    )


def has_scope_partitions(create_sql: str) -> bool:
    """Whether a vector table has today's partitions (agent, scope, memory type); older ones are rebuilt."""
    return "scope TEXT PARTITION KEY" in create_sql and "memory_type TEXT PARTITION KEY" in create_sql


def _validity(connection: Any, dimensions: int) -> None:
    for statement in validity_statements():
        connection.execute(statement)
    # Corrections made before this version get the interval they implied: the old episode held until the new one.
    connection.execute(
        "UPDATE episodes SET valid_until = (SELECT COALESCE(n.event_time, n.created_at) FROM episodes n "
        "WHERE n.id = episodes.superseded_by) WHERE superseded_by IS NOT NULL"
    )


def _search_log(connection: Any, dimensions: int) -> None:
    for statement in search_log_statements():
        connection.execute(statement)


def _vector_log(connection: Any, dimensions: int) -> None:
    for statement in vector_log_statements():
        connection.execute(statement)


def _validation_queue(connection: Any, dimensions: int) -> None:
    for statement in validation_queue_statements():
        connection.execute(statement)


FTS_CONTEXT_RANK = f"bm25(1.0, 0.0, {KEYWORD_CONTEXT_WEIGHT})"  # a turn's neighbours' words count, less than its own


def _turns(connection: Any, dimensions: int) -> None:
    # Turns of a conversation: session, speaker, place, and the neighbours' words in the full text. FTS5 tables cannot
    # gain columns, so the index is rebuilt with a context column (empty until a turn's neighbours fill it); a change
    # of context is logged like an added row, for the keyword index to read the row again.
    from ..sql.filters import decode_scope, scope_tokens

    for statement in turn_statements():
        connection.execute(statement)
    connection.execute(
        "CREATE TRIGGER memory_text_context AFTER UPDATE OF context ON memory_text_rows BEGIN "
        "INSERT INTO search_changes (text_rowid) VALUES (new.rowid); END"
    )
    connection.execute(f"DROP TABLE {FTS_TABLE}")
    connection.execute(
        f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(content, scopes, context, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    connection.execute(f"INSERT INTO {FTS_TABLE} ({FTS_TABLE}, rank) VALUES ('rank', '{FTS_CONTEXT_RANK}')")
    rows = connection.execute(
        "SELECT t.rowid, m.content, m.scope FROM memory_text_rows t JOIN ("
        "SELECT id, content, scope FROM episodes UNION ALL SELECT id, content, scope FROM semantics "
        "UNION ALL SELECT id, content, scope FROM procedures) m ON m.id = t.memory_id"
    )
    connection.executemany(
        f"INSERT INTO {FTS_TABLE} (rowid, content, scopes, context) VALUES (?, ?, ?, '')",
        ((rowid, content, scope_tokens(decode_scope(scope))) for rowid, content, scope in rows),
    )


def _expiry(connection: Any, dimensions: int) -> None:
    for statement in expiry_statements():
        connection.execute(statement)


def _claims(connection: Any, dimensions: int) -> None:
    for statement in claim_statements():
        connection.execute(statement)


def _dispute_sides(connection: Any, dimensions: int) -> None:
    for statement in dispute_side_statements():
        connection.execute(statement)


def _evidence(connection: Any, dimensions: int) -> None:
    for statement in evidence_statements():
        connection.execute(statement)
    for table in ("semantics", "procedures"):
        rest_on = (
            f"INSERT OR IGNORE INTO {EVIDENCE_TABLE} SELECT value, new.id FROM json_each(new.evidence_episode_ids)"
        )
        connection.execute(f"CREATE TRIGGER {table}_evidence_added AFTER INSERT ON {table} BEGIN {rest_on}; END")
        connection.execute(
            f"CREATE TRIGGER {table}_evidence_changed AFTER UPDATE OF evidence_episode_ids ON {table} BEGIN "
            f"DELETE FROM {EVIDENCE_TABLE} WHERE memory_id = old.id; {rest_on}; END"
        )
        connection.execute(
            f"CREATE TRIGGER {table}_evidence_removed AFTER DELETE ON {table} BEGIN "
            f"DELETE FROM {EVIDENCE_TABLE} WHERE memory_id = old.id; END"
        )
        connection.execute(
            f"INSERT OR IGNORE INTO {EVIDENCE_TABLE} SELECT j.value, m.id FROM {table} m, "
            "json_each(m.evidence_episode_ids) j"
        )


def _run_log(connection: Any, dimensions: int) -> None:
    for statement in run_log_statements():
        connection.execute(statement)


def _chunk_index(connection: Any, dimensions: int) -> None:
    for statement in chunk_index_statements():
        connection.execute(statement)


def _readings(connection: Any, dimensions: int) -> None:
    for statement in reading_statements():
        connection.execute(statement)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema: seed 002 tables, vec0 vectors, tags", _initial_schema),
    Migration(2, "full-text index (FTS5) for hybrid recall; event times; chunk spans", _full_text),
    Migration(3, "scope words in the full-text index", _scoped_full_text),
    Migration(4, "validity intervals and supersession for every memory type", _validity),
    Migration(5, "a log of text-row changes for derived search indexes", _search_log),
    Migration(6, "a log of vector-row changes for the vector index", _vector_log),
    Migration(7, "episodes waiting for validation, resumed by the next open", _validation_queue),
    Migration(8, "conversation turns: session, speaker, place; the neighbours' words in the full text", _turns),
    Migration(9, "expiry: a time to live the caller gives a memory", _expiry),
    Migration(10, "typed claims: what an episode states (subject, attribute, value)", _claims),
    Migration(11, "contradictions by their newer side", _dispute_sides),
    Migration(12, "principles and procedures by the episodes they rest on", _evidence),
    Migration(13, "a consolidation run's undo log and results, one row per entry", _run_log),
    Migration(14, "the vector rows of texts stored in chunks, indexed apart", _chunk_index),
    Migration(15, "each statement's reading by the parser, derived", _readings),
)


LATEST_VERSION = MIGRATIONS[-1].version


def applied_version(connection: Any) -> int:
    """The highest migration recorded in the database (0 for a new file)."""
    exists = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return 0
    row = connection.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


class _SQLiteMigrations:
    placeholder = "?"
    migrations_table = (
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )

    @staticmethod
    @contextmanager
    def migration_transaction(connection: Any) -> Iterator[None]:
        connection.execute("BEGIN IMMEDIATE")  # the write lock: another process migrating waits, then skips
        try:
            yield
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

    applied_version = staticmethod(applied_version)


def migrate(connection: Any, dimensions: int, migrations: tuple[Migration, ...] = MIGRATIONS) -> list[int]:
    """Apply every pending migration, each in its own transaction; return the versions applied."""
    return run_migrations(connection, migrations, _SQLiteMigrations(), dimensions)
