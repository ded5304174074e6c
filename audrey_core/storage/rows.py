"""Translating between memory records and database rows (shared by every SQL backend)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..models import MEMORY_CLASSES, Episode, Memory, Procedure, Semantic
from ..timeutil import from_iso, to_iso

TABLES: dict[str, str] = {"episodic": "episodes", "semantic": "semantics", "procedural": "procedures"}

COMMON_COLUMNS: tuple[str, ...] = (
    "id",
    "agent",
    "content",
    "source",
    "source_reliability",
    "salience",
    "tags",
    "state",
    "prior_state",
    "metadata",
    "evidence_count",
    "challenge_count",
    "retrieval_count",
    "created_at",
    "last_reinforced_at",
    "last_retrieved_at",
    "embedding_model",
    "embedding_version",
)
DERIVED_COLUMNS = ("evidence_episode_ids", "consolidation_run_id", "consolidation_model", "consolidation_prompt_hash")
COLUMNS: dict[str, tuple[str, ...]] = {
    "episodic": COMMON_COLUMNS
    + ("causal_trigger", "causal_consequence", "supersedes", "superseded_by", "consolidated"),
    "semantic": COMMON_COLUMNS + DERIVED_COLUMNS + ("conditions", "source_type_diversity"),
    "procedural": COMMON_COLUMNS + DERIVED_COLUMNS + ("trigger_conditions", "success_count", "failure_count"),
}
_TIME_COLUMNS = frozenset({"created_at", "last_reinforced_at", "last_retrieved_at"})
_JSON_OBJECT_COLUMNS = frozenset({"metadata", "conditions", "trigger_conditions"})
_JSON_LIST_COLUMNS = frozenset({"tags", "evidence_episode_ids"})


def memory_to_row(memory: Memory) -> tuple[Any, ...]:
    """The values of ``COLUMNS[memory.memory_type]`` for ``memory``, encoded for SQL."""
    values = []
    for column in COLUMNS[memory.memory_type]:
        value = getattr(memory, column)
        if column in _TIME_COLUMNS:
            value = to_iso(value) if value is not None else None
        elif column in _JSON_LIST_COLUMNS:
            value = json.dumps(list(value))
        elif column in _JSON_OBJECT_COLUMNS:
            value = json.dumps(value) if value is not None else ("{}" if column == "metadata" else None)
        elif column == "consolidated":
            value = int(bool(value))
        values.append(value)
    return tuple(values)


def row_to_memory(memory_type: str, row: Mapping[str, Any] | tuple[Any, ...]) -> Memory:
    """Build the record for one row selected with ``COLUMNS[memory_type]`` in order."""
    columns = COLUMNS[memory_type]
    raw = row if isinstance(row, Mapping) else dict(zip(columns, row))
    fields: dict[str, Any] = {}
    for column in columns:
        value = raw[column]
        if column in _TIME_COLUMNS:
            value = from_iso(value) if value is not None else None
        elif column in _JSON_LIST_COLUMNS:
            value = tuple(json.loads(value)) if value else ()
        elif column in _JSON_OBJECT_COLUMNS:
            value = json.loads(value) if value is not None else ({} if column == "metadata" else None)
        elif column == "consolidated":
            value = bool(value)
        fields[column] = value
    cls: type[Memory] = MEMORY_CLASSES[memory_type]
    return cls(**fields)


__all__ = ["COLUMNS", "TABLES", "Episode", "Procedure", "Semantic", "memory_to_row", "row_to_memory"]
