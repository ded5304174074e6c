"""The records Audrey stores and returns. Plain dataclasses: cheap to build, easy to compare in tests."""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field, is_dataclass
from datetime import datetime
from typing import Any, Literal

from .states import ContradictionState, MemoryState, Relation, UpdateSignal


@dataclass(frozen=True, slots=True)
class ConfidenceBreakdown:
    """The parts of a confidence value, so callers can see why a memory scored as it did."""

    source: float
    evidence: float
    recency: float
    retrieval: float
    value: float
    capped: bool


@dataclass(frozen=True)
class Claim:
    """What an episode states, typed: the subject, the attribute, its value, the context it holds in
    (``qualifiers``), when it started holding if the text says (``valid_from``), and whether the attribute holds one
    value at a time (a home city) or several (pets, allergies, languages). Given by a claim key (``method`` "key":
    ``key="user.home_city"`` names subject and attribute) or extracted by an LLM during validation ("llm")."""

    subject: str
    attribute: str
    value: str
    single_valued: bool
    method: Literal["key", "llm"]
    qualifiers: str | None = None
    valid_from: datetime | None = None

    def to_plain(self) -> dict[str, Any]:
        """The record as stored (JSON-ready)."""
        return to_plain(self)

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> Claim:
        """The record from its stored JSON."""
        when = data.get("valid_from")
        return cls(
            subject=str(data.get("subject", "")),
            attribute=str(data.get("attribute", "")),
            value=str(data.get("value", "")),
            single_valued=bool(data.get("single_valued", False)),
            method=data.get("method", "llm"),
            qualifiers=data.get("qualifiers"),
            valid_from=datetime.fromisoformat(when) if isinstance(when, str) else None,
        )

    def same_attribute(self, other: Claim) -> bool:
        """Whether both claims are about one attribute of one subject (case, spacing and the separators of a claim
        key aside: ``home_city`` is "home city")."""
        return _name(self.subject) == _name(other.subject) and _name(self.attribute) == _name(other.attribute)

    def same_value(self, other: Claim) -> bool:
        """Whether both claims give one value (case, spacing and a closing full stop aside)."""
        return _value(self.value) == _value(other.value)


def _name(text: str) -> str:
    return " ".join(text.casefold().replace("_", " ").replace(".", " ").split())


def _value(text: str) -> str:
    return " ".join(text.casefold().strip(" .!").split())


@dataclass(kw_only=True)
class Memory:
    """Fields every memory type shares.

    ``evidence_count`` / ``challenge_count`` are the supporting / contradicting evidence behind the evidence-agreement
    term; ``last_reinforced_at`` restarts recency decay; ``retrieval_count`` / ``last_retrieved_at`` feed retrieval
    reinforcement.
    """

    id: str
    memory_type: str
    agent: str
    content: str
    scope: tuple[str, ...] = ()  # a path inside the agent's memory (e.g. a LangGraph namespace); () is the root
    key: str | None = None  # the caller's name for the memory within its scope, if it has one
    source: str
    source_reliability: float
    salience: float = 0.5
    tags: tuple[str, ...] = ()
    state: MemoryState = "active"
    prior_state: MemoryState | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    evidence_count: int = 1
    challenge_count: int = 0
    retrieval_count: int = 0
    created_at: datetime
    last_reinforced_at: datetime | None = None
    last_retrieved_at: datetime | None = None
    embedding_model: str | None = None
    embedding_version: str | None = None
    event_time: datetime | None = None  # when it happened, if that differs from created_at (when it was stored)
    superseded_by: str | None = None  # the memory that replaced this one (a correction or a detected update)
    valid_until: datetime | None = None  # when it stopped holding: the replacing memory's event (or encode) time
    # Expiry the caller asked for (encode's ttl= / expires_at=): from then on it is never recalled, listed or read,
    # and the next sweep deletes it. ``ttl_seconds``: the time to live it was given, what a refresh restarts.
    expires_at: datetime | None = None
    ttl_seconds: float | None = None

    @property
    def valid_from(self) -> datetime:
        """When it started holding: its event time, else when it was stored."""
        return self.event_time or self.created_at


@dataclass(kw_only=True)
class Episodic(Memory):
    """An immutable observation. Corrections are new episodes that ``supersede`` it; it is never edited."""

    memory_type: str = "episodic"
    causal_trigger: str | None = None
    causal_consequence: str | None = None
    conditions: dict[str, Any] | None = None
    derived_from: tuple[str, ...] = ()
    supersedes: str | None = None
    consolidated: bool = False
    # A conversation turn: the conversation it was said in, who said it, and its place there (0, 1, ...; given by the
    # store in the order turns arrive). Recall reads a turn with its neighbours (see rules/turns.py).
    session: str | None = None
    speaker: str | None = None
    turn: int | None = None
    claim: Claim | None = None  # what it states, typed (a claim key's subject and attribute, or an LLM's reading)


@dataclass(kw_only=True)
class Semantic(Memory):
    """A principle consolidated from episodes, with the evidence it rests on."""

    memory_type: str = "semantic"
    conditions: dict[str, Any] | None = None
    evidence_episode_ids: tuple[str, ...] = ()
    source_type_diversity: int = 0
    consolidation_run_id: str | None = None
    consolidation_model: str | None = None
    consolidation_prompt_hash: str | None = None


@dataclass(kw_only=True)
class Procedural(Memory):
    """Learned how-to knowledge: when to apply it and how it has fared."""

    memory_type: str = "procedural"
    trigger_conditions: dict[str, Any] | None = None
    evidence_episode_ids: tuple[str, ...] = ()
    success_count: int = 0
    failure_count: int = 0
    consolidation_run_id: str | None = None
    consolidation_model: str | None = None
    consolidation_prompt_hash: str | None = None


MEMORY_CLASSES: dict[str, type[Memory]] = {"episodic": Episodic, "semantic": Semantic, "procedural": Procedural}
RENAMED = {"Episode": "Episodic", "Procedure": "Procedural"}  # the classes are named as their memory types now


def renamed(module: str, name: str) -> Any:
    """An old name of a renamed class, with a DeprecationWarning (kept for one minor version)."""
    if name not in RENAMED:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{name} is now {RENAMED[name]} (the memory type's name); {name} goes in the next minor version",
        DeprecationWarning,
        stacklevel=3,
    )
    return globals()[RENAMED[name]]


def __getattr__(name: str) -> Any:
    return renamed(__name__, name)


@dataclass(frozen=True)
class CausalLink:
    """Why something led to something else; ``link_type`` is causal, correlational or temporal.

    ``cause`` / ``effect`` are the trigger and consequence as episodes recorded them; ``cause_id`` / ``effect_id``
    name memories when the link joins two of them; ``memory_id`` is the principle the link explains. A link is
    ``causal`` only with a stated ``mechanism``.
    """

    id: str
    agent: str
    link_type: str
    mechanism: str | None
    confidence: float | None
    evidence_count: int
    created_at: datetime
    cause_id: str | None = None
    effect_id: str | None = None
    cause: str | None = None
    effect: str | None = None
    memory_id: str | None = None
    evidence_episode_ids: tuple[str, ...] = ()
    state: str = "active"
    consolidation_run_id: str | None = None


@dataclass(frozen=True)
class ClaimUpdate:
    """A typed update an LLM judge named: the subject, the attribute, its old and new value, and whether the
    attribute holds one value at a time (only then may the older claim leave recall)."""

    subject: str
    attribute: str
    old_value: str
    new_value: str
    single_valued: bool


@dataclass(frozen=True)
class Settlement:
    """How a dispute was decided after it was recorded: by hand (``audrey ui``, ``settle_contradiction``) or by the
    evidence that later backed one side. ``winner`` None with ``both_hold``: both claims hold."""

    method: Literal["human", "evidence"]
    winner: str | None
    both_hold: bool = False
    reason: str = ""
    at: datetime | None = None


@dataclass(frozen=True)
class Resolution:
    """Why a contradiction was recorded and how it stands: the relation judged and by what (``method``: heuristic,
    llm, evidence or caller; ``model`` / ``prompt_hash`` for an LLM), each side's confidence then and their
    difference, whether it was left open for review (``flagged``), the side that won (``winner``), each side's
    context (``conditions``, for a context-dependent pair), the explicit signal of an update (``signal``; none for a
    guess, which is why it is a dispute), an LLM's typed update, a later settlement, and the rollback that closed it."""

    relation: Relation
    method: str
    reason: str = ""
    confidence: dict[str, float] = field(default_factory=dict)
    delta: float = 0.0
    flagged: bool = False
    winner: str | None = None
    conditions: dict[str, str | None] = field(default_factory=dict)
    model: str | None = None
    prompt_hash: str | None = None
    signal: UpdateSignal | None = None
    update: ClaimUpdate | None = None
    settled: Settlement | None = None
    closed_by: str | None = None

    def to_plain(self) -> dict[str, Any]:
        """The record as JSON-ready values (how the store keeps it), empty fields left out."""
        return {k: v for k, v in to_plain(self).items() if v not in (None, {}, "")}

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> Resolution:
        """The record from its stored JSON, including what earlier versions stored (unknown keys are ignored; an
        evidence settlement was once ``settled_by``)."""
        settled = data.get("settled")
        if isinstance(settled, dict):
            at = settled.get("at")
            settlement: Settlement | None = Settlement(
                method=settled.get("method", "human"),
                winner=settled.get("winner"),
                both_hold=bool(settled.get("both_hold", False)),
                reason=settled.get("reason") or "",
                at=datetime.fromisoformat(at) if isinstance(at, str) else None,
            )
        elif data.get("settled_by"):
            settlement = Settlement(method="evidence", winner=data.get("winner"), reason=data["settled_by"])
        else:
            settlement = None
        update = data.get("update")
        return cls(
            relation=data.get("relation", "contradicts"),
            method=data.get("method", "heuristic"),
            reason=data.get("reason") or "",
            confidence=dict(data.get("confidence") or {}),
            delta=float(data.get("delta") or 0.0),
            flagged=bool(data.get("flagged", False)),
            winner=data.get("winner"),
            conditions=dict(data.get("conditions") or {}),
            model=data.get("model"),
            prompt_hash=data.get("prompt_hash"),
            signal=data.get("signal"),
            update=ClaimUpdate(**update) if isinstance(update, dict) else None,
            settled=settlement,
            closed_by=data.get("closed_by"),
        )


@dataclass(frozen=True)
class Contradiction:
    """Two claims that disagree; both are kept, with the contradiction's state and resolution."""

    id: str
    agent: str
    claim_a_id: str
    claim_b_id: str
    state: ContradictionState
    resolution: Resolution | None
    created_at: datetime
    resolved_at: datetime | None = None
    reopened_at: datetime | None = None
    reopen_evidence_id: str | None = None
    consolidation_run_id: str | None = None


@dataclass(frozen=True)
class ConsolidationRun:
    """The audit record of one consolidation ("sleep") run."""

    id: str
    agent: str
    status: str
    checkpoint_cursor: str | None
    input_episode_ids: tuple[str, ...]
    output_memory_ids: tuple[str, ...]
    confidence_deltas: dict[str, float]
    consolidation_model: str | None
    consolidation_prompt_hash: str | None
    started_at: datetime | None
    completed_at: datetime | None
    error: str | None = None
    plan: tuple[tuple[str, ...], ...] = ()  # the clusters (episode ids) the run promotes, fixed when it starts


@dataclass(frozen=True)
class DecayReport:
    """What one ``decay()`` pass did."""

    examined: int
    dormant_ids: tuple[str, ...]
    threshold: float
    at: datetime

    @property
    def newly_dormant(self) -> int:
        """How many memories fell asleep in this pass."""
        return len(self.dormant_ids)


@dataclass(frozen=True)
class Provenance:
    """Where a recalled memory came from.

    ``evidence``: the episodes a semantic or procedural memory rests on. ``supersedes``: the memories it replaced,
    directly or through a chain of updates (corrections named with ``supersedes=`` and updates validation noticed),
    newest first. ``superseded_by``: the memory that replaced this one, if any.
    """

    evidence: tuple[Memory, ...] = ()
    supersedes: tuple[Memory, ...] = ()
    superseded_by: str | None = None
    causal_trigger: str | None = None
    causal_consequence: str | None = None


@dataclass(frozen=True)
class Counterclaim:
    """The other side of an open contradiction that a recalled memory is part of: the record disagrees, and an agent
    should say so rather than assert one side."""

    contradiction_id: str
    memory_id: str
    content: str
    source: str
    state: MemoryState
    observed_at: datetime | None = None  # when the other side was observed: its event time, else when it was stored
    relation: Relation = "contradicts"  # or "context_dependent": both hold, each in its own context
    conditions: str | None = None  # for a context-dependent pair, the other side's context ("in test mode")


@dataclass(frozen=True)
class RecallResult:
    """One recalled memory: ``score = relevance x confidence`` (with ``RecallConfig.confidence_influence`` below 1,
    ``relevance x (1 - w + w x confidence)``). ``relevance`` is the fused keyword + vector relevance in hybrid
    recall and the cosine ``similarity`` in vector recall; the confidence's parts are in ``breakdown``. A principle
    scores at least what the best of its episodes recalled with it scores, and comes before it."""

    id: str
    content: str
    memory_type: str
    similarity: float
    confidence: float
    score: float
    state: MemoryState
    source: str
    created_at: datetime
    tags: tuple[str, ...]
    metadata: dict[str, Any]
    agent: str
    salience: float
    breakdown: ConfidenceBreakdown
    provenance: Provenance | None = None
    scope: tuple[str, ...] = ()
    key: str | None = None
    relevance: float | None = None
    event_time: datetime | None = None
    chunk: str | None = None  # for a long memory, the part of its text that matched best
    superseded_by: str | None = None  # what replaced it (seen with include_superseded=True or as_of=)
    valid_until: datetime | None = None  # when it stopped holding, if it has
    counterclaims: tuple[Counterclaim, ...] = ()  # the other sides of its open contradictions and context pairs
    conditions: str | None = None  # the context it holds in, when a context-dependent pair recorded one
    evidence_count: int = 1  # reports behind it: an episode and its restatements, a principle's evidence episodes
    session: str | None = None  # for a conversation turn: its conversation, its speaker and its place there
    speaker: str | None = None
    turn: int | None = None
    claim: Claim | None = None  # what an episode states, typed, when a claim key or an LLM gave it

    @property
    def observed_at(self) -> datetime:
        """When the memory was observed: its event time if it has one, else when it was stored."""
        return self.event_time or self.created_at


@dataclass(frozen=True)
class Introspection:
    """A snapshot of what the memory holds (``Audrey.introspect()``)."""

    counts: dict[str, int]
    states: dict[str, dict[str, int]]
    dormant: int
    contradictions: dict[str, int]
    causal_links: int
    last_consolidation: datetime | None
    source_type_diversity: dict[str, int]
    embedding_model: str
    embedding_dimensions: int
    agent: str | None
    vector_search_error: str | None = None  # why vector search is unavailable, if it is
    superseded: int = 0  # memories an update or correction replaced (kept, out of recall by default)
    indexes: list[dict[str, Any]] = field(default_factory=list)  # derived search indexes (Storage.search_indexes)
    similarity_baseline: float | None = None  # the model's mean cosine between unrelated sentences (rules.calibration)

    @property
    def open_contradictions(self) -> int:
        """Contradictions still waiting for a human or agent to settle them (open or reopened)."""
        return self.contradictions.get("open", 0) + self.contradictions.get("reopened", 0)

    @property
    def total(self) -> int:
        """All memories of every type."""
        return sum(self.counts.values())


def to_plain(value: Any) -> Any:
    """A JSON-ready copy of an Audrey value: dataclasses as dicts, tuples as lists, datetimes in ISO 8601."""
    if is_dataclass(value) and not isinstance(value, type):
        return to_plain(asdict(value))
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    return value
