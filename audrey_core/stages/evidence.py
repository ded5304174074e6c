"""Evidence against one statement (issue 31): a claim backed by independent sources, or a principle, is not replaced
by one statement that merely states another value; and a dispute settles for the newer value once it has as much
independent backing as the older one had, and at least ``reopen_min_sources`` (the reopen rule, the other way round).

Backing is counted as the reopen rule counts it (:func:`~audrey_core.rules.lineage.independent`): the claim and the
episodes that restated it, one per source type, none sharing an ancestor; a principle brings its evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..models import Contradiction, Episodic, Memory
from ..rules.judgement import Judgement, Pair, outweighs
from ..rules.lineage import independent
from .claims import lineages, supersede
from .context import StageContext

UNSETTLED_STATES = ("open", "resolved")  # contradictions the newer side may still win by evidence


def backing(ctx: StageContext, claims: Sequence[Memory]) -> list[Memory]:
    """The independent sources behind ``claims`` taken together: themselves, the episodes recorded as restating
    them, and a principle's evidence; one per source type, none sharing an ancestor."""
    ids: dict[str, None] = {}
    for claim in claims:
        ids[claim.id] = None
        ids.update(dict.fromkeys(ctx.storage.claim_support(claim.id)))
        ids.update(dict.fromkeys(getattr(claim, "evidence_episode_ids", ())))
    found = ctx.storage.get_memories(list(ids))
    episodes = sorted((m for m in found.values() if isinstance(m, Episodic)), key=lambda m: m.valid_from)
    return independent(episodes, lineages(ctx.storage, episodes), distinct_sources=True)


def weigh_updates(
    ctx: StageContext,
    episode: Episodic,
    claims: Sequence[Memory],
    pairs: Sequence[Pair],
    verdicts: list[Judgement | None],
) -> list[Judgement | None]:
    """The verdicts with each update the new episode would make of an earlier claim turned into a contradiction when
    those claims together outweigh one statement (:func:`~audrey_core.rules.judgement.outweighs`). An episode that
    corrects a memory (``supersedes=``) says explicitly that the value changed: it outweighs them."""
    replaced = [
        i
        for i, (pair, verdict) in enumerate(zip(pairs, verdicts))
        if verdict is not None and verdict.relation == "updates" and pair.newer
    ]
    if not replaced:
        return verdicts
    earlier = [claims[i] for i in replaced]
    sources = len(backing(ctx, earlier))
    principle = any(c.memory_type != "episodic" for c in earlier)
    weighed = list(verdicts)
    for i in replaced:
        verdict = verdicts[i]
        assert verdict is not None
        explicit = verdict.explicit or episode.supersedes is not None
        if outweighs(sources, principle, explicit, ctx.config.validation):
            held = "a principle" if principle else f"{sources} independent sources"
            reason = f"{verdict.reason}; the earlier claim rests on {held}, and one statement of another value does not"
            weighed[i] = replace(verdict, relation="contradicts", reason=f"{reason} replace it")
    return weighed


def settle_for_newer(ctx: StageContext, restated: Sequence[Memory]) -> list[str]:
    """For each claim the new episode restated that is the newer side of an unsettled contradiction, earliest first:
    when its backing reaches ``reopen_min_sources`` and the older side's, the older side is superseded by it and the
    contradiction resolved for it. Returns the ids superseded."""
    superseded: list[str] = []
    for claim in sorted(restated, key=lambda m: m.valid_from):  # the first to state the new value replaces the old
        disputes = ctx.storage.find_records(Contradiction, claim_b_id=claim.id, state=list(UNSETTLED_STATES))
        disputes = [c for c in disputes if (c.resolution or {}).get("relation") in ("contradicts", "updates")]
        if not disputes:
            continue
        older = [
            m
            for m in ctx.storage.get_memories([c.claim_a_id for c in disputes]).values()
            if m.valid_from < claim.valid_from
        ]
        if not older:
            continue
        mine, theirs = len(backing(ctx, [claim])), len(backing(ctx, older))
        if mine < max(ctx.config.validation.reopen_min_sources, theirs):
            continue
        verdict = Judgement("updates", "evidence", f"the newer claim has {mine} independent sources against {theirs}")
        for old in older:
            if (
                supersede(ctx, old, claim, verdict, from_states=("active", "context_dependent", "disputed"))
                == "updated"
            ):
                superseded.append(old.id)
        now = ctx.clock()
        with ctx.storage.transaction():
            if claim.state == "disputed":
                ctx.storage.set_states({claim.id: "active"})
            for c in disputes:
                settled = {**(c.resolution or {}), "winner": claim.id, "settled_by": verdict.reason}
                ctx.storage.update_record(
                    Contradiction, c.id, {"state": "resolved", "resolved_at": now, "resolution": settled}
                )
    return superseded
