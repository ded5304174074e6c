"""Every tunable number, as frozen dataclasses holding the seed's defaults.

Change a value with ``dataclasses.replace``::

    cfg = AudreyConfig(confidence=replace(ConfidenceConfig(), model_generated_cap=0.5))
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .errors import ConfigurationError

SOURCES: tuple[str, ...] = ("direct-observation", "told-by-user", "tool-result", "inference", "model-generated")
MEMORY_TYPES: tuple[str, ...] = ("episodic", "semantic", "procedural")
STATES: tuple[str, ...] = ("active", "disputed", "superseded", "context_dependent", "dormant", "rolled_back")
# States recall searches unless told otherwise: what the memory currently holds to be (possibly) true.
RECALLABLE_STATES: tuple[str, ...] = ("active", "disputed", "context_dependent")


def _frozen(mapping: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class ConfidenceConfig:
    """The compositional confidence C = w_s*S + w_e*E + w_r*R + w_ret*Ret (seed 002) and its parameters."""

    weight_source: float = 0.30
    weight_evidence: float = 0.35
    weight_recency: float = 0.20
    weight_retrieval: float = 0.15
    source_reliability: Mapping[str, float] = field(
        default_factory=lambda: _frozen(
            {
                "direct-observation": 0.95,
                "told-by-user": 0.90,
                "tool-result": 0.85,
                "inference": 0.60,
                "model-generated": 0.40,
            }
        )
    )
    half_life_days: Mapping[str, float] = field(
        default_factory=lambda: _frozen({"episodic": 7.0, "semantic": 30.0, "procedural": 90.0})
    )
    # Ret = min(1, retrieval_coefficient * ln(1 + n) * exp(-lambda_ret * days since last retrieval)),
    # lambda_ret = ln 2 / retrieval_half_life_days (the seed leaves lambda_ret open; 14 days is our default).
    retrieval_coefficient: float = 0.3
    retrieval_half_life_days: float = 14.0
    # Salience stretches the recency half-life: factor = 1 + salience_retention * (salience - 0.5),
    # so the default salience 0.5 keeps the nominal half-life and salient memories fade slower (the amygdala).
    salience_retention: float = 1.0
    model_generated_cap: float = 0.6

    def __post_init__(self) -> None:
        weights = (self.weight_source, self.weight_evidence, self.weight_recency, self.weight_retrieval)
        if any(not math.isfinite(w) or w < 0 for w in weights):
            raise ConfigurationError(f"confidence weights must be finite and >= 0, got {weights}")
        if not math.isclose(sum(weights), 1.0, abs_tol=1e-6):
            raise ConfigurationError(f"confidence weights must sum to 1.0, got {sum(weights):.4f}")
        missing = set(SOURCES) - set(self.source_reliability)
        if missing:
            raise ConfigurationError(f"source_reliability lacks {sorted(missing)}")
        if any(not 0.0 <= v <= 1.0 for v in self.source_reliability.values()):
            raise ConfigurationError("source_reliability values must lie in [0, 1]")
        if set(self.half_life_days) != set(MEMORY_TYPES) or any(v <= 0 for v in self.half_life_days.values()):
            raise ConfigurationError(f"half_life_days needs a positive value for each of {MEMORY_TYPES}")
        if self.retrieval_half_life_days <= 0:
            raise ConfigurationError("retrieval_half_life_days must be positive")
        if not 0.0 <= self.model_generated_cap <= 1.0:
            raise ConfigurationError("model_generated_cap must lie in [0, 1]")
        if not 0.0 <= self.salience_retention < 2.0:
            raise ConfigurationError("salience_retention must lie in [0, 2) so half-lives stay positive")


@dataclass(frozen=True)
class RecallConfig:
    """How recall gathers candidates before re-ranking them by similarity x confidence (seed 000 §3)."""

    candidate_multiplier: int = 3
    # With filters or a confidence floor more candidates are dropped after scoring, so start from a wider pool.
    filtered_candidate_multiplier: int = 6
    min_candidates: int = 20
    max_candidates: int = 4096  # sqlite-vec's largest k
    query_cache_size: int = 1024

    def __post_init__(self) -> None:
        if min(self.candidate_multiplier, self.filtered_candidate_multiplier, self.min_candidates) < 1:
            raise ConfigurationError("recall multipliers and min_candidates must be >= 1")
        if not 1 <= self.max_candidates <= 4096:
            raise ConfigurationError("max_candidates must lie in [1, 4096] (sqlite-vec's limit on k)")
        if self.query_cache_size < 0:
            raise ConfigurationError("query_cache_size must be >= 0")


@dataclass(frozen=True)
class DecayConfig:
    """When a memory fades to dormant (never deleted)."""

    dormant_threshold: float = 0.1


@dataclass(frozen=True)
class AudreyConfig:
    """All of Audrey's settings; every part has the seed's defaults."""

    confidence: ConfidenceConfig = field(default_factory=ConfidenceConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    decay: DecayConfig = field(default_factory=DecayConfig)
