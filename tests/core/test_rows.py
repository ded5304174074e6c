"""Records to database rows and back: every field of every record type survives, whether the driver hands back a
tuple (SQLite, psycopg) or a mapping."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from audrey_core.models import Claim, ConsolidationRun, Contradiction, Episodic, Procedural, Resolution, Semantic
from audrey_core.storage.sql.rows import COLUMNS, RECORDS, from_row, memory_to_row, row_to_memory, to_row

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)

COMMON = {
    "agent": "agent-7",
    "scope": ("team", "billing"),
    "key": "billing.provider",
    "content": "Invoices go through Stripe.",
    "source": "told-by-user",
    "source_reliability": 0.9,
    "salience": 0.8,
    "tags": ("billing", "vendor"),
    "state": "disputed",
    "prior_state": "active",
    "metadata": {"ticket": "OPS-12", "attempts": 3},
    "evidence_count": 4,
    "challenge_count": 2,
    "retrieval_count": 5,
    "created_at": T0,
    "last_reinforced_at": T0 + timedelta(days=1),
    "last_retrieved_at": T0 + timedelta(days=2),
    "embedding_model": "all-MiniLM-L6-v2",
    "embedding_version": "1",
    "event_time": T0 - timedelta(hours=3),
    "superseded_by": "m-later",
    "valid_until": T0 + timedelta(days=9),
    "expires_at": T0 + timedelta(days=30),
    "ttl_seconds": 3600.0,
}

MEMORIES = [
    Episodic(
        id="e-1",
        **COMMON,
        causal_trigger="a deploy",
        causal_consequence="checkout froze",
        conditions={"context": "during the freeze"},
        derived_from=("e-0",),
        supersedes="e-0",
        consolidated=True,
        session="s-1",
        speaker="Ana",
        turn=3,
        claim=Claim("billing", "provider", "Stripe", True, "key", "in production", T0),
    ),
    Semantic(
        id="s-1",
        **COMMON,
        conditions={"context": "in the EU"},
        evidence_episode_ids=("e-1", "e-2", "e-3"),
        source_type_diversity=3,
        consolidation_run_id="run-1",
        consolidation_model="a-model",
        consolidation_prompt_hash="abc123",
    ),
    Procedural(
        id="p-1",
        **COMMON,
        trigger_conditions={"when": "before a deploy"},
        evidence_episode_ids=("e-4", "e-5"),
        success_count=6,
        failure_count=1,
        consolidation_run_id="run-2",
        consolidation_model="a-model",
        consolidation_prompt_hash="def456",
    ),
]


@pytest.mark.parametrize("memory", MEMORIES, ids=lambda m: m.memory_type)
def test_a_memory_survives_its_row_as_a_tuple_and_as_a_mapping(memory):
    row = memory_to_row(memory)
    columns = COLUMNS[memory.memory_type]
    assert row_to_memory(memory.memory_type, row) == memory
    assert row_to_memory(memory.memory_type, list(row)) == memory
    assert row_to_memory(memory.memory_type, dict(zip(columns, row))) == memory


def test_a_memory_with_the_defaults_survives_its_row():
    memory = Episodic(id="e-9", agent="a", content="x", source="inference", source_reliability=0.4, created_at=T0)
    assert row_to_memory("episodic", memory_to_row(memory)) == memory


def test_other_records_survive_their_rows():
    resolution = Resolution("contradicts", "heuristic", reason="same frame", confidence={"a": 0.7, "b": 0.8})
    records = [
        Contradiction("c-1", "agent-7", "e-1", "e-2", "open", resolution, T0, T0 + timedelta(days=1), None, "e-3"),
        ConsolidationRun(
            "run-1",
            "agent-7",
            "completed",
            "e-9",
            ("e-1", "e-2"),
            ("s-1",),
            {"e-1": 0.05},
            "m",
            "h",
            T0,
            T0,
            plan=(("e-1", "e-2"),),
        ),
    ]
    for record in records:
        _, columns = RECORDS[type(record)]
        row = to_row(record, columns)
        assert from_row(type(record), columns, row) == record
        assert from_row(type(record), columns, dict(zip(columns, row))) == record
