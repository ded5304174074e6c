"""What the derived-index tests share: a store on a real file, a writer process killed right after its commit,
taking a store back to an older schema, and KNN through the graph against sqlite-vec's exact scan."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from audrey_core import Audrey, IndexConfig
from audrey_core.storage import VectorFilter
from audrey_core.storage.sqlite.connection import connect

from ..conftest import SYNC

ROOT = Path(__file__).resolve().parents[2]
STATES = ("active", "context_dependent")

WRITER = """
import os, sys
sys.path.insert(0, {root!r})
from audrey_core import Audrey
from audrey_core.testing import DeterministicEmbedder
from tests.conftest import SYNC
brain = Audrey({path!r}, agent="a", embedder=DeterministicEmbedder(), config=SYNC)
brain.encode_batch([f"zebra crossing number {{i}}" for i in range(25)])
os._exit(0)  # killed after the commit: no close, nothing written by any index
"""


INDEX = IndexConfig()  # the index settings open_brain passes; a test changes them through use_index


def use_index(monkeypatch: Any, **settings: Any) -> IndexConfig:
    """Have ``open_brain`` open stores with these index settings for the rest of the test (see IndexConfig)."""
    current = replace(globals()["INDEX"], **settings)
    monkeypatch.setitem(globals(), "INDEX", current)
    return current


def open_brain(path: Path | str, agent: str = "a") -> Audrey:
    from audrey_core.testing import DeterministicEmbedder

    config = replace(SYNC, index=INDEX)
    return Audrey(path, agent=agent, embedder=DeterministicEmbedder(), config=config)


def killed_writer(path: Path) -> None:
    """Another process encodes 25 "zebra crossing" notes into ``path`` and dies right after its commit."""
    script = WRITER.format(root=str(ROOT), path=str(path))
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT, timeout=120)


def downgrade(path: Path | str, statements: list[str]) -> None:
    """Run ``statements`` on the closed store at ``path``, an SQLite file or a PostgreSQL URL (dropping what a newer
    schema added)."""
    if str(path).startswith(("postgresql://", "postgres://")):
        import psycopg

        with psycopg.connect(str(path), autocommit=True) as connection:
            for statement in statements:
                connection.execute(statement)
        return
    db = connect(str(path), vectors=False)
    for statement in statements:
        db.execute(statement)
    db.close()


# Undo migration 15 (each statement's reading, derived): its table.
BEFORE_READINGS = [
    "DROP TABLE claim_readings",
    "DELETE FROM schema_migrations WHERE version >= 15",
]

# Undo migration 14 (the chunked texts' vector rows indexed apart): its index.
BEFORE_CHUNK_INDEX = [
    *BEFORE_READINGS,
    "DROP INDEX memory_vector_rows_chunked",
    "DELETE FROM schema_migrations WHERE version >= 14",
]

# Undo migration 13 (a run's undo log and results as rows): its tables (rows written since are lost with them).
BEFORE_RUN_LOG = [
    *BEFORE_CHUNK_INDEX,
    "DROP TABLE consolidation_undo",
    "DROP TABLE consolidation_results",
    "DELETE FROM schema_migrations WHERE version >= 13",
]

# The same on PostgreSQL, where it is migration 9.
BEFORE_RUN_LOG_POSTGRES = [
    "DROP TABLE claim_readings",
    "DROP INDEX memory_vector_rows_chunked",
    "DELETE FROM schema_migrations WHERE version >= 10",
    "DROP TABLE consolidation_undo",
    "DROP TABLE consolidation_results",
    "DELETE FROM schema_migrations WHERE version >= 9",
]

# Undo migration 12 (principles by the episodes they rest on): its triggers and table.
BEFORE_EVIDENCE = [
    *BEFORE_RUN_LOG,
    *(
        f"DROP TRIGGER {table}_evidence_{change}"
        for table in ("semantics", "procedures")
        for change in ("added", "changed", "removed")
    ),
    "DROP TABLE principle_evidence",
    "DELETE FROM schema_migrations WHERE version >= 12",
]

# Undo migration 11 (contradictions by their newer side): its index.
BEFORE_DISPUTE_SIDES = [
    *BEFORE_EVIDENCE,
    "DROP INDEX contradictions_by_newer",
    "DELETE FROM schema_migrations WHERE version >= 11",
]

# Undo migration 10 (typed claims): its column.
BEFORE_CLAIMS = [
    *BEFORE_DISPUTE_SIDES,
    "ALTER TABLE episodes DROP COLUMN claim",
    "DELETE FROM schema_migrations WHERE version >= 10",
]

# Undo migration 9 (expiry): its columns and indexes.
BEFORE_EXPIRY = [
    *BEFORE_CLAIMS,
    *(f"DROP INDEX {table}_expiry" for table in ("episodes", "semantics", "procedures")),
    *(
        f"ALTER TABLE {table} DROP COLUMN {column}"
        for table in ("episodes", "semantics", "procedures")
        for column in ("expires_at", "ttl_seconds")
    ),
    "DELETE FROM schema_migrations WHERE version >= 9",
]

# Undo migration 8 (conversation turns): its columns, index and trigger, and the FTS5 table's context column.
BEFORE_TURNS = [
    *BEFORE_EXPIRY,
    "DROP TRIGGER memory_text_context",
    "DROP INDEX episodes_by_turn",
    "DROP INDEX episodes_by_speaker",
    *(f"ALTER TABLE episodes DROP COLUMN {column}" for column in ("session", "speaker", "turn")),
    "ALTER TABLE memory_text_rows DROP COLUMN context",
    "DROP TABLE memory_fts",
    "CREATE VIRTUAL TABLE memory_fts USING fts5(content, scopes, tokenize = 'porter unicode61 remove_diacritics 2')",
    "INSERT INTO memory_fts (memory_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)')",
    "INSERT INTO memory_fts (rowid, content, scopes) SELECT t.rowid, m.content, '' FROM memory_text_rows t JOIN "
    "(SELECT id, content FROM episodes UNION ALL SELECT id, content FROM semantics UNION ALL SELECT id, content "
    "FROM procedures) m ON m.id = t.memory_id",
    "DELETE FROM schema_migrations WHERE version >= 8",
]


def hits(brain: Audrey, text: str, k: int = 10, **extra) -> list[tuple[str, float]]:
    vector = brain.embedder.embed([text])[0]
    where = VectorFilter(agent=brain.agent, **{"states": STATES, **extra})
    return [(h.memory_id, round(h.distance, 5)) for h in brain._storage.knn(np.asarray(vector), k, where)]


def nearest(brain: Audrey, text: str, k: int = 10, **extra) -> list[str]:
    return [memory_id for memory_id, _ in hits(brain, text, k, **extra)]


def scanned_hits(brain: Audrey, text: str, k: int = 10, **extra) -> list[tuple[str, float]]:
    """The exact reference: sqlite-vec's scan, with the graph out of the way."""
    index, brain._storage.vector_index = brain._storage.vector_index, None
    try:
        return hits(brain, text, k, **extra)
    finally:
        brain._storage.vector_index = index


def scanned(brain: Audrey, text: str, k: int = 10, **extra) -> list[str]:
    return [memory_id for memory_id, _ in scanned_hits(brain, text, k, **extra)]


def same_nearest(found: list[tuple[str, float]], expected: list[tuple[str, float]]) -> bool:
    """The same distances in the same order, and the same memories wherever the k-th distance does not tie (among
    equally distant memories at the cut, either answer is exact)."""
    if [d for _, d in found] != [d for _, d in expected]:
        return False
    cut = expected[-1][1] if expected else None
    return {m for m, d in found if d != cut} == {m for m, d in expected if d != cut}


def saved(brain: Audrey) -> None:
    """Wait for the snapshot a catch-up began saving in the background."""
    index = brain._storage.vector_index
    index.ensure_fresh()
    if index.saves.thread is not None:
        index.saves.thread.join()
