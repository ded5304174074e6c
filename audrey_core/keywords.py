"""Query terms for keyword (full-text) search, and reciprocal-rank fusion of ranked lists."""

from __future__ import annotations

import re
from collections.abc import Sequence

# Words that carry no topic in a question; left out of the keyword query (BM25 would weigh them down anyway).
QUERY_STOPWORDS = frozenset(
    "a an and are as at be been being but by can could did do does doing for from had has have how i if in into is "
    "it its me my of on or our she he her his they them their that the this these those to was we were what when "
    "where which who whom why will with would you your about after before any some than then there so not no "
    "yes just also very much many more most".split()
)
_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TERMS = 32
RRF_K = 60  # the constant of reciprocal-rank fusion (Cormack et al. 2009)


def query_terms(text: str) -> list[str]:
    """Distinct lowercase words of ``text`` worth searching for, in order (at most 32)."""
    terms = [w for w in _WORD.findall(text.lower()) if w not in QUERY_STOPWORDS]
    return list(dict.fromkeys(terms))[:MAX_TERMS]


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """Each id's fused relevance in [0, 1]: the sum of 1/(k + rank) over the lists, divided by the best possible
    (first in every list), so an id first in every list scores 1."""
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
