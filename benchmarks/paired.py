"""Two retrieval runs compared question by question: how many each found, how many only one of them found, and the
exact McNemar test on those (the two-sided binomial p-value of the split, 1.0 when none differ). A difference of a
few questions between two rankers says little unless the split is lopsided; this says how lopsided."""

from __future__ import annotations

import math
from collections.abc import Sequence


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """Two-sided exact p-value that questions found by one run only split this way when neither run is better."""
    n = only_first + only_second
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, j) for j in range(min(only_first, only_second) + 1)) / 2**n
    return min(1.0, 2 * tail)


def _same_questions(first: Sequence, second: Sequence) -> None:
    if len(first) != len(second):
        raise ValueError(f"the runs answered different numbers of questions ({len(first)} and {len(second)})")


def compare(first: Sequence[bool], second: Sequence[bool]) -> dict[str, float]:
    """Hits of two runs over the same questions, in the same order."""
    _same_questions(first, second)
    only_first = sum(a and not b for a, b in zip(first, second))
    only_second = sum(b and not a for a, b in zip(first, second))
    return {
        "first": sum(first),
        "second": sum(second),
        "only_first": only_first,
        "only_second": only_second,
        "p": round(mcnemar_exact(only_first, only_second), 3),
    }


def compare_ranks(first: Sequence[int], second: Sequence[int]) -> dict[str, float]:
    """Ranks (1-based, 0 when not found) of the same answers in two runs: how often each ranks it higher, with the
    exact sign test. Uses every rank the runs return, not only those across one cut-off."""
    _same_questions(first, second)
    worst = max([*first, *second], default=0) + 1
    a = [rank or worst for rank in first]
    b = [rank or worst for rank in second]
    better_first = sum(x < y for x, y in zip(a, b))
    better_second = sum(y < x for x, y in zip(a, b))
    return {
        "better_first": better_first,
        "better_second": better_second,
        "p": round(mcnemar_exact(better_first, better_second), 3),
    }
