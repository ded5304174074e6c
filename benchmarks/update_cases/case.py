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


def sources_of(case: Case) -> tuple[str, ...]:
    """The source of each statement (told-by-user unless the case says otherwise)."""
    return case.sources or ("told-by-user",) * len(case.statements)
