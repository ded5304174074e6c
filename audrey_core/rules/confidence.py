"""The compositional confidence of seed 002, as pure functions (no database, no clock).

    C = w_s * S + w_e * E + w_r * R + w_ret * Ret

S is the source's reliability, E the share of evidence that agrees, R an exponential recency decay with a half-life
per memory type (stretched by salience), and Ret a retrieval-reinforcement term. Memories whose source is
``model-generated`` never exceed ``model_generated_cap``, whatever raises the other terms.
"""

from __future__ import annotations

import math
from datetime import datetime

from ..config import ConfidenceConfig
from ..models import ConfidenceBreakdown, Memory
from ..timeutil import days_between

LN2 = math.log(2.0)


def evidence_agreement(supporting: int, contradicting: int) -> float:
    """E = supporting / (supporting + contradicting); a memory with no evidence either way counts as agreeing."""
    total = supporting + contradicting
    return 1.0 if total <= 0 else max(0.0, supporting) / total


def effective_half_life(memory_type: str, salience: float, cfg: ConfidenceConfig) -> float:
    """The memory type's half-life in days, stretched or shrunk by salience (0.5 keeps it as configured)."""
    return cfg.half_life_days[memory_type] * (1.0 + cfg.salience_retention * (salience - 0.5))


def recency(memory_type: str, days_since: float, salience: float, cfg: ConfidenceConfig) -> float:
    """R = exp(-ln2 / half_life * t): 1.0 when fresh, 0.5 after one (salience-adjusted) half-life."""
    return math.exp(-LN2 / effective_half_life(memory_type, salience, cfg) * max(0.0, days_since))


def retrieval_reinforcement(retrieval_count: int, days_since_retrieval: float | None, cfg: ConfidenceConfig) -> float:
    """Ret = min(1, c * ln(1 + n) * exp(-lambda_ret * t)); zero for a memory never retrieved."""
    if retrieval_count <= 0 or days_since_retrieval is None:
        return 0.0
    lam = LN2 / cfg.retrieval_half_life_days
    value = cfg.retrieval_coefficient * math.log1p(retrieval_count) * math.exp(-lam * max(0.0, days_since_retrieval))
    return min(1.0, value)


def confidence(
    *,
    memory_type: str,
    source: str,
    source_reliability: float,
    supporting: int,
    contradicting: int,
    days_since_reinforced: float,
    salience: float,
    retrieval_count: int,
    days_since_retrieval: float | None,
    cfg: ConfidenceConfig,
) -> ConfidenceBreakdown:
    """Combine the four terms into one confidence in [0, 1], applying the model-generated ceiling."""
    s = source_reliability
    e = evidence_agreement(supporting, contradicting)
    r = recency(memory_type, days_since_reinforced, salience, cfg)
    ret = retrieval_reinforcement(retrieval_count, days_since_retrieval, cfg)
    value = cfg.weight_source * s + cfg.weight_evidence * e + cfg.weight_recency * r + cfg.weight_retrieval * ret
    value = min(1.0, max(0.0, value))
    capped = source == "model-generated" and value > cfg.model_generated_cap
    if capped:
        value = cfg.model_generated_cap
    return ConfidenceBreakdown(source=s, evidence=e, recency=r, retrieval=ret, value=value, capped=capped)


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
