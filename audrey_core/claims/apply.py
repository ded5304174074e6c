"""APPLY: the only writer of claim and contradiction states. Each change is written in one transaction with its
audit entry (where the change is a supersession or a settlement) and announced by one event after it commits:
``update`` for a supersession (by validation, by evidence or by what the caller said at encode), ``contradiction``
for a dispute recorded or settled, ``reopen`` for a dispute reopened. What to change is decided before, in
:mod:`audrey_core.claims.decide`; a claim moved meanwhile by another writer (forgotten, replaced, asleep) is left as
it now is (:data:`audrey_core.states.MEMORY_MOVES`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal

from ..errors import StorageError
from ..ids import deterministic_id
from ..models import Contradiction, Episodic, Memory, Procedural, Resolution, Semantic, Settlement
from ..rules.confidence import memory_confidence
from ..rules.lineage import counts_against
from ..stages.context import StageContext
from ..states import MemoryEvent, contradiction_movable, contradiction_move, memory_move, movable
from .decide import Judgement, Replacement, encode_supersessions, resolve
from .gather import lineages


def supersede_at_encode(ctx: StageContext, episodes: Sequence[Episodic]) -> list[dict[str, Any]]:
    """Inside encode's transaction, after ``episodes`` are inserted: write what their ``supersedes=`` and claim keys
    replace (:func:`~.decide.encode_supersessions`), each with its audit entry, in order (a later episode of the
    batch sees what an earlier one replaced). Returns the ``update`` events to announce once the transaction
    commits."""
    events = []
    for episode in episodes:
        named: Memory | None = None
        if episode.supersedes is not None:
            named = ctx.storage.lock_memory(episode.supersedes)
            if not isinstance(named, Episodic) or named.superseded_by is not None:
                raise StorageError(f"episode {episode.supersedes} does not exist or is already superseded")
        holders = (
            []
            if episode.key is None
            else ctx.storage.key_holders(episode.agent, episode.scope, episode.key, episode.id)
        )
        for replacement in encode_supersessions(episode, named, holders):
            event = _replace(ctx, replacement)
            if event is not None:
                events.append(event)
    return events


def supersede(ctx: StageContext, old: Memory, new: Memory, verdict: Judgement) -> str:
    """Mark ``old`` replaced by ``new`` on the explicit signal the verdict carries, in one transaction with its audit
    entry, and announce it. Returns updated, or nothing when ``old`` moved meanwhile."""
    with ctx.storage.transaction():
        event = _replace(ctx, Replacement(old, new, verdict))
    if event is None:
        return "nothing"
    ctx.emit("update", event)
    return "updated"


def _replace(ctx: StageContext, replacement: Replacement) -> dict[str, Any] | None:
    """Inside a transaction: the old claim superseded (state, a link to the new one, its validity ending when the new
    one began), and an ``update`` audit entry with the judgement. Nothing is deleted. Returns the ``update`` event,
    or ``None`` when the old claim was forgotten, replaced or rolled back meanwhile (it is left as it is)."""
    old, new, verdict = replacement.old, replacement.new, replacement.verdict
    if verdict.signal is None:
        raise ValueError(f"superseding {old.id} needs an explicit signal; {verdict.reason!r} is a guess")
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
    current = ctx.storage.lock_memory(old.id)
    if current is None or current.state not in movable("supersede") or current.superseded_by is not None:
        return None
    change = {"state": memory_move("supersede"), "superseded_by": new.id, "valid_until": _since(old, new)}
    ctx.storage.update_memories({old.id: change})
    ctx.storage.audit(ctx.agent, "update", old.id, details, ctx.clock())
    return {"old": old.id, "new": new.id, "reason": verdict.reason, "judge": verdict.method, **details}


def _since(old: Memory, new: Memory) -> datetime:
    """When ``old`` stopped holding: when ``new`` began, or the date its typed claim says it began (never before
    ``old`` itself began)."""
    claim = new.claim if isinstance(new, Episodic) else None
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
    if not isinstance(current, (Semantic, Procedural)):
        raise TypeError(f"{claim_id} is an episode: only a principle holds evidence")
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


def reopen(ctx: StageContext, claim: Memory, trigger: Episodic, backing: Sequence[str]) -> None:
    """Reactivate ``claim`` and mark the contradictions that had set it aside as reopened."""
    now = ctx.clock()
    states = list(contradiction_movable("reopen"))
    contradictions = ctx.storage.find_records_in_any(
        Contradiction, ("claim_a_id", "claim_b_id"), [claim.id], state=states
    )
    with ctx.storage.transaction():
        add_evidence(ctx, claim.id, backing, activate=True)
        for c in contradictions:
            fields = {
                "state": contradiction_move("reopen", c.state),
                "reopened_at": now,
                "reopen_evidence_id": trigger.id,
            }
            ctx.storage.update_record(Contradiction, c.id, fields)
    ctx.emit(
        "reopen",
        {
            "memory_id": claim.id,
            "contradictions": [c.id for c in contradictions],
            "new_evidence": list(backing),
            "trigger": trigger.id,
        },
    )


def settle(
    ctx: StageContext,
    disputes: Sequence[Contradiction],
    winner: str | None,
    losers: Sequence[str],
    method: Literal["human", "evidence"],
    reason: str,
    only: Collection[str] | None = None,
) -> list[str]:
    """Settle ``disputes`` in one transaction: ``winner`` held active and ``losers`` set aside (``winner=None``: both
    sides held), each contradiction resolved with a :class:`~audrey_core.models.Settlement`, one ``settle`` audit
    entry; then one ``contradiction`` event per dispute. A side superseded or asleep meanwhile stays so, and so does
    one not in ``only`` (when given: the sides the caller may change). Returns the ids set aside."""
    now = ctx.clock()
    both_hold = winner is None
    decided: dict[str, Any] = {"method": method, "winner": winner, "both_hold": both_hold, "reason": reason}
    events: dict[str, MemoryEvent] = {side: "hold" if both_hold else "set_aside" for side in losers}
    if winner is not None:
        events[winner] = "hold"
    with ctx.storage.transaction():
        states: dict[str, str] = {}
        for side, event in events.items():
            if only is not None and side not in only:
                continue
            current = ctx.storage.lock_memory(side)
            if current is not None and current.state in movable(event):
                states[side] = memory_move(event)
        ctx.storage.set_states(states)
        for c in disputes:
            settled = Settlement(method=method, winner=winner, both_hold=both_hold, reason=reason, at=now)
            earlier = c.resolution or Resolution(relation="contradicts", method=method)
            fields = {
                "state": contradiction_move("settle", c.state),
                "resolved_at": now,
                "resolution": replace(earlier, winner=winner, settled=settled),
            }
            ctx.storage.update_record(Contradiction, c.id, fields)
        set_aside = [side for side, event in events.items() if event == "set_aside" and side in states]
        subject = disputes[0].id if method == "human" else winner
        ctx.storage.audit(ctx.agent, "settle", subject, {**decided, "set_aside": set_aside}, now)
    for c in disputes:
        ctx.emit("contradiction", {"contradiction": c, "settled": decided})
    return set_aside
