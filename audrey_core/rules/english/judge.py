"""The offline English verdict on two claims, zone by zone (similarity of their embeddings):

* >= reinforce_similarity (0.85): the same claim. It supports, unless it conflicts (a changed number or a negation
  makes it a contradiction, never a reinforcement), is about another thing (:func:`.conflict.different_things`:
  "The billing service passed the drill" does not restate "The search API passed the drill") or holds other numbers
  (:func:`.conflict.other_numbers`: "User id 4411 logged in" / "User id 4412 logged in", "returns 50 items per page"
  / "200 items per page": two things, or a value the rules cannot read as one).
* >= conflict_similarity (0.60): a conflict the rules of :mod:`.conflict` see is a contradiction.
* >= update_similarity (0.50), when the two hold from different times: a changed value of the same attribute
  (:func:`.conflict.update_signal`; for a near-duplicate, another literal value: :func:`.conflict.changed_value`) is
  labelled ``updates`` when the later statement says it changed or is the same sentence but for the value, and
  ``contradicts`` otherwise; a change between claims of different contexts is ``context_dependent``
  (:mod:`.qualifiers`).
* below: nothing is judged.

First of all, two statements the parser reads as about another subject or predicate
(:func:`audrey_core.claims.about.about_one_thing`: "the user's sister lives in Lyon" / "the user's brother lives in
Berlin") neither update nor contradict each other, whatever their similarity.

The verdict carries a hiding signal only when the newer statement names the value it replaces as past
(:mod:`.past_values`); everything else it finds is a guess, which :func:`audrey_core.claims.decide.decide` turns
into a dispute.
"""

from __future__ import annotations

from ...claims.about import about_one_thing
from ...claims.decide import Judgement
from ...config import ValidationConfig
from .conflict import (
    Conflict,
    changed_value,
    detect_conflict,
    different_subjects,
    different_things,
    other_numbers,
    same_frame,
    update_cue,
    update_signal,
)
from .past_values import named_past_value
from .qualifiers import context_difference, strip_qualifiers


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
    evidence of :func:`~.conflict.update_signal` before calling a same-time pair a contradiction: bare numbers in two
    observations are often identifiers ("ticket 41", "ticket 42")."""
    if similarity < (cfg.conflict_similarity if newer is None else cfg.update_similarity):
        return None  # below the zone judged: most neighbours of a statement are
    if about_one_thing(existing, incoming) is not False:  # of another subject or predicate, neither changes the other
        changed = _changed(existing, incoming, similarity, cfg, newer, strict)
        if changed is not None:
            return changed
        if newer is not None and similarity < cfg.conflict_similarity:
            return None
    if (
        similarity >= cfg.reinforce_similarity
        and not different_things(existing, incoming)
        and not other_numbers(existing, incoming)
    ):
        return Judgement("supports", "heuristic", f"near-duplicate (similarity {similarity:.2f})")
    return Judgement("unrelated", "heuristic", "no conflict detected")


def _changed(
    existing: str, incoming: str, similarity: float, cfg: ValidationConfig, newer: bool | None, strict: bool
) -> Judgement | None:
    """The contradiction, update or context pair the rules see between two claims of one thing, or ``None``."""
    context = context_difference(existing, incoming)
    bare_existing, bare_incoming = _unqualified(existing, incoming, context)
    if newer is None:
        compare = update_signal if strict else detect_conflict
        conflict = compare(bare_existing, bare_incoming)
        if conflict is None:
            return None
        return _in_context(context, conflict, None) or Judgement(
            "contradicts", "heuristic", f"{conflict.kind}: {conflict.detail}"
        )
    older, newest = (bare_existing, bare_incoming) if newer else (bare_incoming, bare_existing)
    signal = update_signal(older, newest)
    if signal is None and similarity >= cfg.reinforce_similarity:
        signal = changed_value(older, newest)  # the same statement later, with another date, number or address
    if signal is None and context is not None and not different_subjects(older, newest):
        signal = detect_conflict(older, newest)  # any changed number beside a new context: a context pair
    if signal is None:
        return None
    in_context = _in_context(context, signal, newer)
    if in_context is not None:
        return in_context
    reason = f"{signal.kind}: {signal.detail}"
    named = named_past_value(older, newest)
    if named is not None:
        return Judgement("updates", "heuristic", f"{reason}; it says {named!r}", signal="named_past_value")
    said = signal.kind == "update" or update_cue(older, newest) is not None
    if not said and not same_frame(older, newest):
        return Judgement("contradicts", "heuristic", f"{reason}; another value in other words")
    return Judgement("updates", "heuristic", f"{reason}; the old value is not named as past")


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


__all__ = ["judge_offline"]
