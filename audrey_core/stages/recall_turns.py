"""Recall reads conversation turns in their context (:mod:`audrey_core.rules.turns`): a turn's vector relevance is
that of its vector blended with its neighbours' in the session, and the turns of the one speaker a question names
gain a little relevance. Computed at recall from the neighbours' stored vectors, so a late neighbour counts at once
and nothing is indexed twice; memories that are not turns are left as they are."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..config import RecallConfig
from ..rules.turns import context_similarities, named_speaker
from ..storage import Storage


@dataclass(frozen=True)
class TurnScores:
    """What the conversation says about recall's candidates."""

    similarity: dict[str, float] = field(default_factory=dict)  # a turn's cosine to the query, in its context
    boost: dict[str, float] = field(default_factory=dict)  # relevance multipliers (the named speaker's turns)

    @property
    def ceiling(self) -> float:
        """The largest multiplier any candidate's relevance gets."""
        return max(self.boost.values(), default=1.0)


def turn_scores(
    storage: Storage, vector: np.ndarray | None, ids: Sequence[str], terms: Sequence[str], cfg: RecallConfig
) -> TurnScores:
    """The context cosine of each turn among ``ids`` (when there is a query ``vector``) and the boost of the turns of
    the speaker the query's ``terms`` name."""
    if not ids:
        return TurnScores()
    windows = storage.turn_windows(ids, cfg.turn_context_before, cfg.turn_context_after)
    if not windows:
        return TurnScores()
    boost: dict[str, float] = {}
    if cfg.speaker_boost > 0 and terms:
        named = named_speaker((w.speaker for w in windows.values() if w.speaker), terms)
        boost = {i: 1.0 + cfg.speaker_boost for i, w in windows.items() if named is not None and w.speaker == named}
    similarity: dict[str, float] = {}
    around = {i: w.neighbours for i, w in windows.items() if w.neighbours}
    if vector is not None and around:
        wanted = list(dict.fromkeys([*around, *(n for ns in around.values() for n in ns)]))
        similarity = context_similarities(vector, storage.get_vectors(wanted), around, cfg.turn_self_weight)
    return TurnScores(similarity, boost)
