"""Fusing ranked lists: reciprocal rank, or a convex combination of normalised scores (hybrid recall)."""

from __future__ import annotations

from collections.abc import Sequence

from ..config import RecallConfig


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RecallConfig.rrf_k) -> dict[str, float]:
    """Each id's fused relevance in [0, 1]: the sum of 1/(k + rank) over the lists, divided by the best possible
    (first in every list), so an id first in every list scores 1. ``k``: ``RecallConfig.rrf_k``."""
    if not rankings:
        return {}
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + 1.0 / (k + rank)
    best = len(rankings) / (k + 1)
    return {item: value / best for item, value in fused.items()}


def convex_fusion(similarity: dict[str, float], keyword: dict[str, float], vector_weight: float) -> dict[str, float]:
    """Each id's relevance in [0, 1]: vector_weight x (cosine / best cosine) + (1 - vector_weight) x
    (BM25 / best BM25), negative cosines counting as 0 and ids missing from a list scoring 0 there."""
    best_similarity = max((max(0.0, v) for v in similarity.values()), default=0.0) or 1.0
    best_keyword = max(keyword.values(), default=0.0) or 1.0
    ids = dict.fromkeys([*similarity, *keyword])
    return {
        i: vector_weight * max(0.0, similarity.get(i, 0.0)) / best_similarity
        + (1.0 - vector_weight) * max(0.0, keyword.get(i, 0.0)) / best_keyword
        for i in ids
    }
