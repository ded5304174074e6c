"""Source lineage: which memories a memory descends from, and so which of them are independent reports, for the
self-confirmation defences of seed 002.

A memory's lineage is itself plus, transitively, the memories it was ``derived_from``, the episodes it
``supersedes``, (for semantic and procedural memories) its evidence episodes, and the conversation each of them was
said in. Two memories that share anything in their lineages share a provenance chain: as evidence, they count once.
So an echo is one report: the assistant repeating what the user just said, a tool quoting it back, the user saying it
twice in one conversation, the agent re-encoding a memory it recalled (``derived_from``).

The agent's own conclusions (``inference``, ``model-generated``) are never a report of the world: what they restate
gains nothing from them, and their contradiction never counts against a first-hand claim (they may open a dispute,
never make what was observed, told or returned the less confident).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Episodic, Memory, Procedural, Semantic

DERIVED_SOURCES = frozenset({"inference", "model-generated"})
"""The agent's own conclusions and text: never evidence for what they restate, nor against a first-hand claim."""


def parents(memory: Memory) -> tuple[str, ...]:
    """The memories ``memory`` directly descends from."""
    if isinstance(memory, Episodic):
        return memory.derived_from + ((memory.supersedes,) if memory.supersedes else ())
    if isinstance(memory, (Semantic, Procedural)):
        return memory.evidence_episode_ids
    return ()


def conversation(memory: Memory) -> str | None:
    """The lineage mark of the conversation a turn was said in (its session, within its scope), or None: every turn of
    one conversation shares it, so they are one provenance chain."""
    session = getattr(memory, "session", None)
    if session is None:
        return None
    return "\x1f".join(("conversation", *memory.scope, "", session))


def first_hand(memory: Memory) -> bool:
    """Whether ``memory`` is a report of the world (observed, told or returned by a tool), not the agent's own."""
    return memory.source not in DERIVED_SOURCES


def counts_against(challenger: Memory, claim: Memory, lineage: dict[str, frozenset[str]]) -> bool:
    """Whether ``challenger`` disputing ``claim`` counts as evidence against it (its challenges, in the evidence
    term): not from the claim's own provenance chain (an echo that garbles it), and never the agent's own conclusion
    against a first-hand claim (it may open the dispute, not make what was observed, told or returned the less
    confident)."""
    if lineage.get(challenger.id, frozenset({challenger.id})) & lineage.get(claim.id, frozenset({claim.id})):
        return False
    return first_hand(challenger) or not first_hand(claim)


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
