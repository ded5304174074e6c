"""The states a memory and a contradiction can be in, the relations a new claim can have to a known one, the signals
that may take a memory out of recall, and the one table of how states change. Every layer imports these types; every
stage that changes a state asks :func:`memory_move` / :func:`contradiction_move` which states it may change from.

What may hide a memory: only :data:`HIDING_SIGNALS` (the caller's ``supersedes=`` or claim key, an LLM's structured
update of a single-valued attribute, a statement that names the value it replaces as past, or the evidence of a
principle replaced by such updates). A guess (a sentence shape, a similar frame with another value) is a dispute:
both sides stay in recall, each with its date, the newer first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

MemoryState = Literal["active", "disputed", "superseded", "context_dependent", "dormant", "rolled_back"]
ContradictionState = Literal["open", "resolved", "context_dependent", "reopened", "closed"]
Relation = Literal["supports", "contradicts", "updates", "unrelated", "context_dependent"]
"""How a new claim relates to a known one: it says the same (supports: a principle is reinforced, an episode
restated), says the value changed (updates), cannot hold at the same time (contradicts), holds in another context
(context_dependent), or is about something else (unrelated)."""
UpdateSignal = Literal["caller", "claim_key", "llm_structured", "named_past_value", "evidence_replaced"]
"""What says explicitly that a claim no longer holds: ``supersedes=`` (caller), the same claim key in the same scope
stated later (claim_key), an LLM's structured update naming subject, attribute, old and new value of a single-valued
attribute (llm_structured), a newer statement naming the value it replaces as past ("from X to Y", "no longer X",
"sold the X": named_past_value), or a principle most of whose evidence such updates replaced (evidence_replaced)."""

MEMORY_STATES: tuple[MemoryState, ...] = get_args(MemoryState)
CONTRADICTION_STATES: tuple[ContradictionState, ...] = get_args(ContradictionState)
RELATIONS: tuple[Relation, ...] = get_args(Relation)
HIDING_SIGNALS: tuple[UpdateSignal, ...] = get_args(UpdateSignal)

RECALLABLE_STATES: tuple[MemoryState, ...] = ("active", "disputed", "context_dependent")
"""States recall searches unless told otherwise: what the memory currently holds to be (possibly) true."""
CLAIM_STATES: tuple[MemoryState, ...] = ("active", "context_dependent")
"""States of the claims a new episode is judged against."""
COUNTERCLAIM_STATES: tuple[ContradictionState, ...] = ("open", "reopened", "context_dependent")
"""Contradictions whose other side recall shows beside a memory (the record disagrees, or both hold in context)."""
UNSETTLED_STATES: tuple[ContradictionState, ...] = ("open", "resolved")
"""Contradictions the newer side may still win by evidence."""

MemoryEvent = Literal["supersede", "hold", "set_aside", "hold_in_context", "reopen", "fall_asleep", "wake", "roll_back"]
ContradictionEvent = Literal["settle", "reopen", "close"]

_LIVE: frozenset[MemoryState] = frozenset({"active", "disputed", "context_dependent"})


@dataclass(frozen=True)
class Move:
    """One row of a transition table: the states an event may change, and the state it leaves (``None``: the state
    the memory was in before it fell asleep, kept in ``prior_state``)."""

    sources: frozenset[str]
    target: str | None
    why: str


MEMORY_MOVES: Mapping[MemoryEvent, Move] = {
    "supersede": Move(_LIVE | {"dormant"}, "superseded", "an explicit signal (HIDING_SIGNALS) says it no longer holds"),
    "hold": Move(_LIVE, "active", "it won a dispute, or a settlement says both hold"),
    "set_aside": Move(_LIVE, "disputed", "the weaker side of a dispute, or the side a settlement set aside"),
    "hold_in_context": Move(_LIVE, "context_dependent", "it holds in its own context beside another claim"),
    "reopen": Move(frozenset({"disputed", "superseded"}), "active", "independent sources back it again"),
    "fall_asleep": Move(_LIVE, "dormant", "unused: its retention fell below the dormant threshold"),
    "wake": Move(frozenset({"dormant"}), None, "recalled and used: back to the state it slept in"),
    "roll_back": Move(_LIVE | {"superseded", "dormant"}, "rolled_back", "the consolidation run that made it is undone"),
}

CONTRADICTION_MOVES: Mapping[ContradictionEvent, Move] = {
    "settle": Move(
        frozenset({"open", "resolved", "reopened", "context_dependent"}), "resolved", "decided by hand or by evidence"
    ),
    "reopen": Move(frozenset({"open", "resolved", "context_dependent"}), "reopened", "new independent evidence"),
    "close": Move(frozenset(CONTRADICTION_STATES) - {"closed"}, "closed", "the run that recorded it is rolled back"),
}


class TransitionError(ValueError):
    """A state change the transition table does not allow."""


def memory_move(event: MemoryEvent, current: str | None = None, prior: str | None = None) -> str:
    """The state ``event`` leaves a memory in; with ``current``, raise :class:`TransitionError` unless the table
    allows the change from it (``prior``: the state a dormant memory slept in)."""
    move = MEMORY_MOVES[event]
    if current is not None and current not in move.sources:
        raise TransitionError(f"a memory in state {current!r} cannot {event.replace('_', ' ')} ({move.why})")
    return move.target if move.target is not None else (prior or "active")


def movable(event: MemoryEvent) -> tuple[str, ...]:
    """The states a memory may be in for ``event`` (sorted: stable SQL and messages)."""
    return tuple(sorted(MEMORY_MOVES[event].sources))


def contradiction_move(event: ContradictionEvent, current: str) -> str:
    """The state ``event`` leaves a contradiction in; raise :class:`TransitionError` if it may not change from
    ``current``."""
    move = CONTRADICTION_MOVES[event]
    if current not in move.sources:
        raise TransitionError(f"a contradiction in state {current!r} cannot {event} ({move.why})")
    assert move.target is not None
    return move.target


def contradiction_movable(event: ContradictionEvent) -> tuple[str, ...]:
    """The states a contradiction may be in for ``event``."""
    return tuple(sorted(CONTRADICTION_MOVES[event].sources))


__all__ = [
    "CLAIM_STATES",
    "CONTRADICTION_MOVES",
    "CONTRADICTION_STATES",
    "COUNTERCLAIM_STATES",
    "HIDING_SIGNALS",
    "MEMORY_MOVES",
    "MEMORY_STATES",
    "RECALLABLE_STATES",
    "RELATIONS",
    "UNSETTLED_STATES",
    "ContradictionEvent",
    "ContradictionState",
    "MemoryEvent",
    "MemoryState",
    "Move",
    "Relation",
    "TransitionError",
    "UpdateSignal",
    "contradiction_movable",
    "contradiction_move",
    "memory_move",
    "movable",
]
