"""Quantities in a short statement, normalised so that one value written two ways compares equal: "300 seconds" and
"five minutes", "2 GB" and "2048 MB", "2am" and "02:00", and a range ("12 to 13 minutes", "between 6 and 8 hours")
that contains a single value. Pure; the update and conflict rules compare what these functions return.

A value is an interval ``(low, high)`` in its dimension's base unit (seconds, bytes, minutes after midnight for a
clock time, the unit itself otherwise), or the text of a literal that is no number (a version such as 1.2.3, an
address such as 10.0.0.5). Two values agree when their intervals overlap within :data:`TOLERANCE` (binary and decimal
megabytes differ by 2.4%) for a dimension of several units, exactly otherwise; a hedged value ("about 12 minutes")
is widened by :data:`APPROXIMATE`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from types import MappingProxyType

from ...claims.parse import WORD

Value = tuple[float, float] | str

STOPWORDS = frozenset(
    "a an the is are was were be been being of in on at to for from by with and or as it its this that these those "
    "we our you your they their he she his her i my me us them than then so such when if after before while "
    "because but since until above below over under more less about around only also again each every per".split()
)
NEGATIONS = frozenset(
    "not no never cannot can't couldn't doesn't don't isn't aren't wasn't weren't won't wouldn't didn't shouldn't "
    "hasn't haven't hadn't without none nobody nothing neither nor".split()
)
# Spellings of a unit -> (dimension, factor to the dimension's base unit). Any other word after a number is a unit
# of its own (singularised), compared only with itself.
_UNIT_SPELLINGS = (
    ("req/s", 1.0, "req/s reqs/s requests/s request/s requests/sec req/sec rps qps"),
    ("s", 0.001, "ms millisecond milliseconds msec"),
    ("s", 1.0, "s sec secs second seconds"),
    ("s", 60.0, "min mins minute minutes"),
    ("s", 3600.0, "h hr hrs hour hours"),
    ("s", 86400.0, "day days"),
    ("s", 604800.0, "week weeks"),
    ("%", 1.0, "% percent pct"),
    ("bytes", 1e3, "kb kib kilobyte kilobytes"),
    ("bytes", 1e6, "mb mib megabyte megabytes"),
    ("bytes", 1e9, "gb gib gigabyte gigabytes"),
    ("bytes", 1e12, "tb tib terabyte terabytes"),
    ("g", 1e-3, "mg milligram milligrams"),
    ("g", 1.0, "g gram grams"),
    ("g", 1e3, "kg kilo kilos kilogram kilograms"),
    ("g", 453.6, "lb lbs"),
    ("m", 0.01, "cm centimetre centimetres centimeter centimeters"),
    ("m", 1.0, "metre metres meter meters"),
    ("m", 1e3, "km kilometre kilometres kilometer kilometers"),
)
_UNITS = {spelling: (dimension, factor) for dimension, factor, names in _UNIT_SPELLINGS for spelling in names.split()}
_PHRASES = {  # several words for one unit, longest first
    "requests per second": ("req/s", 1.0),
    "request per second": ("req/s", 1.0),
    "queries per second": ("req/s", 1.0),
    "req per second": ("req/s", 1.0),
    "per cent": ("%", 1.0),
}
CONVERTED = frozenset(dimension for dimension, factor, _ in _UNIT_SPELLINGS if factor != 1.0)
TOLERANCE = 0.03
APPROXIMATE = 0.10
_HEDGE = re.compile(r"\b(?:about|around|roughly|approximately|approx|nearly|almost)\b|~")

_NUMBER_NAMES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
).split()
NUMBER_WORDS = {w: n for n, w in enumerate(_NUMBER_NAMES)} | {
    w: 10 * n for n, w in enumerate("_ _ _ thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"
}
NUMBER_WORDS["hundred"] = 100
# A number word counts before a unit-like word ("two weeks"), not as a pronoun ("the new one", "one of them").
_NUMBER_WORD = re.compile(rf"\b({'|'.join(NUMBER_WORDS)})\b(?= (?!(?:{'|'.join(STOPWORDS)})\b)[a-z])")
# "an hour", "every week": one of a time unit; "half an hour", "a quarter of an hour": a fraction of one.
_ONE_UNIT = re.compile(r"\b(?:an?|every) (?=(?:second|minute|hour|day|week)\b)")
_FRACTION = re.compile(r"\b(?:(half) an?|an? (quarter) of an?|(three quarters) of an?) (?=(?:minute|hour|day|week)\b)")
_FRACTIONS = {"half": "0.5 ", "quarter": "0.25 ", "three quarters": "0.75 "}
# "is weekly." as a value: a period of one unit (not "the weekly standup", where it names the thing).
_PERIODIC = re.compile(r"\b(hourly|daily|weekly|fortnightly)(?=\s*(?:$|[.,;!?]))")
# "an hour and a half", "two and a half days": one value with its half
_AND_A_HALF = re.compile(
    rf"\b(an?|\d+|{'|'.join(_NUMBER_NAMES[1:])}) (?:(second|minute|hour|day|week)s? and a half|and a half "
    r"(second|minute|hour|day|week)s?)\b"
)
# money: "$2,000" and "2000 dollars", "900 €" and "900 euros"; "1.200 €" groups thousands with a dot
_CURRENCIES = {"$": "dollars", "€": "euros", "£": "pounds"}
# Units that say a number is a measured value wherever it stands ("weighs 82 kg", "beträgt 900 Euro"), unlike a
# number after a noun it names ("worker 4"): the dimensions above and money (as :func:`_unit` singularises it).
MEASURED = frozenset(d for d, _, _ in _UNIT_SPELLINGS) | frozenset("dollar euro pound".split())
_SYMBOL_FIRST = re.compile(r"([$€£])\s?(\d[\d.,]*\d|\d)")
_SYMBOL_AFTER = re.compile(r"(\d[\d.,]*\d|\d)\s?([€£$])")
_DOT_THOUSANDS = re.compile(r"(?<![\d.,])(\d{1,3}(?:\.\d{3})+)(?= (?:dollars?|euros?|pounds?)\b)")
_PERIODS = {"hourly": "every 1 hour", "daily": "every 1 day", "weekly": "every 1 week", "fortnightly": "every 2 weeks"}
_RANGE = re.compile(r"(?<!from )(?<![\w.])(?:between )?(\d+(?:\.\d+)?)\s*(?:to|and)\s*(?=\d+(?:\.\d+)?\s*[a-z%])")
_HYPHEN_RANGE = re.compile(r"(?<![\w.-])(\d+)\s*[-–]\s*(\d+)(?=\s*[a-z%])")
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,:-]\d+)*)(?:\s*(%|[a-z][a-z/]*(?:\s+per\s+[a-z]+)?))?", re.IGNORECASE)
_ORDINAL = re.compile(r"(st|nd|rd|th)\b")
MARKED_VALUE = re.compile(r"\d[.:-]\d")


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``; a literal joining digits and letters with dots, colons, hyphens or @
    (8:30, 1.28, 555-0142, a@b.org) is one word."""
    return list(_split(text))


def cased_words(text: str) -> list[str]:
    """The words of :func:`words`, their case kept."""
    return WORD.findall(text)


# Per-text parses are cached for this many texts: a statement is judged against each of its neighbours, and each of
# them against theirs; during a bulk load the same texts come back thousands of pairs apart.
TEXT_CACHE = 32768


@functools.lru_cache(maxsize=TEXT_CACHE)
def _split(text: str) -> tuple[str, ...]:
    return tuple(WORD.findall(text.lower()))


@functools.lru_cache(maxsize=TEXT_CACHE)
def quantities(text: str, value_leads: frozenset[str] | None = None) -> Mapping[str, frozenset[Value]]:
    """Values in ``text`` by dimension ('' for a bare number, 'clock' for a time of day). With ``value_leads``, only
    the numbers that stand where a value does (after one of those words: "is 100", "at 10", "has 6") count, not
    after a noun that they name ("worker 4", "ticket 41")."""
    found: dict[str, set[Value]] = {}
    lowered = _SYMBOL_FIRST.sub(lambda m: f"{m[2]} {_CURRENCIES[m[1]]}", text.lower())
    lowered = _SYMBOL_AFTER.sub(lambda m: f"{m[1]} {_CURRENCIES[m[2]]}", lowered)
    lowered = _DOT_THOUSANDS.sub(lambda m: m[1].replace(".", ""), lowered)
    lowered = _AND_A_HALF.sub(_with_half, lowered)
    lowered = _NUMBER_WORD.sub(lambda m: str(NUMBER_WORDS[m.group(1)]), lowered)
    lowered = _PERIODIC.sub(lambda m: _PERIODS[m.group(1)], lowered)
    lowered = _FRACTION.sub(lambda m: _FRACTIONS[next(g for g in m.groups() if g)], lowered)
    lowered = _ONE_UNIT.sub("1 ", lowered)
    hedged = [m.end() for m in _HEDGE.finditer(lowered)]
    lowered = _HYPHEN_RANGE.sub(lambda m: f"{m[1]} to {m[2]}" if int(m[1]) < int(m[2]) else m[0], lowered)
    ranges = list(_RANGE.finditer(lowered))
    range_low = {m.end(): (float(m.group(1)), m.start(1)) for m in ranges}  # upper number's start -> lower end
    skip = {m.start(1) for m in ranges}
    for match in _NUMBER.finditer(lowered):
        if match.start(1) in skip:
            continue  # the lower end of a range, taken with its upper end
        literal = match.group(1)
        after = lowered[match.start(1) + len(literal) :]
        if _ORDINAL.match(after):  # "the 1st", "the 15th": a day or a rank, not a unit "st" / "th"
            after = after[2:]
        before = words(lowered[: match.start(1)])
        named = value_leads is not None and before and before[-1] not in value_leads
        if named and not MARKED_VALUE.search(literal) and match.start(1) not in range_low and not measured(after):
            continue  # "ticket 41" names a ticket; "Kubernetes 1.28", "at 8:30" or "555-0142" are values
        clock = _clock(literal, after)
        if clock is not None:
            found.setdefault("clock", set()).add((clock, clock))
            continue
        try:
            number = float(literal.replace(",", ""))
        except ValueError:
            found.setdefault(_unit(after)[0], set()).add(literal)
            continue
        dimension, factor = _unit(after)
        low, start = range_low.get(match.start(1), (number, match.start(1)))
        low, high = sorted((low * factor, number * factor))
        if any(0 <= start - end <= 2 for end in hedged):
            low, high = low * (1 - APPROXIMATE), high * (1 + APPROXIMATE)
        found.setdefault(dimension, set()).add((low, high))
    return MappingProxyType({dimension: frozenset(values) for dimension, values in found.items()})


def measured(after: str) -> bool:
    """Whether the words after a number give it a unit of measure or money (see :data:`MEASURED`)."""
    return _unit(after)[0] in MEASURED


def _with_half(match: re.Match[str]) -> str:
    """ "an hour and a half" -> "1.5 hours"; "two and a half days" -> "2.5 days"."""
    count = match[1]
    whole = 1 if count in ("a", "an") else int(count) if count.isdigit() else NUMBER_WORDS[count]
    return f"{whole}.5 {match[2] or match[3]}s"


def _clock(literal: str, after: str) -> float | None:
    """Minutes after midnight for "9am", "9:30 pm", "10:30" or "02:00"; ``None`` for anything else."""
    suffix = re.match(r"\s*(am|pm|a\.m\.|p\.m\.)(?![a-z])", after)
    parts = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?", literal)
    hours = re.match(r"\s*(?:uhr|heures?)\b", after)  # "18 Uhr", "8 heures": a time of day ("5 h" is a duration)
    if parts is None or (suffix is None and parts.group(2) is None and hours is None):
        return None
    hour, minute = int(parts.group(1)), int(parts.group(2) or 0)
    if hour > 24 or minute > 59:
        return None
    if suffix is not None:
        if hour > 12:
            return None
        hour = hour % 12 + (12 if suffix.group(1).startswith("p") else 0)
    return float(hour * 60 + minute)


def _unit(after: str) -> tuple[str, float]:
    after = after.lstrip()
    for phrase, unit in _PHRASES.items():
        if after.startswith(phrase):
            return unit
    word = re.match(r"[a-z%][a-z/]*", after)
    if not word or word.group(0) in STOPWORDS or word.group(0) in NEGATIONS:
        return "", 1.0
    if word.group(0) in _UNITS:
        return _UNITS[word.group(0)]
    unit = word.group(0)
    return (unit[:-1] if unit.endswith("s") and len(unit) > 3 else unit), 1.0


def agree(a: Value, b: Value, converted: bool = False) -> bool:
    """Whether two values of one dimension can be the same value (see the module doc); ``converted``: the values
    were converted between units, so rounding in either is allowed for."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    slack = TOLERANCE * max(abs(a[1]), abs(b[1])) if converted else 0.0
    return a[0] <= b[1] + slack and b[0] <= a[1] + slack


def disjoint(a: frozenset[Value], b: frozenset[Value], dimension: str = "") -> bool:
    """True when no value of ``a`` agrees with any of ``b`` (values of ``dimension``)."""
    converted = dimension in CONVERTED
    return not any(agree(x, y, converted) for x in a for y in b)


def same_quantities(existing: str, incoming: str, value_leads: frozenset[str] | None = None) -> bool:
    """Whether the two texts state values in a common dimension and every common dimension's values agree: the
    same value written differently ("300 seconds" / "five minutes"), which is no change."""
    a, b = quantities(existing, value_leads), quantities(incoming, value_leads)
    shared = set(a) & set(b)
    if not shared:  # a bare number beside the same number with its unit ("is 7" / "is seven years old")
        bare, measured = (a, b) if set(a) == {""} else (b, a) if set(b) == {""} else (None, None)
        plain = [d for d in measured or () if d not in CONVERTED and d not in ("", "clock")]
        return (
            bare is not None
            and measured is not None
            and len(measured) == 1
            and len(plain) == 1
            and not disjoint(bare[""], measured[plain[0]])
        )
    return not any(disjoint(a[d], b[d], d) for d in shared)


def show(values: frozenset[Value], dimension: str = "") -> str:
    """Values for a reason a person reads: "80", "80 or 100", "10-20" (a clock time as HH:MM)."""

    def one(x: float) -> str:
        return f"{int(x) // 60:02d}:{int(x) % 60:02d}" if dimension == "clock" else f"{x:g}"

    shown = sorted(
        v if isinstance(v, str) else one(v[0]) if v[0] == v[1] else f"{one(v[0])}-{one(v[1])}" for v in values
    )
    return " or ".join(shown)
