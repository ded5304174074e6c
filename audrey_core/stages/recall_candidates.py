"""Recall's candidates scored: fetch the memories the searches found, score conversation turns in their context
(:mod:`audrey_core.rules.turns`), weigh each by its confidence, fuse the keyword and vector lists, apply what the
question asks (its time, a spread over sessions), attach the best chunk of long memories."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

import numpy as np

from ..config import ConfidenceConfig, RecallConfig
from ..rules.confidence import memory_confidence
from ..rules.expiry import expired
from ..rules.fusion import convex_fusion, reciprocal_rank_fusion
from ..rules.lists import spread
from ..rules.ranking import Ranked, each_statement_once, lessons_first, ranked_item, ranking_key
from ..rules.turns import cosines, turn_scores
from ..storage import Candidates, Storage, VectorFilter
from .recall_time import TimePlan, reorder


def with_chunks(storage: Storage, ranked: list[Ranked]) -> list[Ranked]:
    """Attach the text of each result's best chunk, for memories long enough to have been split."""
    spans = storage.chunk_spans([r.vector_row for r in ranked if r.vector_row is not None])
    return [
        replace(r, chunk=r.memory.content[slice(*spans[r.vector_row])]) if r.vector_row in spans else r for r in ranked
    ]


def shaped(ranked: list[Ranked], timing: TimePlan, many: bool, limit: int, cfg: RecallConfig) -> list[Ranked]:
    """Scored candidates with what the question asks applied: its time's favours, each principle before the episodes
    it rests on (:func:`~audrey_core.rules.ranking.lessons_first`), and a spread over sessions when it asks for
    ``many`` things; a statement repeated word for word once."""
    ranked = each_statement_once(lessons_first(reorder(ranked, timing, cfg)))
    return spread(ranked, limit, cfg.session_spread) if many and cfg.session_spread < 1.0 else ranked


def score(
    storage: Storage,
    vector: np.ndarray | None,
    found: Candidates,
    min_confidence: float,
    now: datetime,
    cfg: ConfidenceConfig,
    recall_cfg: RecallConfig,
    limit: int | None = None,
    terms: Sequence[str] = (),
    lift: float = 1.0,
    fused: bool = True,
    where: VectorFilter | None = None,
    similarity_floor: float | None = None,
) -> list[Ranked]:
    """Recall's one scorer: each candidate's relevance, weighed by its confidence, best first. Relevance is the
    cosine to the query (a conversation turn's in its context, :mod:`audrey_core.rules.turns`) or, when ``fused``,
    that fused with the keyword list (a convex combination of normalised scores, or reciprocal rank); the turns of a
    speaker the query ``terms`` name gain a little. Candidates under the confidence floor, under
    ``similarity_floor`` (the caller's relevance floor: a cosine, whatever matched) or under their type's similarity
    floor (unless their words matched) are left out. With ``limit``, candidates are read in order of relevance only
    until no later one can reach the ``limit`` best (confidence never lifts a score above relevance x the largest
    type weight, and what follows, the question's time, by more than ``lift``): the same first ``limit``, without
    reading and scoring every candidate.

    With ``where``, the principles matching it that rest on consolidated episodes read are candidates too
    (:meth:`~audrey_core.storage.Storage.principles_resting_on`), each read no later than the best of those episodes
    and knowing them (``Ranked.rests_on``, for :func:`~audrey_core.rules.ranking.lessons_first`)."""
    vector_hits, keyword_hits = found.vector, found.keyword
    types = {h.memory_id: h.memory_type for h in (*vector_hits, *keyword_hits)}
    similarity = {h.memory_id: h.similarity for h in vector_hits}
    known = storage.turn_relevance(
        list(types),
        vector,
        {i for i in types if i not in similarity},  # found by their words alone: their cosines are read
        recall_cfg.turn_context_before,
        recall_cfg.turn_context_after,
        recall_cfg.turn_self_weight,
    )
    similarity.update(known.cosines)
    turns = turn_scores(known.speakers, known.in_context, terms, recall_cfg.speaker_boost)
    in_context = {**similarity, **turns.similarity}
    if not fused:
        relevance = dict(in_context)
    elif recall_cfg.fusion == "rrf" or vector is None:
        by_vector = sorted((h.memory_id for h in vector_hits), key=lambda i: -in_context[i])
        rankings = [by_vector, [h.memory_id for h in keyword_hits]]
        relevance = reciprocal_rank_fusion([r for r in rankings if r], recall_cfg.rrf_k)
    else:
        relevance = convex_fusion(in_context, {h.memory_id: h.score for h in keyword_hits}, recall_cfg.vector_weight)
    relevance = {i: value * turns.boost.get(i, 1.0) for i, value in relevance.items()}
    matched_words = {h.memory_id for h in keyword_hits}
    rows = {h.memory_id: h.vector_row for h in vector_hits}
    order = sorted(relevance.items(), key=lambda item: (-item[1], item[0]))
    resting: dict[str, list[str]] = {}  # principle -> the consolidated episodes read that it rests on
    floored: set[str] = set()  # read and left under their floor: a principle among them may be reached later
    ceiling = max(recall_cfg.type_weights.values()) * turns.ceiling * lift
    cut = limit if limit is not None and limit > 0 and all(value >= 0 for _, value in order) else None
    ranked: list[Ranked] = []
    start, step = 0, max(len(order), 1) if cut is None else 3 * cut
    while start < len(order):
        if cut is not None and len(ranked) >= cut and order[start][1] * ceiling < ranked[cut - 1].score:
            break  # no candidate left can reach the first `limit`
        batch = order[start : start + step]
        memories = storage.get_memories([memory_id for memory_id, _ in batch], types)
        lessons = [m.id for m in memories.values() if getattr(m, "consolidated", False)]
        if where is not None and lessons:
            order = _with_principles(
                storage, lessons, where, order, start + len(batch), relevance, resting, types, floored
            )
            if vector is not None and (unknown := [i for i in resting if i not in similarity]):
                similarity.update(cosines(storage.get_vectors(unknown), vector))
        for memory_id, _ in batch:
            memory, value = memories.get(memory_id), relevance.get(memory_id, 0.0)
            if memory is None or expired(memory.expires_at, now):  # removed since, or expired (a scan has no filter)
                continue
            cosine = similarity.get(memory_id, 0.0)
            if similarity_floor is not None and cosine < similarity_floor:
                continue  # unrelated to the question, whatever words it shares
            reached = memory_id in matched_words or memory_id in resting  # not by its cosine alone
            if not reached and cosine < recall_cfg.similarity_floors[memory.memory_type]:
                floored.add(memory_id)
                continue
            breakdown = memory_confidence(memory, now, cfg)
            if breakdown.value >= min_confidence:
                ranked.append(ranked_item(memory, cosine, breakdown, value, recall_cfg, rows.get(memory_id)))
        ranked.sort(key=ranking_key)
        start += len(batch)  # not `step`: a batch may end the order, and principles its episodes brought follow it
        step = step if cut is None else cut
    return [replace(r, rests_on=tuple(resting[r.memory.id])) if r.memory.id in resting else r for r in ranked]


def _with_principles(
    storage: Storage,
    episodes: Sequence[str],
    where: VectorFilter,
    order: list[tuple[str, float]],
    read: int,
    relevance: Mapping[str, float],
    resting: dict[str, list[str]],
    types: dict[str, str],
    floored: set[str],
) -> list[tuple[str, float]]:
    """``order`` (candidates by reading value; the first ``read`` read) with the principles resting on ``episodes``
    read no later than the best of them; ``resting`` and ``types`` learn them. A principle read already but left
    under its similarity floor (``floored``) is read again: resting on episodes read, it is a candidate now."""
    done = {memory_id for memory_id, _ in order[:read]} - floored
    lifted: dict[str, float] = {}
    for memory_id, (kind, cited) in storage.principles_resting_on(episodes, where).items():
        resting.setdefault(memory_id, []).extend(cited)
        types.setdefault(memory_id, kind)
        if memory_id not in done:
            lifted[memory_id] = max(relevance.get(memory_id, -math.inf), *(relevance[e] for e in cited))
            floored.discard(memory_id)  # read once more, now reached
    if not lifted:
        return order
    rest = [item for item in order[read:] if item[0] not in lifted] + list(lifted.items())
    return order[:read] + sorted(rest, key=lambda item: (-item[1], item[0]))
