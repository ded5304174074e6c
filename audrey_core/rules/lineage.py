"""Source lineage: which memories a memory descends from, for the self-confirmation defences of seed 002.

A memory's lineage is itself plus, transitively, the memories it was ``derived_from``, the episodes it
``supersedes`` and (for semantic and procedural memories) its evidence episodes. Two memories that share anything in
their lineages share a provenance chain: as evidence, they count once.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Episodic, Memory, Procedural, Semantic


def parents(memory: Memory) -> tuple[str, ...]:
    """The memories ``memory`` directly descends from."""
    if isinstance(memory, Episodic):
        return memory.derived_from + ((memory.supersedes,) if memory.supersedes else ())
    if isinstance(memory, (Semantic, Procedural)):
        return memory.evidence_episode_ids
    return ()


def independent(
    candidates: Sequence[Memory], lineage: dict[str, frozenset[str]], distinct_sources: bool = False
) -> list[Memory]:
    """A greedy maximal subset whose lineages are pairwise disjoint (and, if asked, whose sources differ)."""
    chosen: list[Memory] = []
    seen_ids: set[str] = set()
    seen_sources: set[str] = set()
    for memory in candidates:
        line = lineage[memory.id]
        if seen_ids & line or (distinct_sources and memory.source in seen_sources):
            continue
        chosen.append(memory)
        seen_ids |= line
        seen_sources.add(memory.source)
    return chosen
