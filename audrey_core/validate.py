"""VALIDATE: check each new episode against the nearest semantic memory (seed 002 step 2, seed 000 §4).

Decision rules are pure functions (:func:`judge` without an LLM, :func:`resolve`); :func:`validate_episode`
applies them to the store. Zones by similarity to the nearest active semantic memory:

* >= reinforce_similarity (0.85): the same claim. It reinforces, unless it conflicts (a changed number or a negation
  makes it a contradiction, never a reinforcement) or shares a provenance chain with the memory (counts once).
* >= conflict_similarity (0.60): ask the LLM (supports / contradicts / unrelated / context_dependent); without one,
  the heuristic of :mod:`audrey_core.conflict` decides contradicts or unrelated.
* below: unrelated.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .config import ValidationConfig
from .conflict import detect_conflict
from .context import StageContext
from .errors import LLMError
from .ids import deterministic_id
from .lineage import independent, lineages
from .llm import ask, model_name_of
from .models import Contradiction, Episode, Memory
from .prompts import CONTRADICTION_CHECK
from .recall import memory_confidence
from .storage import VectorFilter

log = logging.getLogger(__name__)
CLAIM_STATES = ("active", "context_dependent")
REOPENABLE_STATES = ("disputed", "superseded")
OPEN_CONTRADICTION_STATES = ("open", "resolved", "context_dependent")


@dataclass(frozen=True)
class Judgement:
    """How an incoming claim relates to an existing one, and how that was decided."""

    relation: str  # supports | contradicts | unrelated | context_dependent
    method: str  # heuristic | llm
    reason: str = ""
    conditions_existing: str | None = None
    conditions_incoming: str | None = None
    model: str | None = None  # the LLM that judged, with the SHA-256 of its prompt
    prompt_hash: str | None = None


@dataclass(frozen=True)
class Resolution:
    """The states a contradiction leaves both claims in."""

    contradiction_state: str  # resolved | open | context_dependent
    existing_state: str
    incoming_state: str
    delta: float  # confidence(existing) - confidence(incoming)
    flagged: bool  # left open for a human or agent to review


def judge_offline(existing: str, incoming: str, similarity: float, cfg: ValidationConfig) -> Judgement | None:
    """The heuristic verdict (``None`` below the conflict zone)."""
    if similarity < cfg.conflict_similarity:
        return None
    conflict = detect_conflict(existing, incoming)
    if conflict is not None:
        return Judgement("contradicts", "heuristic", f"{conflict.kind}: {conflict.detail}")
    if similarity >= cfg.reinforce_similarity:
        return Judgement("supports", "heuristic", f"near-duplicate (similarity {similarity:.2f})")
    return Judgement("unrelated", "heuristic", "no conflict detected")


def judge(existing: str, incoming: str, similarity: float, llm: object, cfg: ValidationConfig) -> Judgement | None:
    """The verdict for two claims at ``similarity``: the LLM decides in the uncertain zone when there is one."""
    offline = judge_offline(existing, incoming, similarity, cfg)
    if offline is None or llm is None:
        return offline
    if offline.relation == "supports":
        return offline  # a near-duplicate with no changed number or negation needs no LLM call
    reply = ask(llm, CONTRADICTION_CHECK, existing=existing, incoming=incoming)
    relation = reply.relation
    if offline.relation == "contradicts" and similarity >= cfg.reinforce_similarity and relation == "supports":
        relation = "contradicts"  # a near-duplicate that changes a number is never a reinforcement
    return Judgement(
        relation,
        "llm",
        reply.reason,
        reply.conditions_existing,
        reply.conditions_new,
        model_name_of(llm),
        CONTRADICTION_CHECK.hash,
    )


def resolve(relation: str, existing_confidence: float, incoming_confidence: float, cfg: ValidationConfig) -> Resolution:
    """Seed 002's resolution: a gap above ``resolution_delta`` disputes the weaker claim; a smaller one leaves both
    active and the contradiction open (flagged); context-dependent claims both become ``context_dependent``."""
    delta = existing_confidence - incoming_confidence
    if relation == "context_dependent":
        return Resolution("context_dependent", "context_dependent", "context_dependent", delta, False)
    # Rounded so that 0.8 - 0.5 counts as 0.3 (not 0.30000000000000004) at the boundary.
    if round(abs(delta), 9) > cfg.resolution_delta:
        existing_wins = delta > 0
        return Resolution(
            "resolved",
            "active" if existing_wins else "disputed",
            "disputed" if existing_wins else "active",
            delta,
            False,
        )
    return Resolution("open", "active", "active", delta, True)


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


def validate_episodes(ctx: StageContext, episode_ids: Sequence[str]) -> None:
    """Validate each episode in turn; one failure is reported and does not stop the others."""
    episodes = ctx.storage.get_memories(episode_ids)
    vectors = ctx.storage.get_vectors(list(episodes))
    for episode_id in episode_ids:
        episode = episodes.get(episode_id)
        if not isinstance(episode, Episode) or episode_id not in vectors:
            continue
        try:
            validate_episode(ctx, episode, vectors[episode_id])
        except Exception as exc:
            log.exception("validation of episode %s failed", episode_id)
            ctx.emit("error", {"event": "validation", "episode_id": episode_id, "error": exc})


def validate_episode(ctx: StageContext, episode: Episode, vector: np.ndarray) -> str:
    """Reinforce, contradict or ignore against the nearest claim; then count support for disputed claims.

    Returns what happened: reinforced, self-citation, contradiction, unrelated or nothing.
    """
    outcome = "nothing"
    found = nearest(ctx, vector, CLAIM_STATES, episode.scope)
    if found is not None:
        claim, similarity = found
        verdict = judge_safely(ctx, claim.content, episode.content, similarity)
        if verdict is not None:
            outcome = apply_verdict(ctx, claim, episode, similarity, verdict)
    support_disputed_claim(ctx, episode, vector)
    return outcome


def judge_safely(ctx: StageContext, existing: str, incoming: str, similarity: float) -> Judgement | None:
    try:
        return judge(existing, incoming, similarity, ctx.llm, ctx.config.validation)
    except LLMError as exc:  # the LLM failing must not lose the check: fall back to the heuristic
        log.warning("LLM contradiction check failed (%s); using the offline heuristic", exc)
        ctx.emit("error", {"event": "validation", "error": exc})
        return judge_offline(existing, incoming, similarity, ctx.config.validation)


def apply_verdict(ctx: StageContext, claim: Memory, episode: Episode, similarity: float, verdict: Judgement) -> str:
    """Write what a verdict means: reinforcement or a contradiction with its resolution."""
    if verdict.relation == "supports":
        return reinforce(ctx, claim, episode, similarity)
    if verdict.relation in ("contradicts", "context_dependent"):
        record_contradiction(ctx, claim, episode, verdict)
        return "contradiction"
    return "unrelated"


def reinforce(ctx: StageContext, claim: Memory, episode: Episode, similarity: float) -> str:
    """Add the episode as evidence of ``claim`` unless they share a provenance chain (then it counts once)."""
    lineage = lineages(ctx.storage, [claim, episode])
    if lineage[claim.id] & lineage[episode.id]:
        return "self-citation"
    now = ctx.clock()
    with ctx.storage.transaction():  # read-modify-write under a lock: another process may reinforce it too
        current = ctx.storage.lock_memory(claim.id)
        if current is None:
            return "nothing"  # forgotten meanwhile
        if episode.id in current.evidence_episode_ids:
            return "reinforced"
        evidence = (*current.evidence_episode_ids, episode.id)
        sources = {m.source for m in ctx.storage.get_memories(evidence).values()}
        ctx.storage.update_memories(
            {
                claim.id: {
                    "evidence_count": current.evidence_count + 1,
                    "evidence_episode_ids": evidence,
                    "last_reinforced_at": now,
                    "source_type_diversity": len(sources),
                },
            }
        )
    ctx.emit(
        "reinforcement", {"kind": "evidence", "memory_id": claim.id, "episode_id": episode.id, "similarity": similarity}
    )
    return "reinforced"


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


def support_disputed_claim(ctx: StageContext, episode: Episode, vector: np.ndarray) -> bool:
    """Record the episode as support for a disputed / superseded claim it repeats; reopen the claim's dispute when
    ``reopen_min_sources`` independent episodes (distinct source types, no shared ancestor) back it."""
    cfg = ctx.config.validation
    found = nearest(ctx, vector, REOPENABLE_STATES, episode.scope)
    if found is None:
        return False
    claim, similarity = found
    if similarity < cfg.reinforce_similarity or detect_conflict(claim.content, episode.content) is not None:
        return False
    ctx.storage.add_claim_support(claim.id, episode.id, ctx.clock())
    supporters = [m for m in ctx.storage.get_memories(ctx.storage.claim_support(claim.id)).values()]
    supporters.sort(key=lambda m: m.id)
    lineage = lineages(ctx.storage, [claim, *supporters])
    eligible = [s for s in supporters if not lineage[s.id] & lineage[claim.id]]
    backing = independent(eligible, lineage, distinct_sources=True)
    if len(backing) < cfg.reopen_min_sources:
        return False
    reopen(ctx, claim, episode, [m.id for m in backing])
    return True


def reopen(ctx: StageContext, claim: Memory, trigger: Episode, backing: Sequence[str]) -> None:
    """Reactivate ``claim`` and mark the contradictions that had set it aside as reopened."""
    now = ctx.clock()
    contradictions = [
        c
        for side in ("claim_a_id", "claim_b_id")
        for c in ctx.storage.find_records(Contradiction, **{side: claim.id, "state": list(OPEN_CONTRADICTION_STATES)})
    ]
    with ctx.storage.transaction():
        claim = ctx.storage.lock_memory(claim.id) or claim
        evidence = tuple(dict.fromkeys((*claim.evidence_episode_ids, *backing)))
        ctx.storage.update_memories(
            {
                claim.id: {
                    "state": "active",
                    "evidence_count": claim.evidence_count + len(backing),
                    "evidence_episode_ids": evidence,
                    "last_reinforced_at": now,
                },
            }
        )
        for c in contradictions:
            ctx.storage.update_record(
                Contradiction, c.id, {"state": "reopened", "reopened_at": now, "reopen_evidence_id": trigger.id}
            )
    ctx.emit(
        "reopen",
        {
            "memory_id": claim.id,
            "contradictions": [c.id for c in contradictions],
            "new_evidence": list(backing),
            "trigger": trigger.id,
        },
    )
