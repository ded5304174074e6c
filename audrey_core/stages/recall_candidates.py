"""Recall's candidates scored: fetch the memories the searches found, score conversation turns in their context
(:mod:`.recall_turns`), weigh each by its confidence, fuse the keyword and vector lists, apply what the question asks
(its time, a spread over sessions), attach the best chunk of long memories."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

import numpy as np

from ..config import ConfidenceConfig, RecallConfig
from ..rules.confidence import memory_confidence
from ..rules.expiry import expired
from ..rules.fusion import convex_fusion, reciprocal_rank_fusion
from ..rules.lists import spread
from ..rules.ranking import Ranked, each_statement_once, pool_size, ranked_item, ranking_key
from ..rules.recall_options import RecallOptions
from ..storage import KeywordHit, Storage, VectorHit
from .recall_time import NO_TIME, TimePlan, reorder, within
from .recall_turns import TurnScores, turn_scores


def with_chunks(storage: Storage, ranked: list[Ranked]) -> list[Ranked]:
    """Attach the text of each result's best chunk, for memories long enough to have been split."""
    spans = storage.chunk_spans([r.vector_row for r in ranked if r.vector_row is not None])
    return [
        replace(r, chunk=r.memory.content[slice(*spans[r.vector_row])]) if r.vector_row in spans else r for r in ranked
    ]


def merged_vector_hits(first: Sequence[VectorHit], second: Sequence[VectorHit]) -> list[VectorHit]:
    """One vector search run twice (e.g. also inside a favoured span): each memory once, nearest first."""
    seen = {hit.memory_id for hit in first}
    return sorted([*first, *(hit for hit in second if hit.memory_id not in seen)], key=lambda hit: hit.distance)


def merged_keyword_hits(first: Sequence[KeywordHit], second: Sequence[KeywordHit]) -> list[KeywordHit]:
    """One keyword search run twice: each memory once, best first."""
    seen = {hit.memory_id for hit in first}
    return sorted([*first, *(hit for hit in second if hit.memory_id not in seen)], key=lambda hit: -hit.score)


def shaped(ranked: list[Ranked], timing: TimePlan, many: bool, limit: int, cfg: RecallConfig) -> list[Ranked]:
    """Scored candidates with what the question asks applied: its time's favours, and a spread over sessions when
    it asks for ``many`` things; a statement repeated word for word once."""
    ranked = each_statement_once(reorder(ranked, timing, cfg))
    return spread(ranked, limit, cfg.session_spread) if many and cfg.session_spread < 1.0 else ranked


def fuse_hits(
    storage: Storage,
    vector: np.ndarray | None,
    vector_hits: Sequence[VectorHit],
    keyword_hits: Sequence[KeywordHit],
    min_confidence: float,
    now: datetime,
    cfg: ConfidenceConfig,
    recall_cfg: RecallConfig,
    limit: int | None = None,
    terms: Sequence[str] = (),
    lift: float = 1.0,
) -> list[Ranked]:
    """Fuse the two candidate lists (convex combination of normalised scores, or reciprocal rank), then weigh each
    memory by its confidence, best first. Conversation turns are scored in their context, and the turns of a speaker
    the query ``terms`` name gain relevance (:mod:`.recall_turns`). With ``limit``, candidates are fetched in order
    of relevance only until no later one can reach the ``limit`` best (confidence never lifts a score above
    relevance x the largest type weight, and what follows, the question's time, by more than ``lift``): the same first
    ``limit``, without reading and scoring every candidate."""
    types = {h.memory_id: h.memory_type for h in (*vector_hits, *keyword_hits)}
    similarity = {h.memory_id: h.similarity for h in vector_hits}
    missing = [i for i in types if i not in similarity]
    if missing and vector is not None:  # keyword-only finds get their cosine similarity too
        found = storage.get_vectors(missing)
        if found:
            stored = np.stack(list(found.values()))
            cosines = stored @ (vector / np.linalg.norm(vector)) / np.linalg.norm(stored, axis=1)
            similarity.update(zip(found, cosines.tolist()))
    turns = turn_scores(storage, vector, list(types), terms, recall_cfg)
    in_context = {**similarity, **turns.similarity}
    if recall_cfg.fusion == "rrf" or vector is None:
        by_vector = sorted((h.memory_id for h in vector_hits), key=lambda i: -in_context[i])
        rankings = [by_vector, [h.memory_id for h in keyword_hits]]
        relevance = reciprocal_rank_fusion([r for r in rankings if r], recall_cfg.rrf_k)
    else:
        relevance = convex_fusion(in_context, {h.memory_id: h.score for h in keyword_hits}, recall_cfg.vector_weight)
    relevance = {i: value * turns.boost.get(i, 1.0) for i, value in relevance.items()}
    matched_words = {h.memory_id for h in keyword_hits}
    rows = {h.memory_id: h.vector_row for h in vector_hits}
    order = sorted(relevance.items(), key=lambda item: (-item[1], item[0]))
    ceiling = max(recall_cfg.type_weights.values()) * turns.ceiling * lift
    cut = limit if limit is not None and limit > 0 and all(value >= 0 for _, value in order) else None
    ranked: list[Ranked] = []
    start, step = 0, max(len(order), 1) if cut is None else 3 * cut
    while start < len(order):
        if cut is not None and len(ranked) >= cut and order[start][1] * ceiling < ranked[cut - 1].score:
            break  # no candidate left can reach the first `limit`
        batch = order[start : start + step]
        memories = storage.get_memories([memory_id for memory_id, _ in batch], types)
        for memory_id, value in batch:
            memory = memories.get(memory_id)
            if memory is None or expired(memory.expires_at, now):  # removed since, or expired (a scan has no filter)
                continue
            cosine = similarity.get(memory_id, 0.0)
            if memory_id not in matched_words and cosine < recall_cfg.similarity_floors[memory.memory_type]:
                continue
            breakdown = memory_confidence(memory, now, cfg)
            if breakdown.value >= min_confidence:
                ranked.append(ranked_item(memory, cosine, breakdown, value, recall_cfg, rows.get(memory_id)))
        ranked.sort(key=ranking_key)
        start += step
        step = step if cut is None else cut
    return ranked


def rank_by_vector(
    storage: Storage,
    vector: np.ndarray,
    options: RecallOptions,
    now: datetime,
    confidence_cfg: ConfidenceConfig,
    recall_cfg: RecallConfig,
    terms: Sequence[str] = (),
    timing: TimePlan = NO_TIME,
    many: bool = False,
) -> list[Ranked]:
    k = pool_size(options, recall_cfg)
    while True:
        hits = storage.knn(vector, k, options.where)
        if timing.favour is not None and timing.search_favoured:  # a narrow favoured span's own best join too
            hits = merged_vector_hits(hits, storage.knn(vector, k, within(options, timing.favour).where))
        turns = turn_scores(storage, vector, [h.memory_id for h in hits], terms, recall_cfg)
        ranked = score_hits(storage, hits, options.min_confidence, now, confidence_cfg, recall_cfg, turns)
        ranked = shaped(ranked, timing, many, options.limit, recall_cfg)
        exhausted = len(hits) < k or k >= recall_cfg.max_candidates
        if len(ranked) >= options.limit or exhausted:
            return with_chunks(storage, ranked[: options.limit])
        k = min(recall_cfg.max_candidates, k * recall_cfg.widen_factor)


def score_hits(
    storage: Storage,
    hits: Sequence[VectorHit],
    min_confidence: float,
    now: datetime,
    cfg: ConfidenceConfig,
    recall_cfg: RecallConfig | None = None,
    turns: TurnScores | None = None,
) -> list[Ranked]:
    """Fetch the hit memories, score them, drop those under the confidence or similarity floor, sort best first.
    ``turns``: what the conversation says of them (a turn's relevance is its context cosine x its boost)."""
    turns = turns or TurnScores()
    recall_cfg = recall_cfg or RecallConfig()
    memories = storage.get_memories([h.memory_id for h in hits], {h.memory_id: h.memory_type for h in hits})
    ranked = []
    for hit in hits:
        memory = memories.get(hit.memory_id)
        if memory is None or expired(memory.expires_at, now):  # removed since the KNN, or expired (see fuse_hits)
            continue
        if hit.similarity < recall_cfg.similarity_floors[memory.memory_type]:
            continue
        breakdown = memory_confidence(memory, now, cfg)
        if breakdown.value >= min_confidence:
            relevance = None  # the similarity itself, unless the conversation says more
            if hit.memory_id in turns.similarity or hit.memory_id in turns.boost:
                cosine = turns.similarity.get(hit.memory_id, hit.similarity)
                relevance = cosine * turns.boost.get(hit.memory_id, 1.0)
            ranked.append(ranked_item(memory, hit.similarity, breakdown, relevance, recall_cfg, hit.vector_row))
    ranked.sort(key=ranking_key)
    return ranked
