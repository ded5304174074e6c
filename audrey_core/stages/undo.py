"""Undo-log entries: the prior values a consolidation run overwrites, as JSON, and how to put them back."""

from __future__ import annotations

from typing import Any

from ..models import Memory
from ..storage.base import MUTABLE_MEMORY_FIELDS
from ..timeutil import from_iso, to_iso

# Everything a run may change on an existing memory; the consolidated flag is undone by "unconsolidate" entries.
RESTORED_FIELDS = tuple(sorted(MUTABLE_MEMORY_FIELDS - {"consolidated", "claim"}))  # a run never changes a claim


def snapshot(memory: Memory) -> dict[str, Any]:
    """An undo entry restoring ``memory``'s mutable fields to their current values."""
    fields: dict[str, Any] = {}
    for name in RESTORED_FIELDS:
        if not hasattr(memory, name):
            continue
        value = getattr(memory, name)
        if name == "last_reinforced_at" and value is not None:
            value = to_iso(value)
        elif isinstance(value, tuple):
            value = list(value)
        fields[name] = value
    return {"op": "restore", "memory_id": memory.id, "fields": fields}


def restored_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """The field values a ``restore`` entry puts back, as the storage expects them."""
    fields = dict(entry["fields"])
    if fields.get("last_reinforced_at") is not None:
        fields["last_reinforced_at"] = from_iso(fields["last_reinforced_at"])
    if "evidence_episode_ids" in fields:
        fields["evidence_episode_ids"] = tuple(fields["evidence_episode_ids"])
    return fields
