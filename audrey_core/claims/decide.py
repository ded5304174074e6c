"""How a new claim relates to a known one, and the one place that decides what follows (seed 002 step 2).

Judges give verdicts: the offline English rules (:mod:`audrey_core.rules.english`) and, when one is configured, an
LLM. :func:`decide` alone turns the verdicts on a pair into an action, and it hides a memory (supersedes it) only on
an explicit signal (:data:`audrey_core.states.HIDING_SIGNALS`): a verdict ``updates`` without one, between claims of
the same time, or from a source that may not replace the other, is a dispute (both kept and recalled, each with its
date, the newer first). A dispute's sides are then set by :func:`resolve`. What the caller says at encode
(``supersedes=``, a claim key) is decided here too: :func:`encode_supersessions`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from ..config import ValidationConfig
from ..models import ClaimUpdate, Episodic, Memory
from ..rules.lineage import DERIVED_SOURCES
from ..states import MemoryState, Relation, UpdateSignal, movable

JudgeMethod = Literal["heuristic", "llm", "evidence", "caller"]
_SUPERSEDABLE = movable("supersede")
Action = Literal["reinforce", "restate", "supersede", "dispute", "hold_in_context", "nothing"]


@dataclass(frozen=True)
class Judgement:
    """How an incoming claim relates to an existing one, how that was decided, and what says so explicitly."""

    relation: Relation
    method: JudgeMethod
    reason: str = ""
    conditions_existing: str | None = None
    conditions_incoming: str | None = None
    model: str | None = None  # the LLM that judged, with the SHA-256 of its prompt
    prompt_hash: str | None = None
    signal: UpdateSignal | None = None  # for an update: what says explicitly that the older claim stopped holding
    update: ClaimUpdate | None = None  # an LLM's typed update (subject, attribute, old and new value)


@dataclass(frozen=True)
class Pair:
    """An existing claim to judge a new one against: their similarity, whether the new one holds from a later time
    (None: the same time) and whether both are observations (see :func:`~.english.judge.judge_offline`)."""

    existing: str
    similarity: float
    newer: bool | None = None
    strict: bool = False


@dataclass(frozen=True)
class Decision:
    """What follows from the verdicts on a pair, with the verdict as it is recorded (its reason says why)."""

    action: Action
    verdict: Judgement | None = None


def decide(
    rules: Judgement | None,
    llm: Judgement | None,
    *,
    similarity: float,
    newer: bool | None,
    existing_source: str,
    incoming_source: str,
    existing_is_episode: bool,
    reliability: Mapping[str, float],
    cfg: ValidationConfig,
) -> Decision:
    """The one decision point. ``rules``: the offline rules' verdict; ``llm``: the LLM's, when it judged (it has the
    last word, but where the rules see a changed value in a near-duplicate its ``supports`` is a dispute).
    ``newer``: whether the incoming claim holds from a later time (None: the same time)."""
    verdict = llm if llm is not None else rules
    if verdict is None or verdict.relation == "unrelated":
        return Decision("nothing", verdict)
    changed = rules is not None and rules.relation in ("contradicts", "updates")
    if llm is not None and llm.relation == "supports" and changed and similarity >= cfg.reinforce_similarity:
        why = f"{llm.reason}; but the rules see a changed value ({rules.reason if rules else ''}): a dispute"
        return Decision("dispute", replace(llm, relation="contradicts", reason=why))
    if verdict.relation == "supports":
        return Decision("restate" if existing_is_episode else "reinforce", verdict)
    if verdict.relation == "context_dependent":
        return Decision("hold_in_context", verdict)
    if verdict.relation == "contradicts":
        return Decision("dispute", verdict)
    if newer is None:
        return Decision("dispute", _kept(verdict, "claims about the same time cannot replace one another"))
    if verdict.signal is None:
        return Decision("dispute", _kept(verdict, "nothing says the older value stopped holding: both kept"))
    later, earlier = (incoming_source, existing_source) if newer else (existing_source, incoming_source)
    if not can_supersede(later, earlier, reliability):
        return Decision("dispute", _kept(verdict, f"a {later} claim cannot replace a {earlier} one"))
    return Decision("supersede", verdict)


def _kept(verdict: Judgement, why: str) -> Judgement:
    """The verdict as a dispute records it: why it is no update, and no hiding signal."""
    return replace(verdict, reason=f"{verdict.reason}; {why}" if verdict.reason else why, signal=None)


def can_supersede(incoming_source: str, existing_source: str, reliability: Mapping[str, float]) -> bool:
    """Whether a claim from ``incoming_source`` may replace one from ``existing_source``. The agent's own
    conclusions (inference, model-generated) never replace what was observed, told or returned by a tool; between
    two of them the newer must be at least as reliable. Any first-hand source may replace another (the user telling
    of a change beats an old observation)."""
    if incoming_source in DERIVED_SOURCES:
        return existing_source in DERIVED_SOURCES and reliability[incoming_source] >= reliability[existing_source]
    return True


@dataclass(frozen=True)
class Outcome:
    """The states a dispute leaves both claims in."""

    contradiction_state: Literal["resolved", "open", "context_dependent"]
    existing_state: MemoryState
    incoming_state: MemoryState
    delta: float  # confidence(existing) - confidence(incoming)
    flagged: bool  # left open for a human or agent to review


def resolve(
    relation: Relation, existing_confidence: float, incoming_confidence: float, cfg: ValidationConfig
) -> Outcome:
    """Seed 002's resolution: a gap above ``resolution_delta`` sets the weaker claim aside (disputed, still
    recalled); a smaller one leaves both active and the contradiction open (flagged); context-dependent claims both
    become ``context_dependent``."""
    delta = existing_confidence - incoming_confidence
    if relation == "context_dependent":
        return Outcome("context_dependent", "context_dependent", "context_dependent", delta, False)
    # Rounded so that 0.8 - 0.5 counts as 0.3 (not 0.30000000000000004) at the boundary.
    if round(abs(delta), 9) > cfg.resolution_delta:
        existing_wins = delta > 0
        return Outcome(
            "resolved",
            "active" if existing_wins else "disputed",
            "disputed" if existing_wins else "active",
            delta,
            False,
        )
    return Outcome("open", "active", "active", delta, True)


@dataclass(frozen=True)
class Replacement:
    """A claim an explicit signal replaces: the earlier claim, the one that replaces it, and the verdict the
    supersession records (its signal: one of :data:`~audrey_core.states.HIDING_SIGNALS`)."""

    old: Memory
    new: Memory
    verdict: Judgement


def encode_supersessions(episode: Episodic, named: Memory | None, key_holders: Sequence[Episodic]) -> list[Replacement]:
    """What a new episode's explicit signal replaces. ``named``: the episode its ``supersedes=`` names (checked
    before: stored, the tenant's, not yet superseded), which it replaces. Otherwise a claim key is the signal: the
    newest episode holding a key in a scope holds. ``key_holders``: the other episodes holding its key in its scope,
    as they are now. A new episode that holds from later than all of them replaces the current ones; one stated about
    an earlier time (an ``event_time`` in the past) is replaced at once by the next newer one."""
    if named is not None:
        return [Replacement(named, episode, Judgement("updates", "caller", "supersedes= names it", signal="caller"))]
    if episode.key is None:
        return []
    mine = (episode.valid_from, episode.id)
    later = sorted((h for h in key_holders if (h.valid_from, h.id) > mine), key=lambda h: (h.valid_from, h.id))
    if later:
        return [Replacement(episode, later[0], _by_key(episode.key, "a later statement holds it"))]
    return [
        Replacement(h, episode, _by_key(episode.key, "the newest statement holds it"))
        for h in key_holders
        if h.superseded_by is None and h.state in _SUPERSEDABLE
    ]


def _by_key(key: str, why: str) -> Judgement:
    return Judgement("updates", "caller", f"claim key {key!r}: {why}", signal="claim_key")


__all__ = [
    "Action",
    "Decision",
    "Judgement",
    "Outcome",
    "Pair",
    "Replacement",
    "can_supersede",
    "decide",
    "encode_supersessions",
    "resolve",
]
