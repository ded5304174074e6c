"""Principles whose evidence was updated: at the next consolidation, a principle most of whose evidence episodes
were superseded (by corrections or noticed updates) is itself superseded by the newest of what replaced them, so
recall stops answering with an outdated generalisation. Nothing is deleted; it stays findable with
``include_superseded=True`` and ``as_of``."""

from __future__ import annotations

from ..claims.apply import supersede
from ..claims.decide import Judgement
from ..states import CLAIM_STATES
from .context import StageContext


def retire_outdated_principles(ctx: StageContext) -> list[str]:
    """Supersede the tenant's principles whose evidence is mostly outdated; return their ids."""
    principles = [
        p
        for p in ctx.storage.iter_memories(ctx.agent, CLAIM_STATES, ("semantic", "procedural"))
        if getattr(p, "evidence_episode_ids", ()) and ctx.tenant.owns(p)
    ]
    # One read of every principle's evidence, not one per principle: this runs before each consolidation.
    episodes = ctx.storage.get_memories({i for p in principles for i in p.evidence_episode_ids})
    retired = []
    for principle in principles:
        evidence = {i: episodes[i] for i in principle.evidence_episode_ids if i in episodes}
        outdated = [e for e in evidence.values() if e.state == "superseded" and e.superseded_by]
        if 2 * len(outdated) <= len(evidence):
            continue  # most of its evidence still holds
        replacements = ctx.storage.get_memories({e.superseded_by for e in outdated}, owner=ctx.tenant)
        if not replacements:
            continue
        newest = max(replacements.values(), key=lambda m: (m.valid_from, m.id))
        reason = f"{len(outdated)} of its {len(evidence)} evidence episodes were updated"
        if (
            supersede(ctx, principle, newest, Judgement("updates", "evidence", reason, signal="evidence_replaced"))
            == "updated"
        ):
            retired.append(principle.id)
    return retired


__all__ = ["retire_outdated_principles"]
