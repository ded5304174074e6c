"""What validation and consolidation both do to claims: find the nearest one, trace lineages, add evidence, record a
contradiction (both sides kept), supersede an outdated claim. One implementation each; the stages decide when."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime

import numpy as np

from ..ids import deterministic_id
from ..models import Contradiction, Memory, Resolution
from ..rules.confidence import memory_confidence
from ..rules.judgement import Judgement, resolve
from ..rules.lineage import conversation, counts_against, parents
from ..states import MemoryEvent, memory_move, movable
from ..storage import Storage, VectorFilter, VectorHit
from .context import StageContext

log = logging.getLogger(__name__)


def principles_in(ctx: StageContext, states: Sequence[str], scope: tuple[str, ...]) -> VectorFilter:
    """This agent's semantic memories in ``states`` within ``scope`` (knowledge never crosses scopes: one user's
    observations must not reinforce or dispute another's)."""
    return VectorFilter(agent=ctx.agent, memory_types=("semantic",), states=tuple(states), scope=tuple(scope))


def nearest(
    ctx: StageContext,
    vector: np.ndarray,
    states: Sequence[str],
    scope: tuple[str, ...],
    hits: Sequence[VectorHit] | None = None,
) -> tuple[Memory, float] | None:
    """The closest semantic memory of this agent in ``states`` within ``scope`` (:func:`principles_in`), and its
    similarity. ``hits``: that search made already for a batch; the memory is read now and must still be in one of
    ``states``."""
    if hits is None:
        hits = ctx.storage.knn(vector, 1, principles_in(ctx, states, scope))
    if not hits:
        return None
    memory = ctx.storage.get_memory(hits[0].memory_id)
    return (memory, hits[0].similarity) if memory is not None and memory.state in states else None


def supersede(ctx: StageContext, old: Memory, new: Memory, verdict: Judgement) -> str:
    """Mark ``old`` replaced by ``new`` on the explicit signal the verdict carries: state superseded, a link to it,
    and its validity ending when ``new`` began. Nothing is deleted; the judgement is kept in the audit log. ``old``
    must still be in a state that may be superseded (:data:`audrey_core.states.MEMORY_MOVES`)."""
    if verdict.signal is None:
        raise ValueError(f"superseding {old.id} needs an explicit signal; {verdict.reason!r} is a guess")
    now = ctx.clock()
    details: dict[str, object] = {"new": new.id, "method": verdict.method, "reason": verdict.reason}
    details["signal"] = verdict.signal
    if verdict.model is not None:
        details.update(model=verdict.model, prompt_hash=verdict.prompt_hash)
    if verdict.update is not None:
        details["update"] = {
            "subject": verdict.update.subject,
            "attribute": verdict.update.attribute,
            "old_value": verdict.update.old_value,
            "new_value": verdict.update.new_value,
        }
    with ctx.storage.transaction():
        current = ctx.storage.lock_memory(old.id)
        if current is None or current.state not in movable("supersede"):
            return "nothing"  # forgotten, replaced or rolled back meanwhile
        change = {"state": memory_move("supersede"), "superseded_by": new.id, "valid_until": _since(old, new)}
        ctx.storage.update_memories({old.id: change})
        ctx.storage.audit(ctx.agent, "update", old.id, details, now)
    ctx.emit("update", {"old": old.id, "new": new.id, "reason": verdict.reason, "judge": verdict.method, **details})
    return "updated"


def _since(old: Memory, new: Memory) -> datetime:
    """When ``old`` stopped holding: when ``new`` began, or the date its typed claim says it began (never before
    ``old`` itself began)."""
    claim = getattr(new, "claim", None)
    if claim is not None and claim.valid_from is not None:
        return max(old.valid_from, min(claim.valid_from, new.valid_from))
    return new.valid_from


def record_contradiction(
    ctx: StageContext, existing: Memory, incoming: Memory, verdict: Judgement, run_id: str | None = None
) -> Contradiction | None:
    """Keep both claims, record the contradiction and apply the resolution rules to their states. Each side's
    challenges count the other only where it is evidence against it (:func:`~audrey_core.rules.lineage.counts_against`;
    claims that hold in their contexts challenge neither). A pair already recorded (validated again, say after a
    crash) is left as it is: returns ``None``."""
    contradiction_id = deterministic_id("C", existing.id, incoming.id)
    now = ctx.clock()
    cfg = ctx.config.confidence
    existing_conf = memory_confidence(existing, now, cfg).value
    incoming_conf = memory_confidence(incoming, now, cfg).value
    outcome = resolve(verdict.relation, existing_conf, incoming_conf, ctx.config.validation)
    winner = None
    if outcome.contradiction_state == "resolved":
        winner = (existing if outcome.existing_state == "active" else incoming).id
    conditions = {}
    if verdict.relation == "context_dependent":
        conditions = {existing.id: verdict.conditions_existing, incoming.id: verdict.conditions_incoming}
    resolution = Resolution(
        relation=verdict.relation,
        method=verdict.method,
        reason=verdict.reason,
        confidence={existing.id: existing_conf, incoming.id: incoming_conf},
        delta=outcome.delta,
        flagged=outcome.flagged,
        winner=winner,
        conditions=conditions,
        model=verdict.model,
        prompt_hash=verdict.prompt_hash,
        signal=verdict.signal,
        update=verdict.update,
    )
    contradiction = Contradiction(
        id=contradiction_id,
        agent=ctx.agent,
        claim_a_id=existing.id,
        claim_b_id=incoming.id,
        state=outcome.contradiction_state,
        resolution=resolution,
        created_at=now,
        resolved_at=now if outcome.contradiction_state != "open" else None,
        consolidation_run_id=run_id,
    )
    event: dict[str, MemoryEvent] = {"active": "hold", "disputed": "set_aside", "context_dependent": "hold_in_context"}
    lineage = lineages(ctx.storage, [existing, incoming])
    against = {  # each side's challenge: evidence against it only from a report that may count so
        existing.id: verdict.relation != "context_dependent" and counts_against(incoming, existing, lineage),
        incoming.id: verdict.relation != "context_dependent" and counts_against(existing, incoming, lineage),
    }
    with ctx.storage.transaction():
        if _recorded(ctx, existing.id, incoming.id):
            return None  # recorded already, or meanwhile by another validation of the same pair
        changes: dict[str, dict[str, object]] = {}
        for memory, state, context in (
            (existing, outcome.existing_state, verdict.conditions_existing),
            (incoming, outcome.incoming_state, verdict.conditions_incoming),
        ):
            current = ctx.storage.lock_memory(memory.id)
            if current is None or current.state not in movable(event[state]):
                continue  # forgotten, superseded or asleep meanwhile: its state is not this dispute's to change
            challenges = current.challenge_count + int(against[memory.id])
            change: dict[str, object] = {"challenge_count": challenges, "state": state}
            if verdict.relation == "context_dependent":
                change["conditions"] = {"context": context}
            changes[memory.id] = change
        ctx.storage.insert_records([contradiction])
        ctx.storage.update_memories(changes)
    ctx.emit(
        "contradiction",
        {"contradiction": contradiction, "existing": existing, "incoming": incoming, "resolution": resolution},
    )
    return contradiction


def _recorded(ctx: StageContext, one: str, other: str) -> bool:
    """Whether a contradiction between the two claims is recorded, in either order (validating the older episode
    again sees the pair the other way round)."""
    return bool(
        ctx.storage.find_records(Contradiction, claim_a_id=one, claim_b_id=other)
        or ctx.storage.find_records(Contradiction, claim_a_id=other, claim_b_id=one)
    )


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
        change["state"] = memory_move("reopen")
    ctx.storage.update_memories({claim_id: change})
    return current, added


def lineages(storage: Storage, memories: Iterable[Memory], max_depth: int = 50) -> dict[str, frozenset[str]]:
    """The lineage of each memory (:mod:`audrey_core.rules.lineage`): itself, its ancestors, walking the store level
    by level, and the conversation each of them was said in."""
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
    said_in = {i: mark for i, m in known.items() if (mark := conversation(m)) is not None}
    return {root: frozenset(ids | {said_in[i] for i in ids if i in said_in}) for root, ids in result.items()}
