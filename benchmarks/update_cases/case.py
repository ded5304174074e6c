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


U, C, R, N, W = "update", "chain", "restatement", "unrelated", "weaker"
# Traps (benchmarks.update_cases.traps): a later statement that narrows the context ("in test mode ...") must leave
# the earlier one recallable (both kept, context-dependent); one statement of another value against several
# independent observations must leave them recallable (a recorded contradiction, not an update).
Q, E = "qualified", "evidence"
KEPT_KINDS = (R, N, W, Q, E)  # kinds whose earlier statements must stay recallable (never superseded)


def sources_of(case: Case) -> tuple[str, ...]:
    """The source of each statement (told-by-user unless the case says otherwise)."""
    return case.sources or ("told-by-user",) * len(case.statements)
