"""Evidence behind the sides of a dispute: a dispute settles for the newer value once it has as much independent
backing as the older one had, and at least ``reopen_min_sources`` (the reopen rule, the other way round). Settling
ranks, it does not hide: the older side is set aside (``disputed``, still recalled), the newer held ``active``, the
contradiction resolved with an evidence :class:`~audrey_core.models.Settlement`.

Backing is counted as the reopen rule counts it (:func:`~audrey_core.rules.lineage.independent`): the claim and the
episodes that restated it, one per source type, none sharing an ancestor; a principle brings its evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..claims.apply import settle
from ..claims.gather import lineages
from ..models import Contradiction, Episodic, Memory
from ..rules.lineage import independent
from ..states import UNSETTLED_STATES
from .context import StageContext


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


def settle_for_newer(ctx: StageContext, restated: Sequence[Memory]) -> list[str]:
    """For each claim the new episode restated that is the newer side of an unsettled dispute, earliest first: when
    its backing reaches ``reopen_min_sources`` and the older side's, the older side is set aside and the dispute
    resolved for it. Returns the ids set aside."""
    set_aside: list[str] = []
    if not restated:
        return set_aside
    found = ctx.storage.find_records(
        Contradiction, claim_b_id=[m.id for m in restated], state=list(UNSETTLED_STATES)
    )  # one query for all of them: most claims restated are in no dispute
    open_disputes: dict[str, list[Contradiction]] = {}
    for c in found:
        if (
            c.resolution is not None
            and c.resolution.relation in ("contradicts", "updates")
            and c.resolution.settled is None
        ):
            open_disputes.setdefault(c.claim_b_id, []).append(c)
    for claim in sorted(restated, key=lambda m: m.valid_from):  # the first to state the new value settles it
        disputes = open_disputes.get(claim.id, [])
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
        why = f"the newer claim has {mine} independent sources against {theirs}"
        set_aside += settle(ctx, disputes, claim.id, [m.id for m in older], "evidence", why)
    return set_aside
