"""A deterministic conflict detector for when no LLM is configured (and a guard before any reinforcement).

This is a heuristic, not understanding. Two texts already known to be about the same subject (by embedding
similarity) are judged to conflict when:

* they state quantities in the same unit whose values do not overlap ("100 req/s" vs "25 req/s"; unitless numbers
  count as one unit, so "HTTP 429" vs "HTTP 429" agrees), or
* one negates the other: the parity of negation words differs while most content words are shared
  ("the cache is redis" vs "the cache is not redis").

It misses paraphrased disagreement ("the limit went up") and flags consistent statements that quote different
numbers ("429 at 120 req/s" vs "throttles above 100 req/s"). Configure an LLM for judgement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NEGATIONS = frozenset(
    "not no never cannot can't couldn't doesn't don't isn't aren't wasn't weren't won't wouldn't didn't shouldn't "
    "hasn't haven't hadn't without none nobody nothing neither nor".split()
)
STOPWORDS = frozenset(
    "a an the is are was were be been being of in on at to for from by with and or as it its this that these those "
    "we our you your they their he she his her i my me us them than then so such when if after before while "
    "because but since until above below over under more less about around only also again each every per".split()
)
# Unit spellings that mean the same thing; anything else is compared by its first word, singularised.
UNIT_ALIASES = {
    "req/s": (
        "req/s",
        "reqs/s",
        "requests/s",
        "request/s",
        "requests per second",
        "request per second",
        "req per second",
        "requests/sec",
        "req/sec",
        "rps",
        "qps",
        "queries per second",
    ),
    "ms": ("ms", "millisecond", "milliseconds", "msec"),
    "s": ("s", "sec", "secs", "second", "seconds"),
    "min": ("min", "mins", "minute", "minutes"),
    "h": ("h", "hr", "hrs", "hour", "hours"),
    "day": ("day", "days"),
    "%": ("%", "percent", "per cent", "pct"),
    "gb": ("gb", "gib", "gigabyte", "gigabytes"),
    "mb": ("mb", "mib", "megabyte", "megabytes"),
    "kb": ("kb", "kib", "kilobyte", "kilobytes"),
}
_ALIAS_LOOKUP = sorted(
    ((spelling, unit) for unit, spellings in UNIT_ALIASES.items() for spelling in spellings),
    key=lambda pair: -len(pair[0]),
)
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)(?:\s*(%|[a-z][a-z/]*(?:\s+per\s+[a-z]+)?))?", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9']+")


@dataclass(frozen=True)
class Conflict:
    """Why two texts were judged to conflict."""

    kind: str  # "quantity" or "negation"
    detail: str


def quantities(text: str) -> dict[str, set[float | str]]:
    """Numbers in ``text`` grouped by normalised unit ('' for a bare number). A dotted literal that is no number
    (a version such as 1.2.3, an address such as 10.0.0.5) is kept as its text."""
    found: dict[str, set[float | str]] = {}
    lowered = text.lower()
    for match in _NUMBER.finditer(lowered):
        literal = match.group(1)
        try:
            value: float | str = float(literal.replace(",", ""))
        except ValueError:
            value = literal
        found.setdefault(_unit(lowered[match.start(1) + len(match.group(1)) :]), set()).add(value)
    return found


def _unit(after: str) -> str:
    after = after.lstrip()
    for spelling, unit in _ALIAS_LOOKUP:
        if after.startswith(spelling) and (len(after) == len(spelling) or not after[len(spelling)].isalnum()):
            return unit
    word = re.match(r"[a-z][a-z/]*", after)
    if not word or word.group(0) in STOPWORDS or word.group(0) in NEGATIONS:
        return ""
    unit = word.group(0)
    return unit[:-1] if unit.endswith("s") and len(unit) > 3 else unit


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def detect_conflict(existing: str, incoming: str) -> Conflict | None:
    """The conflict between two same-subject texts, or ``None`` when the heuristic sees none."""
    a, b = quantities(existing), quantities(incoming)
    for unit in sorted(set(a) & set(b)):
        if a[unit].isdisjoint(b[unit]):
            label = unit or "a bare number"
            return Conflict("quantity", f"{sorted(map(str, a[unit]))} vs {sorted(map(str, b[unit]))} ({label})")
    words_a, words_b = _words(existing), _words(incoming)
    neg_a = sum(w in NEGATIONS or w.endswith("n't") for w in words_a)
    neg_b = sum(w in NEGATIONS or w.endswith("n't") for w in words_b)
    if neg_a % 2 != neg_b % 2:
        content_a = {w for w in words_a if w not in STOPWORDS and w not in NEGATIONS}
        content_b = {w for w in words_b if w not in STOPWORDS and w not in NEGATIONS}
        union = content_a | content_b
        if union and len(content_a & content_b) / len(union) >= 0.5:
            return Conflict("negation", "one statement negates the other")
    return None
