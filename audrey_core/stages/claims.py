"""What validation and consolidation both do to claims: find the nearest one, trace lineages, add evidence, record a
contradiction (both sides kept), supersede an outdated claim. One implementation each; the stages decide when."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

import numpy as np

from ..ids import deterministic_id
from ..models import Contradiction, Memory
from ..rules.confidence import memory_confidence
from ..rules.judgement import Judgement, resolve
from ..rules.lineage import parents
from ..storage import Storage, VectorFilter
from .context import StageContext

log = logging.getLogger(__name__)
CLAIM_STATES = ("active", "context_dependent")


def nearest(
    ctx: StageContext, vector: np.ndarray, states: Sequence[str], scope: tuple[str, ...]
) -> tuple[Memory, float] | None:
    """The closest semantic memory of this agent in ``states`` within ``scope`` (knowledge never crosses scopes:
    one user's observations must not reinforce or dispute another's), and its similarity."""
    where = VectorFilter(agent=ctx.agent, memory_types=("semantic",), states=tuple(states), scope=tuple(scope))
    hits = ctx.storage.knn(vector, 1, where)
    if not hits:
        return None
    memory = ctx.storage.get_memory(hits[0].memory_id)
    return (memory, hits[0].similarity) if memory is not None else None


def supersede(
    ctx: StageContext, old: Memory, new: Memory, verdict: Judgement, from_states: Sequence[str] = CLAIM_STATES
) -> str:
    """Mark ``old`` replaced by ``new``: state superseded, a link to it, and its validity ending when ``new`` began.
    Nothing is deleted; the judgement is kept in the audit log. ``old`` must still be in ``from_states``."""
    now = ctx.clock()
    details = {"new": new.id, "method": verdict.method, "reason": verdict.reason}
    if verdict.model is not None:
        details.update(model=verdict.model, prompt_hash=verdict.prompt_hash)
    with ctx.storage.transaction():
        current = ctx.storage.lock_memory(old.id)
        if current is None or current.state not in from_states:
            return "nothing"  # forgotten, replaced or disputed meanwhile
        change = {"state": "superseded", "superseded_by": new.id, "valid_until": new.valid_from}
        ctx.storage.update_memories({old.id: change})
        ctx.storage.audit(ctx.agent, "update", old.id, details, now)
    ctx.emit("update", {"old": old.id, "new": new.id, "reason": verdict.reason, "judge": verdict.method, **details})
    return "updated"


def record_contradiction(
    ctx: StageContext, existing: Memory, incoming: Memory, verdict: Judgement, run_id: str | None = None
) -> Contradiction:
    """Keep both claims, record the contradiction and apply the resolution rules to their states."""
    now = ctx.clock()
    cfg = ctx.config.confidence
    existing_conf = memory_confidence(existing, now, cfg).value
    incoming_conf = memory_confidence(incoming, now, cfg).value
    outcome = resolve(verdict.relation, existing_conf, incoming_conf, ctx.config.validation)
    resolution = {
        "relation": verdict.relation,
        "method": verdict.method,
        "reason": verdict.reason,
        "confidence": {existing.id: existing_conf, incoming.id: incoming_conf},
        "delta": outcome.delta,
        "flagged": outcome.flagged,
    }
    if verdict.model is not None:
        resolution.update(model=verdict.model, prompt_hash=verdict.prompt_hash)
    if outcome.contradiction_state == "resolved":
        winner = existing if outcome.existing_state == "active" else incoming
        resolution["winner"] = winner.id
    if verdict.relation == "context_dependent":
        resolution["conditions"] = {existing.id: verdict.conditions_existing, incoming.id: verdict.conditions_incoming}
    contradiction = Contradiction(
        id=deterministic_id("C", existing.id, incoming.id),
        agent=ctx.agent,
        claim_a_id=existing.id,
        claim_b_id=incoming.id,
        state=outcome.contradiction_state,
        resolution=resolution,
        created_at=now,
        resolved_at=now if outcome.contradiction_state != "open" else None,
        consolidation_run_id=run_id,
    )
    changes: dict[str, dict[str, object]] = {}
    for memory, state, conditions in (
        (existing, outcome.existing_state, verdict.conditions_existing),
        (incoming, outcome.incoming_state, verdict.conditions_incoming),
    ):
        change: dict[str, object] = {"challenge_count": memory.challenge_count + 1, "state": state}
        if verdict.relation == "context_dependent":
            change["conditions"] = {"context": conditions}
        changes[memory.id] = change
    with ctx.storage.transaction():
        ctx.storage.insert_records([contradiction])
        ctx.storage.update_memories(changes)
    ctx.emit(
        "contradiction",
        {"contradiction": contradiction, "existing": existing, "incoming": incoming, "resolution": resolution},
    )
    return contradiction


def add_evidence(
    ctx: StageContext, claim_id: str, episode_ids: Sequence[str], *, activate: bool = False
) -> tuple[Memory | None, list[str]]:
    """Add episodes as evidence of a claim, inside the caller's transaction (the claim is locked: another process may
    add evidence too). An episode already counted counts once; the reinforcement time and the number of source types
    behind the claim are brought up to date; ``activate`` makes the claim active again (a reopened dispute). Returns
    the claim as it was (``None`` when it was forgotten meanwhile) and the ids added."""
    current = ctx.storage.lock_memory(claim_id)
    if current is None:
        return None, []
    added = [i for i in dict.fromkeys(episode_ids) if i not in current.evidence_episode_ids]
    if not added and not activate:
        return current, []
    evidence = (*current.evidence_episode_ids, *added)
    sources = {m.source for m in ctx.storage.get_memories(evidence).values()}
    change: dict[str, object] = {
        "evidence_count": current.evidence_count + len(added),
        "evidence_episode_ids": evidence,
        "last_reinforced_at": ctx.clock(),
        "source_type_diversity": len(sources),
    }
    if activate:
        change["state"] = "active"
    ctx.storage.update_memories({claim_id: change})
    return current, added


def lineages(storage: Storage, memories: Iterable[Memory], max_depth: int = 50) -> dict[str, frozenset[str]]:
    """The lineage (itself included) of each memory, walking the store level by level."""
    result: dict[str, set[str]] = {}
    known: dict[str, Memory] = {}
    for memory in memories:
        known[memory.id] = memory
        result[memory.id] = {memory.id}
    frontier = {m.id: set(parents(m)) for m in known.values()}
    for _ in range(max_depth):
        wanted = {p for ps in frontier.values() for p in ps} - set(known)
        if wanted:
            known.update(storage.get_memories(wanted))
        next_frontier: dict[str, set[str]] = {}
        for root, ids in frontier.items():
            fresh = ids - result[root]
            result[root] |= fresh
            next_frontier[root] = {p for i in fresh if i in known for p in parents(known[i])} - result[root]
        frontier = {root: ids for root, ids in next_frontier.items() if ids}
        if not frontier:
            break
    return {root: frozenset(ids) for root, ids in result.items()}
