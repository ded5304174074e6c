"""How a new memory relates to an existing one, and what follows: pure rules, no I/O (seed 002 step 2).

Zones by similarity between the two (cosine of their embeddings):

* >= reinforce_similarity (0.85): the same claim. It reinforces, unless it conflicts (a changed number or a negation
  makes it a contradiction, never a reinforcement) or shares a provenance chain with the memory (counts once).
* >= conflict_similarity (0.60): ask the LLM (supports / contradicts / updates / unrelated / context_dependent);
  without one, the heuristics of :mod:`audrey_core.rules.conflict` decide.
* >= update_similarity (0.50), when the two hold from different times: a changed value of the same attribute
  (:func:`audrey_core.rules.conflict.update_signal`; for a near-duplicate, another literal value:
  :func:`audrey_core.rules.conflict.changed_value`) is an update when the later statement says it changed (a cue) or
  is the same sentence but for the value (:func:`audrey_core.rules.conflict.same_frame`), and a contradiction (both
  kept in view) otherwise; a change between claims of different contexts is context-dependent
  (:mod:`audrey_core.rules.qualifiers`).
* below: unrelated.

A contradiction keeps both claims (:func:`resolve`); an update replaces the older claim only when the newer one's
source may replace it (:func:`can_supersede`), and is a contradiction otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..config import ValidationConfig
from .conflict import (
    Conflict,
    changed_value,
    detect_conflict,
    different_subjects,
    same_frame,
    update_cue,
    update_signal,
)
from .qualifiers import context_difference, strip_qualifiers

DERIVED_SOURCES = frozenset({"inference", "model-generated"})  # the agent's own conclusions, not evidence


@dataclass(frozen=True)
class Judgement:
    """How an incoming claim relates to an existing one, and how that was decided."""

    relation: str  # supports | contradicts | updates | unrelated | context_dependent
    method: str  # heuristic | llm
    reason: str = ""
    conditions_existing: str | None = None
    conditions_incoming: str | None = None
    model: str | None = None  # the LLM that judged, with the SHA-256 of its prompt
    prompt_hash: str | None = None
    explicit: bool = False  # an update that says it is one ("was lowered to", "moved", "no longer"; an LLM's verdict)


@dataclass(frozen=True)
class Resolution:
    """The states a contradiction leaves both claims in."""

    contradiction_state: str  # resolved | open | context_dependent
    existing_state: str
    incoming_state: str
    delta: float  # confidence(existing) - confidence(incoming)
    flagged: bool  # left open for a human or agent to review


def judge_offline(
    existing: str,
    incoming: str,
    similarity: float,
    cfg: ValidationConfig,
    newer: bool | None = None,
    strict: bool = False,
) -> Judgement | None:
    """The heuristic verdict (``None`` below the zones that are judged). ``newer`` says whether the incoming claim
    holds from a later time than the existing one (False: an earlier time; None: the same time or unknown, when a
    change can only be a contradiction). ``strict`` (two observations rather than a principle) asks for the stronger
    evidence of :func:`~audrey_core.rules.conflict.update_signal` before calling a same-time pair a contradiction: bare
    numbers in two observations are often identifiers ("ticket 41", "ticket 42")."""
    context = context_difference(existing, incoming)
    if newer is None:
        if similarity < cfg.conflict_similarity:
            return None
        bare_existing, bare_incoming = _unqualified(existing, incoming, context)
        compare = update_signal if strict else detect_conflict
        conflict = compare(bare_existing, bare_incoming)
        if conflict is not None:
            return _in_context(context, conflict, None) or Judgement(
                "contradicts", "heuristic", f"{conflict.kind}: {conflict.detail}"
            )
    else:
        if similarity < cfg.update_similarity:
            return None
        bare_existing, bare_incoming = _unqualified(existing, incoming, context)
        older, newest = (bare_existing, bare_incoming) if newer else (bare_incoming, bare_existing)
        signal = update_signal(older, newest)
        if signal is None and similarity >= cfg.reinforce_similarity:
            signal = changed_value(older, newest)  # the same statement later, with another date, number or address
        if signal is None and context is not None and not different_subjects(older, newest):
            signal = detect_conflict(older, newest)  # any changed number beside a new context: a context pair
        if signal is not None:
            explicit = signal.kind == "update" or update_cue(older, newest) is not None  # "lowered to 80 req/s"
            reason = f"{signal.kind}: {signal.detail}"
            in_context = _in_context(context, signal, newer)
            if in_context is not None:
                return in_context
            if not explicit and not same_frame(older, newest):
                return Judgement("contradicts", "heuristic", f"{reason}; another value in other words: a dispute")
            return Judgement("updates", "heuristic", reason, explicit=explicit)
        if similarity < cfg.conflict_similarity:
            return None
    if similarity >= cfg.reinforce_similarity:
        return Judgement("supports", "heuristic", f"near-duplicate (similarity {similarity:.2f})")
    return Judgement("unrelated", "heuristic", "no conflict detected")


def _unqualified(existing: str, incoming: str, context: tuple[str | None, str | None] | None) -> tuple[str, str]:
    """Both claims without the qualifiers only one of them has, so the rules compare what each says ("For hotfixes
    the review needs one approval" -> "the review needs one approval")."""
    if context is None:
        return existing, incoming
    return strip_qualifiers(existing, context[0]), strip_qualifiers(incoming, context[1])


def _in_context(
    context: tuple[str | None, str | None] | None, signal: Conflict, newer: bool | None
) -> Judgement | None:
    """A change between claims that hold in different contexts ("In test mode the limit is 25" beside "the limit is
    100") is none: both hold, each with its condition. Only where the older claim alone is qualified and the newer
    says explicitly that it changed ("The conference is in Lisbon this year" / "... was relocated to Madrid") is it
    still an update."""
    if context is None:
        return None
    newest_context = context[1] if newer else context[0]
    if newer is not None and signal.kind == "update" and newest_context is None:
        return None
    reason = f"different contexts: {context[0] or 'in general'} / {context[1] or 'in general'} ({signal.detail})"
    return Judgement("context_dependent", "heuristic", reason, context[0] or "in general", context[1] or "in general")


@dataclass(frozen=True)
class Pair:
    """An existing claim to judge a new one against: their similarity, whether the new one holds from a later time
    (None: the same time) and whether both are observations (see :func:`judge_offline`)."""

    existing: str
    similarity: float
    newer: bool | None = None
    strict: bool = False


def can_supersede(incoming_source: str, existing_source: str, reliability: Mapping[str, float]) -> bool:
    """Whether a claim from ``incoming_source`` may replace one from ``existing_source``. The agent's own
    conclusions (inference, model-generated) never replace what was observed, told or returned by a tool; between
    two of them the newer must be at least as reliable. Any first-hand source may replace another (the user telling
    of a change beats an old observation)."""
    if incoming_source in DERIVED_SOURCES:
        return existing_source in DERIVED_SOURCES and reliability[incoming_source] >= reliability[existing_source]
    return True


def outweighs(sources: int, principle: bool, explicit: bool, cfg: ValidationConfig) -> bool:
    """Whether earlier claims backed by ``sources`` independent sources (or by a principle) stand against one newer
    statement of another value: they do unless the statement says explicitly that the value changed."""
    return not explicit and (principle or sources >= cfg.evidence_sources)


def resolve(relation: str, existing_confidence: float, incoming_confidence: float, cfg: ValidationConfig) -> Resolution:
    """Seed 002's resolution: a gap above ``resolution_delta`` disputes the weaker claim; a smaller one leaves both
    active and the contradiction open (flagged); context-dependent claims both become ``context_dependent``."""
    delta = existing_confidence - incoming_confidence
    if relation == "context_dependent":
        return Resolution("context_dependent", "context_dependent", "context_dependent", delta, False)
    # Rounded so that 0.8 - 0.5 counts as 0.3 (not 0.30000000000000004) at the boundary.
    if round(abs(delta), 9) > cfg.resolution_delta:
        existing_wins = delta > 0
        return Resolution(
            "resolved",
            "active" if existing_wins else "disputed",
            "disputed" if existing_wins else "active",
            delta,
            False,
        )
    return Resolution("open", "active", "active", delta, True)


__all__ = ["Judgement", "Pair", "Resolution", "can_supersede", "judge_offline", "outweighs", "resolve"]
