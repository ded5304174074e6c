"""Every tunable number of the memory: frozen dataclasses with the seed's defaults (the indexes' settings are in
:mod:`audrey_core.index_settings`)

Change a value with ``dataclasses.replace``::

    cfg = AudreyConfig(confidence=replace(ConfidenceConfig(), model_generated_cap=0.5))
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, get_args

from .errors import ConfigurationError
from .index_settings import IndexConfig
from .states import MEMORY_STATES

Source = Literal["direct-observation", "told-by-user", "tool-result", "inference", "model-generated"]
MemoryType = Literal["episodic", "semantic", "procedural"]
SOURCES: tuple[Source, ...] = get_args(Source)
MEMORY_TYPES: tuple[MemoryType, ...] = get_args(MemoryType)
STATES: tuple[str, ...] = MEMORY_STATES  # the states of a memory (audrey_core.states has the transitions)


def _frozen(mapping: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class ConfidenceConfig:
    """The compositional confidence C = w_s*S + w_e*E + w_r*R + w_ret*Ret (seed 002) and its parameters."""

    weight_source: float = 0.30
    """The weight w_s of source reliability S (the four weights sum to 1)."""
    weight_evidence: float = 0.35
    """The weight w_e of evidence agreement E: supporting against contradicting evidence."""
    weight_recency: float = 0.20
    """The weight w_r of recency R: exponential decay since the memory was last reinforced."""
    weight_retrieval: float = 0.15
    """The weight w_ret of retrieval reinforcement Ret (principles and procedures recalled and used)."""
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
    """S for each source: how far a claim from it is trusted before any evidence."""
    half_life_days: Mapping[str, float] = field(
        default_factory=lambda: _frozen({"episodic": 7.0, "semantic": 30.0, "procedural": 90.0})
    )
    """The recency half-life of each memory type in days: episodes fade in a week, principles in a month."""
    retrieval_coefficient: float = 0.3
    """Ret = min(1, retrieval_coefficient * ln(1 + n) * exp(-lambda_ret * days since last retrieval)), lambda_ret = ln 2
    / retrieval_half_life_days (the seed leaves lambda_ret open; 14 days is our default)."""
    retrieval_half_life_days: float = 14.0
    """How fast the retrieval reinforcement fades once a memory is no longer recalled, in days."""
    salience_retention: float = 1.0
    """Salience stretches the recency half-life: factor = 1 + salience_retention * (salience - 0.5), so the default
    salience 0.5 keeps the nominal half-life and salient memories fade slower (the amygdala)."""
    model_generated_cap: float = 0.6
    """The highest confidence a model-generated memory can reach, whatever backs it."""

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
    """How recall gathers and fuses candidates before re-ranking them by relevance x confidence (seed 000 §3)."""

    candidate_multiplier: int = 3
    """Candidates each search gathers per result asked for (limit x this, at least min_candidates)."""
    filtered_candidate_multiplier: int = 6
    """With filters or a confidence floor more candidates are dropped after scoring, so start from a wider pool."""
    min_candidates: int = 20
    """The fewest candidates each search gathers, however small the limit."""
    max_candidates: int = 4096
    """sqlite-vec's largest k"""
    query_cache_size: int = 1024
    """Query embeddings kept per instance (0: none), so a repeated question is not embedded again."""
    confidence_influence: float = 1.0
    """How much confidence weighs on relevance: score = relevance x (1 - w + w x confidence). 1 is the seed's plain
    product; lower values let a relevant but old or weakly-sourced memory still rank."""
    fusion: str = "convex"
    """Hybrid fusion: "convex" = vector_weight x (cosine / best cosine) + (1 - vector_weight) x (BM25 / best BM25) over
    the candidates; "rrf" = reciprocal-rank fusion. Measured with benchmarks/retrieval.py (see README)."""
    vector_weight: float = 0.7
    """In convex fusion, the share of the vector side (the keyword side has the rest)."""
    rrf_k: int = 60
    """the constant of reciprocal-rank fusion (Cormack et al. 2009)"""
    widen_factor: int = 4
    """When the confidence floor or the filters leave fewer than `limit`, the pool grows by this factor and the searches
    run again (until max_candidates or the store runs out)."""
    type_weights: Mapping[str, float] = field(
        default_factory=lambda: _frozen({"episodic": 1.0, "semantic": 1.0, "procedural": 1.0})
    )
    """Per memory type (seed 004): a multiplier on the score (e.g. favour semantic principles), and a floor on cosine
    similarity below which a candidate found only by the vector search is not returned."""
    similarity_floors: Mapping[str, float] = field(
        default_factory=lambda: _frozen({"episodic": -1.0, "semantic": -1.0, "procedural": -1.0})  # no floor
    )
    """The cosine floor of each memory type for candidates the vector search alone found (-1: no floor)."""
    turn_context_before: int = 2
    """Conversation turns (see rules/turns.py): a turn's vector relevance is that of its own vector plus those of the
    turns this many places before and after it in its session, its own weighing this many times one neighbour's."""
    turn_context_after: int = 1
    """Turns after a turn whose vectors join its relevance (see turn_context_before)."""
    turn_self_weight: float = 2.0
    """How many neighbours' weights a turn's own vector counts for in its context relevance."""
    speaker_boost: float = 0.1
    """When a question names exactly one speaker of the candidates ("What did Alice paint?"), that speaker's turns gain
    this share of relevance."""
    time_boost: float = 0.25
    """Time in a question (see stages/recall_time.py): memories inside a vague span it names ("last week", "in June")
    gain this share of relevance; "the first time" / "most recently" favour the earliest / latest by up to this."""
    date_boost: float = 0.5
    """A calendar date, month or year in a question ("on 9 November, 2022", "in May 2023"): memories dated inside it
    gain this share of relevance (nothing outside is dropped: the answer told days later still comes back)."""
    order_boost: float = 0.15
    """How much "the first time" / "most recently" in a question favour the earliest / latest memories."""
    session_spread: float = 0.8
    """recall(spread=True) (or "auto", for a question asking for several things: "What books has she read?") spreads the
    top k over conversations: each further result from a session already in it counts this many times less."""

    def __post_init__(self) -> None:
        if min(self.candidate_multiplier, self.filtered_candidate_multiplier, self.min_candidates) < 1:
            raise ConfigurationError("recall multipliers and min_candidates must be >= 1")
        if not 1 <= self.max_candidates <= 4096:
            raise ConfigurationError("max_candidates must lie in [1, 4096] (sqlite-vec's limit on k)")
        if self.query_cache_size < 0:
            raise ConfigurationError("query_cache_size must be >= 0")
        if not 0.0 <= self.confidence_influence <= 1.0:
            raise ConfigurationError("confidence_influence must lie in [0, 1]")
        if self.fusion not in ("convex", "rrf"):
            raise ConfigurationError(f"fusion must be 'convex' or 'rrf', got {self.fusion!r}")
        if not 0.0 <= self.vector_weight <= 1.0:
            raise ConfigurationError("vector_weight must lie in [0, 1]")
        if min(self.turn_context_before, self.turn_context_after) < 0 or not 0.0 < self.turn_self_weight <= 100.0:
            raise ConfigurationError("turn context windows must be >= 0 and turn_self_weight in (0, 100]")
        if not 0.0 < self.session_spread <= 1.0:
            raise ConfigurationError("session_spread must lie in (0, 1]")
        boosts = (self.speaker_boost, self.time_boost, self.date_boost, self.order_boost)
        if not all(0.0 <= b <= 10.0 for b in boosts):
            raise ConfigurationError("speaker_boost, time_boost, date_boost and order_boost must lie in [0, 10]")
        if self.rrf_k < 1 or self.widen_factor < 2:
            raise ConfigurationError("rrf_k must be >= 1 and widen_factor >= 2")
        for name, mapping, low, high in (
            ("type_weights", self.type_weights, 0.0, 10.0),
            ("similarity_floors", self.similarity_floors, -1.0, 1.0),
        ):
            if set(mapping) != set(MEMORY_TYPES) or any(not low <= v <= high for v in mapping.values()):
                raise ConfigurationError(f"{name} needs a value in [{low}, {high}] for each of {MEMORY_TYPES}")


@dataclass(frozen=True)
class ValidationConfig:
    """How each new episode is checked against the nearest memories of its scope (seed 002, pipeline step 2)."""

    reinforce_similarity: float = 0.85
    """at or above: same claim; reinforce unless it conflicts"""
    conflict_similarity: float = 0.60
    """at or above: check for conflict (the LLM below reinforce_similarity)"""
    update_similarity: float = 0.50
    """at or above, between claims from different times: check for an update"""
    update_neighbors: int = 5
    """nearest memories of the scope (any type) each new episode is compared with"""
    resolution_delta: float = 0.3
    """confidence gap above which the weaker claim becomes disputed"""
    reopen_min_sources: int = 3
    """independent supporting episodes (distinct source types) that reopen a dispute"""
    offline_rules: bool = True
    """Judge pairs with the offline English rules (:mod:`audrey_core.rules.english`) where no LLM does. They may flag
    (a dispute, a context pair) and reinforce restatements; they hide a memory only when the newer statement names
    the value it replaces as past. False: without an LLM, only ``supersedes=`` and claim keys change anything. They
    also keep an offline consolidation from joining episodes about different things."""
    judge_similarity: float = 0.40
    """With an LLM, claims from different times are judged down to this similarity (offline: update_similarity)."""
    background: bool = True
    """validate in a worker thread, and reinforce the principles a recall returned in another; False does both on
    the caller's thread (inside encode() and recall())"""
    batch_size: int = 256
    """Episodes the background validation takes at a time, at most (it takes what is queued): a bulk load's are
    searched together, one search of the index per batch (one-statement texts at 100k, ``benchmarks.bulk_load
    --plain``: 890/s load + wait taking 32, 995/s taking 256). With an LLM, their claims are read 32 to a call."""
    resume: bool = True
    """On open, validate the episodes earlier processes left waiting (they exited or died first). False: an instance
    that only reads and must write nothing (``audrey ui`` without ``--allow-writes``) leaves them to the next writer."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.judge_similarity <= self.update_similarity <= self.conflict_similarity <= 1.0:
            raise ConfigurationError("need 0 <= judge_similarity <= update_similarity <= conflict_similarity <= 1")
        if not self.conflict_similarity <= self.reinforce_similarity <= 1.0:
            raise ConfigurationError("need conflict_similarity <= reinforce_similarity <= 1")
        if self.update_neighbors < 1:
            raise ConfigurationError("update_neighbors must be >= 1")
        if not 0.0 <= self.resolution_delta <= 1.0 or min(self.reopen_min_sources, self.batch_size) < 1:
            raise ConfigurationError("resolution_delta must lie in [0, 1]; reopen_min_sources, batch_size >= 1")


@dataclass(frozen=True)
class ConsolidationConfig:
    """The sleep cycle: clustering, the adaptive minimum cluster size and the independent-evidence rule."""

    cluster_similarity: float = 0.80
    """The cosine two episodes need to join one cluster of a consolidation, as all-MiniLM-L6-v2 gives it; under
    another model it keeps its place between that model's baseline and 1 (:mod:`audrey_core.rules.calibration`)."""
    min_episodes: int = 3
    """The fewest episodes a cluster needs to become a principle (raised for a loose cluster: confidence_target)."""
    confidence_target: float = 2.0
    """Minimum size = max(min_episodes, ceil(cluster_variance * confidence_target)), where cluster_variance is the mean
    squared distance of the members' unit vectors from their centroid (0 for identical, up to 2)."""
    min_source_types: int = 2
    """The fewest distinct source types a cluster needs: one source repeating itself is not evidence."""
    max_neighbors: int = 32
    """k of each clustering KNN query"""
    ask_similarity: float = 0.25
    """With an LLM: two episodes from this cosine join when it says they report the same lesson, instead of at
    ``cluster_similarity`` (reports of one lesson in other words rarely reach 0.80 under a small model: median 0.44 in
    ``benchmarks.lessons``; and two failures of one tool can pass it). Calibrated like ``cluster_similarity``."""
    ask_neighbors: int = 12
    """With an LLM: of each episode's nearest episodes (of its scope, not yet consolidated), how many it is asked
    about; each pair is asked once, 16 pairs to a call."""
    interval_seconds: float | None = None
    """run consolidate() in the background this often"""
    episode_trigger: int | None = None
    """... or after this many new episodes"""

    def __post_init__(self) -> None:
        if not 0.0 < self.cluster_similarity <= 1.0:
            raise ConfigurationError("cluster_similarity must lie in (0, 1]")
        if self.min_episodes < 1 or self.min_source_types < 1 or self.max_neighbors < 2:
            raise ConfigurationError("min_episodes, min_source_types >= 1 and max_neighbors >= 2")
        if not 0.0 < self.ask_similarity <= self.cluster_similarity or self.ask_neighbors < 0:
            raise ConfigurationError("need 0 < ask_similarity <= cluster_similarity and ask_neighbors >= 0")
        if self.confidence_target < 0:
            raise ConfigurationError("confidence_target must be >= 0")
        if self.interval_seconds is not None and self.interval_seconds <= 0:
            raise ConfigurationError("interval_seconds must be positive (or None)")
        if self.episode_trigger is not None and self.episode_trigger < 1:
            raise ConfigurationError("episode_trigger must be >= 1 (or None)")


@dataclass(frozen=True)
class DecayConfig:
    """When a memory fades to dormant (never deleted): when confidence x recency < ``dormant_threshold``."""

    dormant_threshold: float = 0.1
    """A memory whose retention (confidence x recency) falls below this goes dormant at the next decay()."""


@dataclass(frozen=True)
class ExpiryConfig:
    """Memories given a time to live (encode's ``ttl=`` / ``expires_at=``) are hidden from every read once it runs
    out; a sweep deletes them: every ``sweep_interval_seconds`` in the background when set, or at
    :meth:`~audrey_core.Audrey.sweep_expired`."""

    sweep_interval_seconds: float | None = None
    """Sweep expired memories in the background this often (None: only when asked)."""

    def __post_init__(self) -> None:
        interval = self.sweep_interval_seconds
        if interval is not None and (
            isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0 < interval < float("inf")
        ):
            raise ConfigurationError(f"sweep_interval_seconds must be a positive number of seconds, got {interval!r}")


@dataclass(frozen=True)
class PostgresConfig:
    """A PostgreSQL store's connections (an SQLite store has none of these). The server's own settings, a statement
    timeout among them, go in the URL (see docs/postgres.md)."""

    pool_size: int = 4
    """Connections this instance keeps at most, opened as its threads need them (one at first). Each encode, recall,
    validation batch or consolidation step holds one while it runs; size it to the threads of a process that recall
    at once (the server's ``max_connections`` must cover every process's pool)."""
    replica_url: str | None = field(default=None, repr=False)
    """A read replica of the same database (a hot standby): recall's searches and reads go there, every write and
    validation's reads to the primary. A recall does not see what the replica has not replayed yet (its lag), even
    this instance's own latest writes."""

    def __post_init__(self) -> None:
        size = self.pool_size
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 1000:
            raise ConfigurationError(f"pool_size must be an int in [1, 1000], got {size!r}")
        url = self.replica_url
        if url is not None and not (isinstance(url, str) and url.startswith(("postgresql://", "postgres://"))):
            raise ConfigurationError("replica_url must be a postgresql:// URL")


@dataclass(frozen=True)
class AudreyConfig:
    """All of Audrey's settings; every part has the seed's defaults."""

    confidence: ConfidenceConfig = field(default_factory=ConfidenceConfig)
    """How confidence is composed."""
    recall: RecallConfig = field(default_factory=RecallConfig)
    """How recall gathers, fuses and ranks."""
    decay: DecayConfig = field(default_factory=DecayConfig)
    """When unused memories go dormant."""
    validation: ValidationConfig = field(default_factory=ValidationConfig)
    """How each new episode is checked against what is known."""
    consolidation: ConsolidationConfig = field(default_factory=ConsolidationConfig)
    """The sleep cycle."""
    expiry: ExpiryConfig = field(default_factory=ExpiryConfig)
    """When expired memories are swept."""
    index: IndexConfig = field(default_factory=lambda: IndexConfig())
    """Search settings: the derived indexes of an SQLite store; on PostgreSQL only ``span_exact_upto`` and
    ``keyword_candidates`` apply (see :class:`IndexConfig`)."""
    postgres: PostgresConfig = field(default_factory=PostgresConfig)
    """A PostgreSQL store's connection pool and read replica."""
