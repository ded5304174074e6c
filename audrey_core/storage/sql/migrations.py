"""Versioned, additive, transactional schema migrations, recorded in ``schema_migrations``.

Each migration runs inside one transaction together with its row in ``schema_migrations``: a crash leaves the
database at the previous version, never half-migrated. Migrations only ever add; they are never edited once shipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from ...errors import MigrationError
from ...timeutil import system_clock, to_iso

VECTOR_TABLE = "memory_vectors"


@dataclass(frozen=True)
class Migration:
    """One schema step. ``apply`` receives the connection and the store's embedding dimensions."""

    version: int
    name: str
    apply: Callable[[Any, int], None]


def initial_statements() -> list[str]:
    """Migration 1's tables, in SQL every backend accepts once its types are mapped (see postgres/schema.py)."""
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
EVIDENCE_TABLE = "principle_evidence"
UNDO_TABLE = "consolidation_undo"
RESULTS_TABLE = "consolidation_results"
STORE_TABLES = (
    "episodes",
    "semantics",
    "procedures",
    "causal_links",
    "contradictions",
    "claim_support",
    "consolidation_runs",
    "audit_log",
    "memory_tags",
    EVIDENCE_TABLE,
    UNDO_TABLE,
    RESULTS_TABLE,
    "memory_vector_rows",
    "memory_text_rows",
    "validation_queue",
    FTS_TABLE,
    VECTOR_TABLE,
)
"""The tables of a store (both backends; a vector table made by a re-embed has another name, and SQLite's own
change logs are its own)."""


FTS_RANK = "bm25(1.0, 0.0)"  # scope words select rows; only the content ranks them (migrations 3 to 7)


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


"""Vectors per vec0 chunk. Every (agent, scope, memory type) partition allocates whole chunks, so sqlite-vec's
default of 1,024 would reserve 1.5 MB per scope at 384 dimensions; 64 keeps a thousand small scopes near 100 MB and
scans a 10k partition about as fast as 1,024 does (measured in memory: 3.7 vs 3.8 ms)."""


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


def validation_queue_statements() -> list[str]:
    """Episodes encoded and not validated yet, so validation a process did not finish (it exited, or was killed) is
    resumed by the next open. ``claimed_by`` names the Audrey instance that will validate it (see
    :mod:`audrey_core.storage.sql.validation_queue`)."""
    return [
        "CREATE TABLE validation_queue (memory_id TEXT PRIMARY KEY, claimed_by TEXT, claimed_at TEXT NOT NULL)",
        "CREATE INDEX validation_queue_by_claim ON validation_queue(claimed_by, claimed_at)",
    ]


def turn_statements() -> list[str]:
    """Migration 8's portable part (PostgreSQL 4): an episode said in a conversation knows its session, its speaker
    and its place there; a text row holds the words of its turn's neighbours (what the full-text indexes search
    beside its own, weighted lower)."""
    return [
        "ALTER TABLE episodes ADD COLUMN session TEXT",
        "ALTER TABLE episodes ADD COLUMN speaker TEXT",
        "ALTER TABLE episodes ADD COLUMN turn INTEGER",
        "CREATE INDEX episodes_by_turn ON episodes(agent, session, scope, turn) WHERE session IS NOT NULL",
        "CREATE INDEX episodes_by_speaker ON episodes(agent) WHERE speaker IS NOT NULL",
        "ALTER TABLE memory_text_rows ADD COLUMN context TEXT",
    ]


def expiry_statements() -> list[str]:
    """Migration 9's portable part (PostgreSQL 5): when a memory expires (the caller's time to live, which a refresh
    restarts), indexed for the sweep."""
    statements = []
    for table in ("episodes", "semantics", "procedures"):
        statements.append(f"ALTER TABLE {table} ADD COLUMN expires_at TEXT")
        statements.append(f"ALTER TABLE {table} ADD COLUMN ttl_seconds REAL")
        statements.append(f"CREATE INDEX {table}_expiry ON {table}(agent, expires_at) WHERE expires_at IS NOT NULL")
    return statements


def claim_statements() -> list[str]:
    """Migration 10's portable part (PostgreSQL 6): what an episode states, typed (a claim key's subject and
    attribute, or an LLM's reading), as JSON."""
    return ["ALTER TABLE episodes ADD COLUMN claim TEXT"]


def dispute_side_statements() -> list[str]:
    """Migration 11's portable part (PostgreSQL 7): contradictions found by their newer side (validation looks up
    the disputes of each claim a new episode restates; the index on both sides cannot lead with the second)."""
    return ["CREATE INDEX contradictions_by_newer ON contradictions(claim_b_id)"]


def evidence_statements() -> list[str]:
    """Migration 12's portable part (PostgreSQL 8): each principle or procedure by the episodes it rests on, so
    recall finds the principle of an episode it found (the truth stays the memory's ``evidence_episode_ids``; each
    dialect keeps this table in step with it by triggers, in the writing transaction)."""
    return [
        f"CREATE TABLE {EVIDENCE_TABLE} (episode_id TEXT NOT NULL, memory_id TEXT NOT NULL, "
        "PRIMARY KEY (episode_id, memory_id)) WITHOUT ROWID",
        f"CREATE INDEX {EVIDENCE_TABLE}_by_memory ON {EVIDENCE_TABLE}(memory_id)",
    ]


def run_log_statements() -> list[str]:
    """Migration 13's portable part (PostgreSQL 9): what a consolidation run records as it goes, one row per entry,
    appended. The run's row held it as JSON (its undo log, its new principles, its confidence changes) and was read
    and rewritten whole for every cluster, with the run's plan and inputs (megabytes at 100k episodes): the run spent
    its time re-encoding itself. What was written before stays in the run's columns, read first.

    ``consolidation_undo``: the prior values the run overwrote, for rollback. ``consolidation_results``: each
    principle the run made (``confidence_delta`` NULL) and each change it made to an existing principle's confidence
    (the delta)."""
    return [
        f"CREATE TABLE {UNDO_TABLE} (run_id TEXT NOT NULL, seq INTEGER NOT NULL, entry TEXT NOT NULL, "
        "PRIMARY KEY (run_id, seq)) WITHOUT ROWID",
        f"CREATE TABLE {RESULTS_TABLE} (run_id TEXT NOT NULL, seq INTEGER NOT NULL, memory_id TEXT NOT NULL, "
        "confidence_delta REAL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID",
    ]


def chunk_index_statements() -> list[str]:
    """Migration 14's portable part (PostgreSQL 10): the vector rows of texts stored in chunks, indexed apart, so a
    store can tell at once whether it holds any (recall then reads no chunk spans in a store that holds none)."""
    return ["CREATE INDEX memory_vector_rows_chunked ON memory_vector_rows(rowid) WHERE chunk_start IS NOT NULL"]


def reading_statements() -> list[str]:
    """Migration 15's portable part (PostgreSQL 12): each statement's reading by the parser (its claim: subject,
    predicate, values), as JSON, with the parser that read it (NULL: read, and no claim in it). Derived data: a
    reading by another parser is read again, and a memory's reading goes with it."""
    return [
        "CREATE TABLE claim_readings (memory_id TEXT PRIMARY KEY, reader TEXT NOT NULL, reading TEXT) WITHOUT ROWID"
    ]


class MigrationDialect(Protocol):
    """What the one migration runner needs from a dialect."""

    placeholder: str  # "?" or "%s"
    migrations_table: str  # CREATE TABLE IF NOT EXISTS schema_migrations (version, name, applied_at)

    def migration_transaction(self, connection: Any) -> AbstractContextManager[Any]:
        """One migration's transaction, holding whatever keeps two processes from migrating at once."""

    def applied_version(self, connection: Any) -> int:
        """The highest version recorded in ``schema_migrations`` (0 when there is none)."""


def run_migrations(
    connection: Any, migrations: Sequence[Migration], dialect: MigrationDialect, dimensions: int
) -> list[int]:
    """Apply every pending migration, each in its own transaction (the version is read inside it, so a process that
    lost the race to migrate skips what the winner applied); return the versions applied. A database newer than
    this Audrey is refused; a failing step is rolled back and named."""
    latest = migrations[-1].version if migrations else 0
    if dialect.applied_version(connection) == latest:
        return []  # current: no write transaction on an ordinary open
    applied = []
    for migration in migrations:
        try:
            with dialect.migration_transaction(connection):
                connection.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations "
                    "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
                )
                current = dialect.applied_version(connection)
                if current > latest:
                    raise MigrationError(
                        f"this database is at Audrey schema version {current} but this Audrey knows only up to "
                        f"{latest}; upgrade the audrey package to open it"
                    )
                if current >= migration.version:
                    continue
                migration.apply(connection, dimensions)
                mark = dialect.placeholder
                connection.execute(
                    f"INSERT INTO schema_migrations (version, name, applied_at) VALUES ({mark}, {mark}, {mark})",
                    (migration.version, migration.name, to_iso(system_clock())),
                )
        except MigrationError:
            raise
        except Exception as exc:
            raise MigrationError(f"migration {migration.version} ({migration.name}) failed: {exc}") from exc
        applied.append(migration.version)
    return applied
