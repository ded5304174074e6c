"""What recall hands back and what using it changes: the public result, its provenance, the other sides of its open
contradictions, and reinforcement of the principles retrieved (the self-citation guard applied)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..errors import ClosedError
from ..models import Contradiction, Counterclaim, Episodic, Memory, Procedural, Provenance, RecallResult, Semantic
from ..rules.ownership import Tenant
from ..rules.ranking import Ranked, is_self_citation
from ..states import COUNTERCLAIM_STATES, RECALLABLE_STATES, Relation, memory_move
from ..storage import Storage
from .context import StageContext


def provenance(storage: Storage, memory: Memory, owner: Tenant | None = None) -> Provenance:
    """Evidence episodes of a semantic / procedural memory, causes of an episode; for every memory, what it replaced
    and what replaced it (of what ``owner``, when given, may see)."""
    replaced = tuple(m for m in storage.supersedes_chain(memory.id) if owner is None or owner.owns(m))
    if isinstance(memory, (Semantic, Procedural)):
        found = storage.get_memories(memory.evidence_episode_ids)
        evidence = tuple(found[i] for i in memory.evidence_episode_ids if i in found)
        return Provenance(evidence=evidence, supersedes=replaced, superseded_by=memory.superseded_by)
    assert isinstance(memory, Episodic)
    return Provenance(
        supersedes=replaced,
        superseded_by=memory.superseded_by,
        causal_trigger=memory.causal_trigger,
        causal_consequence=memory.causal_consequence,
    )


@dataclass(frozen=True)
class Disputes:
    """What recall shows and orders of the disputes its memories are in: for each memory, the other sides of its
    open contradictions and context pairs (``counterclaims``), and the recallable other sides of every dispute it
    is in, settled ones included (``sides``: they stand together in the results)."""

    counterclaims: dict[str, tuple[Counterclaim, ...]]
    sides: dict[str, list[str]]


def disputes(storage: Storage, memories: Sequence[Memory], owner: Tenant) -> Disputes:
    """The disputes of ``memories``, with the other sides their owner may see (still recallable: a side superseded
    since is no counterclaim), each with when it was observed."""
    ids = [m.id for m in memories]
    if not ids:
        return Disputes({}, {})
    states = [*COUNTERCLAIM_STATES, "resolved"]
    touching = storage.find_records_in_any(Contradiction, ("claim_a_id", "claim_b_id"), ids, state=states)
    wanted = set(ids)
    pairs = [(c.claim_a_id, c.claim_b_id, c) for c in touching if c.claim_a_id in wanted]
    pairs += [(c.claim_b_id, c.claim_a_id, c) for c in touching if c.claim_b_id in wanted]
    others = storage.get_memories({other for _, other, _ in pairs}, owner=owner)
    found: dict[str, list[Counterclaim]] = {}
    sides: dict[str, list[str]] = {}
    for memory_id, other_id, c in pairs:
        other = others.get(other_id)
        if other is None or other.state not in RECALLABLE_STATES:
            continue
        if c.state != "context_dependent":
            sides.setdefault(memory_id, []).append(other_id)
        if c.state not in COUNTERCLAIM_STATES:
            continue
        relation: Relation = "context_dependent" if c.state == "context_dependent" else "contradicts"
        conditions = c.resolution.conditions.get(other.id) if c.resolution is not None else None
        claim = Counterclaim(
            c.id, other.id, other.content, other.source, other.state, other.valid_from, relation, conditions
        )
        found.setdefault(memory_id, []).append(claim)
    return Disputes({memory_id: tuple(claims) for memory_id, claims in found.items()}, sides)


def own_conditions(memory: Memory) -> str | None:
    """The context a memory holds in, as a context-dependent pair recorded it."""
    conditions = getattr(memory, "conditions", None)
    context = conditions.get("context") if isinstance(conditions, dict) else None
    return context if isinstance(context, str) else None


def to_result(item: Ranked, prov: Provenance | None, against: tuple[Counterclaim, ...] = ()) -> RecallResult:
    """The public record for a ranked memory (``against``: the other sides of its open contradictions)."""
    m = item.memory
    return RecallResult(
        id=m.id,
        content=m.content,
        memory_type=m.memory_type,
        similarity=item.similarity,
        confidence=item.breakdown.value,
        score=item.score,
        state=m.state,
        source=m.source,
        created_at=m.created_at,
        tags=m.tags,
        metadata=m.metadata,
        agent=m.agent,
        salience=m.salience,
        breakdown=item.breakdown,
        provenance=prov,
        scope=m.scope,
        key=m.key,
        relevance=item.relevance,
        event_time=m.event_time,
        chunk=item.chunk,
        superseded_by=m.superseded_by,
        valid_until=m.valid_until,
        counterclaims=against,
        conditions=own_conditions(m),
        evidence_count=m.evidence_count,
        session=getattr(m, "session", None),
        speaker=getattr(m, "speaker", None),
        turn=getattr(m, "turn", None),
        claim=getattr(m, "claim", None),
    )


def reinforce_retrieved(
    storage: Storage, memories: Sequence[Memory], retriever: str | None, now: datetime
) -> list[str]:
    """Record retrieval of the semantic / procedural memories that pass the self-citation guard; return their ids."""
    derived = [m for m in memories if m.memory_type in ("semantic", "procedural")]
    if not derived:
        return []
    origins = storage.evidence_origins([m.id for m in derived])
    ids = [m.id for m in derived if not is_self_citation(m, origins.get(m.id, []), retriever)]
    with storage.transaction():
        storage.record_retrievals(ids, now)
        # Recall reactivates: a reinforced dormant memory wakes in the state it fell asleep from.
        asleep = {
            m.id: memory_move("wake", m.state, m.prior_state) for m in derived if m.id in ids and m.state == "dormant"
        }
        storage.set_states(asleep)
    return ids


def record_retrieval(ctx: StageContext, memories: Sequence[Memory], now: datetime) -> None:
    """Reinforce the principles among ``memories`` a recall handed over at ``now`` and announce it."""
    try:
        reinforced = reinforce_retrieved(ctx.storage, memories, ctx.agent, now)
    except ClosedError:  # the instance was closed meanwhile
        return
    if reinforced:
        ctx.emit("reinforcement", {"kind": "retrieval", "memory_ids": reinforced})
