"""Causal links from the trigger / consequence context episodes carry (seed 002, consolidation step 3).

A link is ``causal`` only when a mechanism explains it (stated by the LLM); without one it is ``correlational``
when independent episodes repeat the same trigger -> consequence pair, and ``temporal`` when only one does.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..ids import deterministic_id
from ..models import CausalLink, Episodic


def causal_pairs(episodes: Sequence[Episodic]) -> dict[tuple[str | None, str | None], list[Episodic]]:
    """Episodes grouped by their (trigger, consequence), for those that recorded either."""
    pairs: dict[tuple[str | None, str | None], list[Episodic]] = {}
    for episode in episodes:
        if episode.causal_trigger or episode.causal_consequence:
            pairs.setdefault((episode.causal_trigger, episode.causal_consequence), []).append(episode)
    return pairs


def classify(mechanism: str | None, stated_type: str | None, independent_count: int) -> str:
    """The link type: the LLM's when it gave a mechanism; never causal without one."""
    if stated_type == "causal" and mechanism and mechanism.strip():
        return "causal"
    if stated_type in ("correlational", "temporal"):
        return stated_type
    return "correlational" if independent_count >= 2 else "temporal"


def build_links(
    *,
    agent: str,
    principle_id: str,
    episodes: Sequence[Episodic],
    independent_ids: set[str],
    mechanism: str | None,
    stated_type: str | None,
    run_id: str,
    now: datetime,
) -> list[CausalLink]:
    """One link per distinct (trigger, consequence) among ``episodes``, explaining ``principle_id``.

    A pair missing its cause or effect is linked to the observation itself (the episode is the effect of its
    trigger, or the cause of its consequence).
    """
    links = []
    for (trigger, consequence), members in sorted(causal_pairs(episodes).items(), key=lambda kv: str(kv[0])):
        ids = tuple(sorted(m.id for m in members))
        independent_count = sum(m.id in independent_ids for m in members)
        single = members[0] if len(members) == 1 else None
        links.append(
            CausalLink(
                id=deterministic_id("L", principle_id, trigger or "", consequence or ""),
                agent=agent,
                link_type=classify(mechanism, stated_type, independent_count),
                mechanism=mechanism.strip() if mechanism and mechanism.strip() else None,
                confidence=len(members) / len(episodes),
                evidence_count=max(1, independent_count),
                created_at=now,
                cause=trigger,
                effect=consequence,
                cause_id=single.id if single is not None and trigger is None else None,
                effect_id=single.id if single is not None and consequence is None else None,
                memory_id=principle_id,
                evidence_episode_ids=ids,
                consolidation_run_id=run_id,
            )
        )
    return links
