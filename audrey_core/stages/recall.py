"""RECALL: keyword and KNN candidates from the store, fused and re-ranked by relevance x confidence (seed 002 §4,
seed 000 §3, seed 001 hybrid search).

The store returns a candidate pool (``candidate_multiplier`` x limit, wider with filters) with every filter applied
inside the KNN query; confidence is computed here on that small pool. When the confidence floor drops too many
candidates and the store may hold more, the pool is widened and the query repeated.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np

from ..config import MEMORY_TYPES, RECALLABLE_STATES, SOURCES, STATES, ConfidenceConfig, RecallConfig
from ..errors import InvalidInputError, StorageError
from ..models import Contradiction, Counterclaim, Episode, Memory, Procedure, Provenance, RecallResult, Semantic
from ..rules.confidence import ConfidenceBreakdown, confidence
from ..rules.filters import parse_filter
from ..rules.inputs import check_int
from ..rules.keywords import convex_fusion, reciprocal_rank_fusion
from ..rules.ownership import Tenant
from ..storage import KeywordHit, Storage, VectorFilter, VectorHit
from ..timeutil import days_between
from .encode import check_scope, check_tags

SELF_GENERATED_SOURCES = frozenset({"inference", "model-generated"})
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="audrey-recall")


MODES = ("hybrid", "vector", "keyword")


@dataclass(frozen=True)
class RecallOptions:
    """Checked recall arguments."""

    limit: int
    min_confidence: float
    where: VectorFilter
    include_provenance: bool
    mode: str = "hybrid"


def check_options(
    *,
    agent: str | None,
    limit: Any = 10,
    min_confidence: Any = 0.0,
    types: Any = None,
    tags: Any = None,
    sources: Any = None,
    include_dormant: Any = False,
    include_provenance: Any = False,
    states: Any = None,
    filter: Any = None,
    scope: Any = None,
    scope_prefix: Any = None,
    scoped: Any = False,
    mode: Any = "hybrid",
    time_range: Any = None,
    as_of: Any = None,
    include_superseded: Any = False,
) -> RecallOptions:
    """Validate recall's arguments; raise :class:`InvalidInputError` saying what is wrong. ``as_of`` (an aware
    datetime) answers what was believed true then: memories stored by then whose validity covers it, superseded
    ones included; ``include_superseded`` adds replaced memories to the default states."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError(f"limit must be a positive int, got {limit!r}")
    check_int("limit", limit)
    if (
        isinstance(min_confidence, bool)
        or not isinstance(min_confidence, (int, float))
        or not (0.0 <= min_confidence <= 1.0)
    ):
        raise InvalidInputError(f"min_confidence must be a number in [0, 1], got {min_confidence!r}")
    chosen_states = _choice("states", states, STATES) or RECALLABLE_STATES
    if include_dormant and "dormant" not in chosen_states:
        chosen_states = (*chosen_states, "dormant")
    if as_of is not None and (not isinstance(as_of, datetime) or as_of.tzinfo is None):
        raise InvalidInputError(f"as_of must be a timezone-aware datetime, got {as_of!r}")
    if (include_superseded or as_of is not None) and states is None and "superseded" not in chosen_states:
        chosen_states = (*chosen_states, "superseded")
    where = VectorFilter(
        agent=agent,
        memory_types=_choice("types", types, MEMORY_TYPES),
        states=chosen_states,
        sources=_choice("sources", sources, SOURCES),
        tags=check_tags(tags) or None if tags is not None else None,
        metadata=parse_filter(filter),
        scope=check_scope(scope) if scope is not None else None,
        scope_prefix=check_scope(scope_prefix) or None if scope_prefix is not None else None,
        scoped=bool(scoped),
        time_range=_check_time_range(time_range),
        as_of=as_of,
    )
    if mode not in MODES:
        raise InvalidInputError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    return RecallOptions(int(limit), float(min_confidence), where, bool(include_provenance), mode)


def _check_time_range(value: Any) -> tuple[datetime | None, datetime | None] | None:
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or len(value) != 2 or value == (None, None):
        raise InvalidInputError("time_range must be (start, end) with aware datetimes; either may be None")
    for moment in value:
        if moment is not None and (not isinstance(moment, datetime) or moment.tzinfo is None):
            raise InvalidInputError(f"time_range bounds must be timezone-aware datetimes, got {moment!r}")
    start, end = value
    if start is not None and end is not None and start > end:
        raise InvalidInputError("time_range starts after it ends")
    return (start, end)


def _choice(name: str, values: Any, allowed: Sequence[str]) -> tuple[str, ...] | None:
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"{name} must be a list, e.g. {name}=[{allowed[0]!r}]; got {values!r}")
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise InvalidInputError(f"unknown {name} {unknown}; use any of: {', '.join(allowed)}")
    if not values:
        raise InvalidInputError(f"{name} is empty; pass None to allow every value")
    return tuple(dict.fromkeys(values))


def memory_confidence(memory: Memory, now: datetime, cfg: ConfidenceConfig) -> ConfidenceBreakdown:
    """The confidence of a stored memory at ``now``."""
    reinforced = memory.last_reinforced_at or memory.created_at
    return confidence(
        memory_type=memory.memory_type,
        source=memory.source,
        source_reliability=memory.source_reliability,
        supporting=memory.evidence_count,
        contradicting=memory.challenge_count,
        days_since_reinforced=days_between(reinforced, now),
        salience=memory.salience,
        retrieval_count=memory.retrieval_count,
        days_since_retrieval=days_between(memory.last_retrieved_at, now) if memory.last_retrieved_at else None,
        cfg=cfg,
    )


@dataclass(frozen=True)
class Ranked:
    """A candidate after scoring. ``relevance`` is the fused keyword + vector relevance in hybrid and keyword modes
    (``None`` in vector mode, where relevance is the cosine similarity)."""

    memory: Memory
    similarity: float
    breakdown: ConfidenceBreakdown
    relevance: float | None = None
    influence: float = 1.0  # RecallConfig.confidence_influence
    type_weight: float = 1.0  # RecallConfig.type_weights[memory type]
    vector_row: int | None = None  # the memory's nearest vector (chunk), when the vector search found it
    chunk: str | None = None  # that chunk's text, when the memory is long enough to have several

    @property
    def score(self) -> float:
        """relevance (or similarity) x (1 - influence + influence x confidence) x type weight."""
        base = self.similarity if self.relevance is None else self.relevance
        return base * (1.0 - self.influence + self.influence * self.breakdown.value) * self.type_weight


def _ranked(
    memory: Memory,
    similarity: float,
    breakdown: ConfidenceBreakdown,
    relevance: float | None,
    cfg: RecallConfig,
    vector_row: int | None = None,
) -> Ranked:
    return Ranked(
        memory,
        similarity,
        breakdown,
        relevance,
        cfg.confidence_influence,
        cfg.type_weights[memory.memory_type],
        vector_row,
    )


def with_chunks(storage: Storage, ranked: list[Ranked]) -> list[Ranked]:
    """Attach the text of each result's best chunk, for memories long enough to have been split."""
    spans = storage.chunk_spans([r.vector_row for r in ranked if r.vector_row is not None])
    return [
        replace(r, chunk=r.memory.content[slice(*spans[r.vector_row])]) if r.vector_row in spans else r for r in ranked
    ]


def ranking_key(item: Ranked) -> tuple[float, float, str]:
    """Best first: higher score, then higher similarity, then id (so ties order the same everywhere)."""
    return (-item.score, -item.similarity, item.memory.id)


def pool_size(options: RecallOptions, cfg: RecallConfig) -> int:
    """How many KNN candidates to fetch before re-ranking."""
    narrowed = options.where.is_narrowed or options.min_confidence > 0
    multiplier = cfg.filtered_candidate_multiplier if narrowed else cfg.candidate_multiplier
    return min(cfg.max_candidates, max(cfg.min_candidates, options.limit * multiplier))


def rank(
    storage: Storage,
    vector: np.ndarray | None,
    options: RecallOptions,
    *,
    now: datetime,
    confidence_cfg: ConfidenceConfig,
    recall_cfg: RecallConfig,
    terms: Sequence[str] = (),
) -> list[Ranked]:
    """The best ``options.limit`` memories, best first: by vector, by keyword ``terms``, or both fused.

    Without vector search (sqlite-vec unavailable) hybrid recall is keyword recall and vector recall an error."""
    unavailable = storage.vector_search_error()
    if unavailable is not None:
        if options.mode == "vector":
            raise StorageError(f"vector recall is unavailable: {unavailable}; use mode='hybrid' or 'keyword'")
        vector = None
    if options.mode == "vector" or (options.mode == "hybrid" and not terms):
        if vector is None:
            raise InvalidInputError("vector recall needs a query vector")
        return _rank_vector(storage, vector, options, now, confidence_cfg, recall_cfg)
    k = pool_size(options, recall_cfg)
    # inside a transaction the work stays on this thread
    parallel = storage.overlap_searches() and not storage.held_by_this_thread()
    while True:
        if options.mode == "hybrid" and vector is not None and not parallel:
            vector_hits = storage.knn(vector, k, options.where)
            keyword_hits = storage.keyword_search(terms, k, options.where)
        elif options.mode == "hybrid" and vector is not None:
            # The two searches are independent reads: run the vector scan beside the keyword search.
            pending = _POOL.submit(storage.knn, vector, k, options.where)
            keyword_hits = storage.keyword_search(terms, k, options.where)
            vector_hits = pending.result()
        else:
            vector_hits, keyword_hits = [], storage.keyword_search(terms, k, options.where)
        ranked = fuse_hits(
            storage,
            vector,
            vector_hits,
            keyword_hits,
            options.min_confidence,
            now,
            confidence_cfg,
            recall_cfg,
            options.limit,
        )
        exhausted = (len(vector_hits) < k and len(keyword_hits) < k) or k >= recall_cfg.max_candidates
        if len(ranked) >= options.limit or exhausted:
            return with_chunks(storage, ranked[: options.limit])
        k = min(recall_cfg.max_candidates, k * 4)


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
) -> list[Ranked]:
    """Fuse the two candidate lists (convex combination of normalised scores, or reciprocal rank), then weigh each
    memory by its confidence, best first. With ``limit``, candidates are fetched in order of relevance only until
    no later one can reach the ``limit`` best (confidence never lifts a score above relevance x the largest type
    weight): the same first ``limit``, without reading and scoring every candidate."""
    types = {h.memory_id: h.memory_type for h in (*vector_hits, *keyword_hits)}
    similarity = {h.memory_id: h.similarity for h in vector_hits}
    missing = [i for i in types if i not in similarity]
    if missing and vector is not None:  # keyword-only finds get their cosine similarity too
        found = storage.get_vectors(missing)
        if found:
            stored = np.stack(list(found.values()))
            cosines = stored @ (vector / np.linalg.norm(vector)) / np.linalg.norm(stored, axis=1)
            similarity.update(zip(found, cosines.tolist()))
    if recall_cfg.fusion == "rrf" or vector is None:
        rankings = [[h.memory_id for h in vector_hits], [h.memory_id for h in keyword_hits]]
        relevance = reciprocal_rank_fusion([r for r in rankings if r])
    else:
        relevance = convex_fusion(similarity, {h.memory_id: h.score for h in keyword_hits}, recall_cfg.vector_weight)
    matched_words = {h.memory_id for h in keyword_hits}
    rows = {h.memory_id: h.vector_row for h in vector_hits}
    order = sorted(relevance.items(), key=lambda item: (-item[1], item[0]))
    ceiling = max(recall_cfg.type_weights.values())
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
            if memory is None:
                continue
            cosine = similarity.get(memory_id, 0.0)
            if memory_id not in matched_words and cosine < recall_cfg.similarity_floors[memory.memory_type]:
                continue
            breakdown = memory_confidence(memory, now, cfg)
            if breakdown.value >= min_confidence:
                ranked.append(_ranked(memory, cosine, breakdown, value, recall_cfg, rows.get(memory_id)))
        ranked.sort(key=ranking_key)
        start += step
        step = step if cut is None else cut
    return ranked


def _rank_vector(
    storage: Storage,
    vector: np.ndarray,
    options: RecallOptions,
    now: datetime,
    confidence_cfg: ConfidenceConfig,
    recall_cfg: RecallConfig,
) -> list[Ranked]:
    k = pool_size(options, recall_cfg)
    while True:
        hits = storage.knn(vector, k, options.where)
        ranked = score_hits(storage, hits, options.min_confidence, now, confidence_cfg, recall_cfg)
        exhausted = len(hits) < k or k >= recall_cfg.max_candidates
        if len(ranked) >= options.limit or exhausted:
            return with_chunks(storage, ranked[: options.limit])
        k = min(recall_cfg.max_candidates, k * 4)


def score_hits(
    storage: Storage,
    hits: Sequence[VectorHit],
    min_confidence: float,
    now: datetime,
    cfg: ConfidenceConfig,
    recall_cfg: RecallConfig | None = None,
) -> list[Ranked]:
    """Fetch the hit memories, score them, drop those under the confidence or similarity floor, sort best first."""
    recall_cfg = recall_cfg or RecallConfig()
    memories = storage.get_memories([h.memory_id for h in hits], {h.memory_id: h.memory_type for h in hits})
    ranked = []
    for hit in hits:
        memory = memories.get(hit.memory_id)
        if memory is None:  # removed between the KNN and the fetch
            continue
        if hit.similarity < recall_cfg.similarity_floors[memory.memory_type]:
            continue
        breakdown = memory_confidence(memory, now, cfg)
        if breakdown.value >= min_confidence:
            ranked.append(_ranked(memory, hit.similarity, breakdown, None, recall_cfg, hit.vector_row))
    ranked.sort(key=ranking_key)
    return ranked


def provenance(storage: Storage, memory: Memory, owner: Tenant | None = None) -> Provenance:
    """Evidence episodes of a semantic / procedural memory, causes of an episode; for every memory, what it replaced
    and what replaced it (of what ``owner``, when given, may see)."""
    replaced = tuple(m for m in storage.supersedes_chain(memory.id) if owner is None or owner.owns(m))
    if isinstance(memory, (Semantic, Procedure)):
        found = storage.get_memories(memory.evidence_episode_ids)
        evidence = tuple(found[i] for i in memory.evidence_episode_ids if i in found)
        return Provenance(evidence=evidence, supersedes=replaced, superseded_by=memory.superseded_by)
    assert isinstance(memory, Episode)
    return Provenance(
        supersedes=replaced,
        superseded_by=memory.superseded_by,
        causal_trigger=memory.causal_trigger,
        causal_consequence=memory.causal_consequence,
    )


COUNTERCLAIM_STATES = ("open", "reopened")


def counterclaims(storage: Storage, memories: Sequence[Memory], owner: Tenant) -> dict[str, tuple[Counterclaim, ...]]:
    """For each memory that is one side of an open contradiction, the other sides its owner may see."""
    ids = [m.id for m in memories]
    if not ids:
        return {}
    pairs = []
    for mine, theirs in (("claim_a_id", "claim_b_id"), ("claim_b_id", "claim_a_id")):
        for c in storage.find_records(Contradiction, **{mine: ids, "state": list(COUNTERCLAIM_STATES)}):
            pairs.append((getattr(c, mine), getattr(c, theirs), c.id))
    others = storage.get_memories({other for _, other, _ in pairs}, owner=owner)
    found: dict[str, list[Counterclaim]] = {}
    for memory_id, other_id, contradiction_id in pairs:
        other = others.get(other_id)
        if other is not None:
            claim = Counterclaim(contradiction_id, other.id, other.content, other.source, other.state)
            found.setdefault(memory_id, []).append(claim)
    return {memory_id: tuple(claims) for memory_id, claims in found.items()}


def to_result(item: Ranked, prov: Provenance | None, against: tuple[Counterclaim, ...] = ()) -> RecallResult:
    """The public record for a ranked memory (``against``: the other sides of its open contradictions)."""
    m = item.memory
    return RecallResult(
        id=m.id,
        content=m.content,
        memory_type=m.memory_type,
        similarity=item.similarity,
        confidence=item.breakdown.value,
        score=item.score,
        state=m.state,
        source=m.source,
        created_at=m.created_at,
        tags=m.tags,
        metadata=m.metadata,
        agent=m.agent,
        salience=m.salience,
        breakdown=item.breakdown,
        provenance=prov,
        scope=m.scope,
        key=m.key,
        relevance=item.similarity if item.relevance is None else item.relevance,
        event_time=m.event_time,
        chunk=item.chunk,
        superseded_by=m.superseded_by,
        valid_until=m.valid_until,
        counterclaims=against,
    )


def is_self_citation(memory: Memory, origins: Sequence[tuple[str, str]], retriever: str | None) -> bool:
    """True when every piece of the memory's evidence is the retrieving agent's own inference or generation.

    Such a memory gains nothing from being retrieved by that agent (seed 002: self-citation guard).
    """
    chain = list(origins) or [(memory.source, memory.agent)]
    return all(source in SELF_GENERATED_SOURCES and agent == retriever for source, agent in chain)


def reinforce_retrieved(
    storage: Storage, memories: Sequence[Memory], retriever: str | None, now: datetime
) -> list[str]:
    """Record retrieval of the semantic / procedural memories that pass the self-citation guard; return their ids."""
    derived = [m for m in memories if m.memory_type in ("semantic", "procedural")]
    if not derived:
        return []
    origins = storage.evidence_origins([m.id for m in derived])
    ids = [m.id for m in derived if not is_self_citation(m, origins.get(m.id, []), retriever)]
    with storage.transaction():
        storage.record_retrievals(ids, now)
        # Recall reactivates: a reinforced dormant memory wakes in the state it fell asleep from.
        asleep = {m.id: m.prior_state or "active" for m in derived if m.id in ids and m.state == "dormant"}
        storage.set_states(asleep)
    return ids


__all__ = ["Ranked", "RecallOptions", "check_options", "rank", "reinforce_retrieved", "to_result"]
