"""One knowledge-update case and the kinds of case."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """Statements in the order they were learned, ``days`` apart; ``query`` asks for the current fact."""

    kind: str
    statements: tuple[str, ...]
    query: str
    sources: tuple[str, ...] = ()  # one per statement; told-by-user by default
    days: int = 40
    language: str = "en"


U, C, R, N, W = "update", "chain", "restatement", "unrelated", "weaker"
# Traps (benchmarks.update_cases.traps): a later statement that narrows the context ("in test mode ...") must leave
# the earlier one recallable (both kept, context-dependent); one statement of another value against several
# independent observations must leave them recallable (a recorded contradiction, not an update).
Q, E = "qualified", "evidence"
# Two facts that hold together, said in the same frame with another value (a second pet, a second allergy, the
# designers after the engineers): nothing explicit says the first stopped holding, so it must stay recallable.
K = "coexist"
# Issue 73: routine notes about one subject (three compatible notes; the question asks about the first), and look-alike
# subjects (the same frame about another person or thing; the question asks about the first): all hold, none flags.
T, L = "routine", "lookalike"
KEPT_KINDS = (R, N, W, Q, E, K, T, L)  # kinds whose earlier statements must stay recallable (never superseded)


def sources_of(case: Case) -> tuple[str, ...]:
    """The source of each statement (told-by-user unless the case says otherwise)."""
    return case.sources or ("told-by-user",) * len(case.statements)
