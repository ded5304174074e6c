"""Versioned, additive, transactional schema migrations, recorded in ``schema_migrations``.

Each migration runs inside one transaction together with its row in ``schema_migrations``: a crash leaves the
database at the previous version, never half-migrated. Migrations only ever add; they are never edited once shipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import MigrationError
from ...timeutil import system_clock, to_iso

VECTOR_TABLE = "memory_vectors"


@dataclass(frozen=True)
class Migration:
    """One schema step. ``apply`` receives the connection and the store's embedding dimensions."""

    version: int
    name: str
    apply: Callable[[Any, int], None]


def _initial_schema(connection: Any, dimensions: int) -> None:
    # Memory tables follow seed 002; vectors live in one vec0 table (see sqlite.py for why).
    for statement in initial_statements():
        connection.execute(statement)


def initial_statements() -> list[str]:
    """Migration 1's tables, in SQL every backend accepts once its types are mapped (see postgres_schema)."""
    common = """
        agent TEXT NOT NULL,
        scope TEXT NOT NULL DEFAULT '',
        key TEXT,
        content TEXT NOT NULL,
        source TEXT NOT NULL,
        source_reliability REAL NOT NULL,
        salience REAL NOT NULL DEFAULT 0.5,
        tags TEXT NOT NULL DEFAULT '[]',
        state TEXT NOT NULL DEFAULT 'active',
        prior_state TEXT,
        metadata TEXT NOT NULL DEFAULT '{}',
        evidence_count INTEGER NOT NULL DEFAULT 1,
        challenge_count INTEGER NOT NULL DEFAULT 0,
        retrieval_count INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        last_reinforced_at TEXT,
        last_retrieved_at TEXT,
        embedding_model TEXT,
        embedding_version TEXT
    """
    derived = """
        evidence_episode_ids TEXT NOT NULL DEFAULT '[]',
        consolidation_run_id TEXT,
        consolidation_model TEXT,
        consolidation_prompt_hash TEXT
    """
    statements = [
        "CREATE TABLE audrey_config (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        f"""CREATE TABLE episodes (
            id TEXT PRIMARY KEY,
            {common},
            causal_trigger TEXT,
            causal_consequence TEXT,
            conditions TEXT,
            derived_from TEXT NOT NULL DEFAULT '[]',
            supersedes TEXT REFERENCES episodes(id),
            superseded_by TEXT REFERENCES episodes(id),
            consolidated INTEGER NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX episodes_by_agent ON episodes(agent, created_at)",
        "CREATE INDEX episodes_by_scope ON episodes(agent, scope, key)",
        "CREATE INDEX episodes_unconsolidated ON episodes(agent, consolidated, id)",
        "CREATE INDEX episodes_supersedes ON episodes(supersedes)",
        f"""CREATE TABLE semantics (
            id TEXT PRIMARY KEY,
            {common},
            {derived},
            conditions TEXT,
            source_type_diversity INTEGER NOT NULL DEFAULT 0,
            consolidation_checkpoint TEXT
        )""",
        "CREATE INDEX semantics_by_agent ON semantics(agent, state)",
        "CREATE INDEX semantics_by_scope ON semantics(agent, scope, key)",
        f"""CREATE TABLE procedures (
            id TEXT PRIMARY KEY,
            {common},
            {derived},
            trigger_conditions TEXT,
            success_count INTEGER NOT NULL DEFAULT 0,
            failure_count INTEGER NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX procedures_by_agent ON procedures(agent, state)",
        "CREATE INDEX procedures_by_scope ON procedures(agent, scope, key)",
        # A link says "cause leads to effect": between two memories (cause_id -> effect_id) and/or between the
        # trigger and consequence texts episodes recorded; memory_id is the principle it explains, if any.
        """CREATE TABLE causal_links (
            id TEXT PRIMARY KEY,
            agent TEXT NOT NULL,
            cause_id TEXT,
            effect_id TEXT,
            cause TEXT,
            effect TEXT,
            memory_id TEXT,
            link_type TEXT NOT NULL DEFAULT 'causal',
            mechanism TEXT,
            confidence REAL,
            evidence_count INTEGER NOT NULL DEFAULT 1,
            evidence_episode_ids TEXT NOT NULL DEFAULT '[]',
            state TEXT NOT NULL DEFAULT 'active',
            consolidation_run_id TEXT,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX causal_links_cause ON causal_links(cause_id)",
        "CREATE INDEX causal_links_effect ON causal_links(effect_id)",
        """CREATE TABLE contradictions (
            id TEXT PRIMARY KEY,
            agent TEXT NOT NULL,
            claim_a_id TEXT NOT NULL,
            claim_b_id TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'open',
            resolution TEXT,
            created_at TEXT NOT NULL,
            resolved_at TEXT,
            reopened_at TEXT,
            reopen_evidence_id TEXT,
            consolidation_run_id TEXT
        )""",
        "CREATE INDEX contradictions_claims ON contradictions(claim_a_id, claim_b_id)",
        """CREATE TABLE consolidation_runs (
            id TEXT PRIMARY KEY,
            agent TEXT NOT NULL,
            checkpoint_cursor TEXT,
            input_episode_ids TEXT NOT NULL DEFAULT '[]',
            output_memory_ids TEXT NOT NULL DEFAULT '[]',
            confidence_deltas TEXT NOT NULL DEFAULT '{}',
            consolidation_model TEXT,
            consolidation_prompt_hash TEXT,
            started_at TEXT,
            completed_at TEXT,
            status TEXT NOT NULL,
            error TEXT,
            plan TEXT NOT NULL DEFAULT '[]',
            undo_log TEXT NOT NULL DEFAULT '[]'
        )""",
        "CREATE INDEX consolidation_runs_by_agent ON consolidation_runs(agent, started_at)",
        # Episodes that backed a claim after it was disputed or superseded: the evidence that can reopen it.
        """CREATE TABLE claim_support (
            memory_id TEXT NOT NULL,
            episode_id TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (memory_id, episode_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE audit_log (
            id TEXT PRIMARY KEY,
            agent TEXT NOT NULL,
            action TEXT NOT NULL,
            subject_id TEXT,
            details TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL
        )""",
        # Tags as rows so a tag filter can run inside the KNN query (rowid IN subquery).
        """CREATE TABLE memory_tags (
            tag TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            PRIMARY KEY (tag, memory_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX memory_tags_by_memory ON memory_tags(memory_id)",
        # One row per vector: memory_id -> vec0 rowid (several rows per memory once long texts are chunked).
        """CREATE TABLE memory_vector_rows (
            rowid INTEGER PRIMARY KEY,
            memory_id TEXT NOT NULL,
            memory_type TEXT NOT NULL,
            chunk_index INTEGER NOT NULL DEFAULT 0,
            UNIQUE (memory_id, chunk_index)
        )""",
    ]
    return statements


FTS_TABLE = "memory_fts"


FTS_RANK = "bm25(1.0, 0.0)"  # scope words select rows; only the content ranks them


def _scoped_full_text(connection: Any, dimensions: int) -> None:
    # The full-text index gains a column of scope words (see sql_filters.scope_tokens): a scoped keyword search
    # intersects with its scope's short list, so a large tenant's matches cost a small tenant nothing. FTS5 tables
    # cannot gain columns, so the index is rebuilt.
    from .filters import decode_scope, scope_tokens

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


def text_and_time_statements() -> list[str]:
    """Migration 2's portable part: text row ids, chunk spans, event times."""
    # memory_text_rows gives each memory a stable integer rowid so its full-text row can be found and deleted.
    statements = ["CREATE TABLE memory_text_rows (rowid INTEGER PRIMARY KEY, memory_id TEXT NOT NULL UNIQUE)"]
    # A long text has several vectors, one per overlapping chunk; a chunk is content[chunk_start:chunk_end].
    statements += [f"ALTER TABLE memory_vector_rows ADD COLUMN chunk_{edge} INTEGER" for edge in ("start", "end")]
    for table in ("episodes", "semantics", "procedures"):  # when it happened, as opposed to when it was stored
        statements.append(f"ALTER TABLE {table} ADD COLUMN event_time TEXT")
        statements.append(f"CREATE INDEX {table}_by_time ON {table}(agent, event_time)")
    return statements


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
"""Vectors per vec0 chunk. Every (agent, scope, memory type) partition allocates whole chunks, so sqlite-vec's
default of 1,024 would reserve 1.5 MB per scope at 384 dimensions; 64 keeps a thousand small scopes near 100 MB and
scans a 10k partition about as fast as 1,024 does (measured in memory: 3.7 vs 3.8 ms)."""


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


def validity_statements() -> list[str]:
    """Migration 4's portable part: when a memory stopped holding, and what replaced it, for every memory type."""
    statements = [
        f"ALTER TABLE {table} ADD COLUMN valid_until TEXT" for table in ("episodes", "semantics", "procedures")
    ]
    statements += [f"ALTER TABLE {table} ADD COLUMN superseded_by TEXT" for table in ("semantics", "procedures")]
    statements += [
        f"CREATE INDEX {table}_superseded_by ON {table}(superseded_by)" for table in ("semantics", "procedures")
    ]
    statements.append("CREATE INDEX episodes_superseded_by ON episodes(superseded_by)")
    return statements


def _validity(connection: Any, dimensions: int) -> None:
    for statement in validity_statements():
        connection.execute(statement)
    # Corrections made before this version get the interval they implied: the old episode held until the new one.
    connection.execute(
        "UPDATE episodes SET valid_until = (SELECT COALESCE(n.event_time, n.created_at) FROM episodes n "
        "WHERE n.id = episodes.superseded_by) WHERE superseded_by IS NOT NULL"
    )


def search_log_statements() -> list[str]:
    """Migration 5: every text row added or removed is logged in its own transaction, for derived indexes to catch
    up from (:mod:`audrey_core.index`)."""
    return [
        "CREATE TABLE search_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, text_rowid INTEGER NOT NULL)",
        "CREATE TRIGGER memory_text_added AFTER INSERT ON memory_text_rows BEGIN "
        "INSERT INTO search_changes (text_rowid) VALUES (new.rowid); END",
        "CREATE TRIGGER memory_text_removed AFTER DELETE ON memory_text_rows BEGIN "
        "INSERT INTO search_changes (text_rowid) VALUES (old.rowid); END",
    ]


def _search_log(connection: Any, dimensions: int) -> None:
    for statement in search_log_statements():
        connection.execute(statement)


def vector_log_statements() -> list[str]:
    """Migration 6: every vector row added or removed is logged in its own transaction, for the vector index to
    catch up from (:mod:`audrey_core.index.vector`)."""
    return [
        "CREATE TABLE vector_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, vector_rowid INTEGER NOT NULL)",
        "CREATE TRIGGER memory_vector_added AFTER INSERT ON memory_vector_rows BEGIN "
        "INSERT INTO vector_changes (vector_rowid) VALUES (new.rowid); END",
        "CREATE TRIGGER memory_vector_removed AFTER DELETE ON memory_vector_rows BEGIN "
        "INSERT INTO vector_changes (vector_rowid) VALUES (old.rowid); END",
    ]


def _vector_log(connection: Any, dimensions: int) -> None:
    for statement in vector_log_statements():
        connection.execute(statement)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema: seed 002 tables, vec0 vectors, tags", _initial_schema),
    Migration(2, "full-text index (FTS5) for hybrid recall; event times; chunk spans", _full_text),
    Migration(3, "scope words in the full-text index", _scoped_full_text),
    Migration(4, "validity intervals and supersession for every memory type", _validity),
    Migration(5, "a log of text-row changes for derived search indexes", _search_log),
    Migration(6, "a log of vector-row changes for the vector index", _vector_log),
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


def migrate(connection: Any, dimensions: int, migrations: tuple[Migration, ...] = MIGRATIONS) -> list[int]:
    """Apply every pending migration, each in its own transaction; return the versions applied."""
    connection.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    current = applied_version(connection)
    latest = migrations[-1].version if migrations else 0
    if current > latest:
        raise MigrationError(
            f"this database is at schema version {current} but this Audrey knows only up to {latest}; "
            "upgrade the audrey package to open it"
        )
    applied = []
    for migration in migrations:
        if migration.version <= current:
            continue
        connection.execute("BEGIN IMMEDIATE")
        try:
            migration.apply(connection, dimensions)
            connection.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, to_iso(system_clock())),
            )
            connection.execute("COMMIT")
        except Exception as exc:
            connection.execute("ROLLBACK")
            raise MigrationError(f"migration {migration.version} ({migration.name}) failed: {exc}") from exc
        applied.append(migration.version)
    return applied
