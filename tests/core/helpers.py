"""Test helpers that place derived memories directly through the storage interface."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from audrey_core import Audrey
from audrey_core.testing import add_principle

from .vectors import PlacedEmbedder

SOURCES3 = ["direct-observation", "tool-result", "told-by-user"]
REPO = Path(__file__).resolve().parents[2]  # subprocesses run here, so they can import tests.core.vectors


def add_derived(brain: Audrey, content: str, *, memory_type: str = "semantic", **fields: Any) -> str:
    """Store a semantic (or procedural) memory with its vector, as consolidation will, and return its id."""
    return add_principle(brain, content, memory_type=memory_type, **fields)


def table_counts(brain: Audrey) -> dict[str, int]:
    """Rows in every table that encode writes, read straight from the database (either backend)."""
    tables = ["episodes", "semantics", "procedures", "memory_tags", "memory_vector_rows", "memory_text_rows"]
    with brain._storage._read() as db:  # the test reads the real contents, not the API's view of them
        counts = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
        counts["memory_vectors"] = db.execute(f"SELECT COUNT(*) FROM {brain._storage.vector_table}").fetchone()[0]
    return counts


def three_topics(brain: Audrey, placed: PlacedEmbedder) -> list[list[str]]:
    """Three clusters of three episodes (one per source type) that each qualify as a principle; their ids."""
    groups = []
    for t in range(3):
        other = PlacedEmbedder(dimensions=256)
        ids = []
        for i, s in enumerate(SOURCES3):
            text = other.place(f"topic {t} claim {i}", 0.95)
            placed.vectors[text] = np.roll(other.vectors[text], 80 * t)
            ids.append(brain.encode(text, source=s))
        groups.append(ids)
    return groups
