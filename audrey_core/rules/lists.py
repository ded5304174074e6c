"""Questions whose answer is a list spread over time ("What activities has Melanie tried?", "Which cities has Jon
visited?", "How many times ...", "... both ..."), and a top k that covers several conversations for them
(``recall(spread=True)``, or ``"auto"`` for the questions :func:`asks_for_many` finds): each further result from a
session already holding three of the list counts ``RecallConfig.session_spread`` times less. Pure.

Not on by default: on LoCoMo's development conversations spreading its list questions put every source in the top 10
more often (category 1: 16.9% -> 19.7%) but lost 5 questions' only evidence turn from it (recall@10 of categories 1-4
81.6% -> 81.2%), and on our own set it changed one list question (README, benchmarks.conversations)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .ranking import Ranked

# a plural noun after what / which, then a verb of having or doing: "What books has", "Which cities have",
# "What types of pottery have"; or the words of counting and gathering
_PLURAL = re.compile(
    r"\b(?:what|which)\s+(?:\w+\s+){0,2}?\w+s(?:\s+of\s+\w+)?\s+(?:has|have|had|does|do|did|are|were)\b", re.I
)
_GATHERING = re.compile(r"\b(?:how\s+many|both|in\s+what\s+ways|what\s+are\s+some|where\s+ha(?:s|ve))\b", re.I)


FREE_PER_SESSION = 3  # results of one session before the next ones from it count less


def asks_for_many(question: str) -> bool:
    """Whether ``question`` asks for several things that may have been said at different times."""
    return bool(_PLURAL.search(question) or _GATHERING.search(question))


def spread(ranked: Sequence[Ranked], limit: int, penalty: float) -> list[Ranked]:
    """The first ``limit`` of ``ranked`` (best first) chosen one at a time, each candidate's score multiplied by
    ``penalty`` for every result already chosen from its session beyond FREE_PER_SESSION (memories outside a session
    are never penalised); the rest follow in their order."""
    chosen: list[Ranked] = []
    left = list(ranked)
    taken: dict[str, int] = {}
    while left and len(chosen) < limit:
        best = max(
            left, key=lambda item: item.score * penalty ** max(0, taken.get(_session(item), 0) - FREE_PER_SESSION + 1)
        )
        left.remove(best)
        chosen.append(best)
        session = _session(best)
        if session:
            taken[session] = taken.get(session, 0) + 1
    return chosen + left


def _session(item: Ranked) -> str:
    session = getattr(item.memory, "session", None)
    return f"{item.memory.agent}\x1f{'/'.join(item.memory.scope)}\x1f{session}" if session else ""
