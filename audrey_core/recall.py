"""RECALL: KNN candidates from the store, re-ranked by similarity x confidence (seed 002 §4, seed 000 §3).

The store returns a candidate pool (``candidate_multiplier`` x limit, wider with filters) with every filter applied
inside the KNN query; confidence is computed here on that small pool. When the confidence floor drops too many
candidates and the store may hold more, the pool is widened and the query repeated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from .confidence import ConfidenceBreakdown, confidence
from .config import MEMORY_TYPES, RECALLABLE_STATES, SOURCES, STATES, ConfidenceConfig, RecallConfig
from .encode import check_scope, check_tags
from .errors import InvalidInputError
from .filters import parse_filter
from .models import Episode, Memory, Procedure, Provenance, RecallResult, Semantic
from .storage import Storage, VectorFilter, VectorHit
from .timeutil import days_between

SELF_GENERATED_SOURCES = frozenset({"inference", "model-generated"})


@dataclass(frozen=True)
class RecallOptions:
    """Checked recall arguments."""

    limit: int
    min_confidence: float
    where: VectorFilter
    include_provenance: bool


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
) -> RecallOptions:
    """Validate recall's arguments; raise :class:`InvalidInputError` saying what is wrong."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError(f"limit must be a positive int, got {limit!r}")
    if (
        isinstance(min_confidence, bool)
        or not isinstance(min_confidence, (int, float))
        or not (0.0 <= min_confidence <= 1.0)
    ):
        raise InvalidInputError(f"min_confidence must be a number in [0, 1], got {min_confidence!r}")
    chosen_states = _choice("states", states, STATES) or RECALLABLE_STATES
    if include_dormant and "dormant" not in chosen_states:
        chosen_states = (*chosen_states, "dormant")
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
    )
    return RecallOptions(int(limit), float(min_confidence), where, bool(include_provenance))


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
    """A candidate after scoring."""

    memory: Memory
    similarity: float
    breakdown: ConfidenceBreakdown

    @property
    def score(self) -> float:
        """similarity x confidence."""
        return self.similarity * self.breakdown.value


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
    vector: np.ndarray,
    options: RecallOptions,
    *,
    now: datetime,
    confidence_cfg: ConfidenceConfig,
    recall_cfg: RecallConfig,
) -> list[Ranked]:
    """The best ``options.limit`` memories for ``vector``, best first."""
    k = pool_size(options, recall_cfg)
    while True:
        hits = storage.knn(vector, k, options.where)
        ranked = score_hits(storage, hits, options.min_confidence, now, confidence_cfg)
        exhausted = len(hits) < k or k >= recall_cfg.max_candidates
        if len(ranked) >= options.limit or exhausted:
            return ranked[: options.limit]
        k = min(recall_cfg.max_candidates, k * 4)


def score_hits(
    storage: Storage, hits: Sequence[VectorHit], min_confidence: float, now: datetime, cfg: ConfidenceConfig
) -> list[Ranked]:
    """Fetch the hit memories, score them, drop those under the floor, and sort best first."""
    memories = storage.get_memories([h.memory_id for h in hits], {h.memory_id: h.memory_type for h in hits})
    ranked = []
    for hit in hits:
        memory = memories.get(hit.memory_id)
        if memory is None:  # removed between the KNN and the fetch
            continue
        breakdown = memory_confidence(memory, now, cfg)
        if breakdown.value >= min_confidence:
            ranked.append(Ranked(memory, hit.similarity, breakdown))
    ranked.sort(key=ranking_key)
    return ranked


def provenance(storage: Storage, memory: Memory) -> Provenance:
    """Evidence episodes of a semantic / procedural memory; supersedes chain and causes of an episode."""
    if isinstance(memory, (Semantic, Procedure)):
        found = storage.get_memories(memory.evidence_episode_ids)
        return Provenance(evidence=tuple(found[i] for i in memory.evidence_episode_ids if i in found))
    assert isinstance(memory, Episode)
    return Provenance(
        supersedes=tuple(storage.supersedes_chain(memory.id)),
        superseded_by=memory.superseded_by,
        causal_trigger=memory.causal_trigger,
        causal_consequence=memory.causal_consequence,
    )


def to_result(item: Ranked, prov: Provenance | None) -> RecallResult:
    """The public record for a ranked memory."""
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
