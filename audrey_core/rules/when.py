"""Time in a question, read against the clock: a calendar date, month or year ("on 9 November, 2022", "in May 2023",
"in 2022", "between August 11 and August 15 2023") is explicit; a relative or partial one ("yesterday", "last week",
"two months ago", "in June", "last Tuesday") is vague; "before" / "after" / "since" / "until" a date bound it on one
side, and "before" / "after" an event ("before she moved to Berlin") names the event to date by. "The first time",
"originally" ask for the earliest, "most recently", "these days" for the latest. Pure: recall decides what each
means for ranking (:mod:`audrey_core.stages.recall_time`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
NUMBERS |= {"nine": 9, "ten": 10, "a couple of": 2, "a few": 3, "several": 3}

_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20|21)\d\d)"
_COUNT = r"(\d+|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + ")"
# a date with its year, in the forms people write: 9 November, 2022 / November 9th 2022 / 9th of November 2022
_FULL_DATE = re.compile(
    rf"\b(?:{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}|{_MONTH}\s+{_DAY},?\s+{_YEAR}|{_YEAR}-(\d\d)-(\d\d))\b", re.I
)
_DAY_MONTH = re.compile(rf"\b(?:{_DAY}(?:\s+of)?\s+{_MONTH}|{_MONTH}\s+{_DAY})\b(?!,?\s+{_YEAR})", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b", re.I)
_YEAR_ALONE = re.compile(rf"\b(?:in|during|throughout|of|since|before|after|by|until|from)\s+{_YEAR}\b", re.I)
# a month with no year needs a word before it ("May I ..." and "march" are not months)
_MONTH_ALONE = re.compile(
    rf"\b(in|during|throughout|early|late|mid|since|before|after|by|until|this|last|from)\s+(?:(?:early|late|mid)-?\s*)?{_MONTH}\b",
    re.I,
)
_BETWEEN = re.compile(r"\bbetween\b(.+?)\band\b(.+)", re.I)
_SIDE = re.compile(r"\b(before|after|since|until|till|by)\s+$", re.I)
_UNIT_BEFORE = re.compile(r"\b(?:the\s+)?(day|week|weekend|month|year)\s+before\s+$", re.I)
_AGO = re.compile(rf"\b{_COUNT}\s+(day|week|month|year)s?\s+ago\b", re.I)
_PAST = re.compile(rf"\b(?:the\s+)?(?:past|last)\s+{_COUNT}\s+(day|week|month|year)s?\b", re.I)
_WEEKDAY = re.compile(r"\b(?:on\s+|last\s+)(" + "|".join(WEEKDAYS) + r")\b", re.I)
_RELATIVE = {
    "today": (0, 1, "day"),
    "tonight": (0, 1, "day"),
    "this morning": (0, 1, "day"),
    "this afternoon": (0, 1, "day"),
    "this evening": (0, 1, "day"),
    "yesterday": (-1, 0, "day"),
    "last night": (-1, 0, "day"),
    "this week": (0, 1, "week"),
    "last week": (-1, 0, "week"),
    "last weekend": (-1, 0, "weekend"),
    "this weekend": (0, 1, "weekend"),
    "this month": (0, 1, "month"),
    "last month": (-1, 0, "month"),
    "this year": (0, 1, "year"),
    "last year": (-1, 0, "year"),
}
_RELATIVE_RE = re.compile(r"\b(" + "|".join(sorted(_RELATIVE, key=len, reverse=True)) + r")\b", re.I)
_EVENT = re.compile(r"\b(before|after)\s+(?!(?:that|then|this|it|which|what|when|and|or)\b)([a-z][^?.!,;]{3,})", re.I)
# Only phrases that ask about time: a bare "first" ("first place") or "now" and "still" (in most questions) are not
# read, and each order read costs recall a look at every candidate.
_EARLIEST = re.compile(r"\b(?:first\s+time|earliest|originally|initially|at\s+first|to\s+begin\s+with)\b", re.I)
_LATEST = re.compile(
    r"\b(?:last\s+time|most\s+recent(?:ly)?|latest|recently|lately|nowadays|these\s+days|currently|"
    r"at\s+the\s+moment|any\s*more)\b",
    re.I,
)


@dataclass(frozen=True)
class TimeWindow:
    """A span of time a question names: from ``start`` (inclusive) to ``end`` (exclusive); ``None``: open."""

    start: datetime | None
    end: datetime | None
    explicit: bool  # a calendar date, month or year (or a side of one): recall favours it strongly (date_boost)
    phrase: str  # the words it was read from


@dataclass(frozen=True)
class QueryTime:
    """What a question says about time."""

    window: TimeWindow | None = None
    anchor: tuple[str, str] | None = None  # ("before" | "after", the event's words) when it dates by an event
    order: str | None = None  # "earliest" or "latest"

    def __bool__(self) -> bool:
        return self.window is not None or self.anchor is not None or self.order is not None


def read_time(query: str, now: datetime) -> QueryTime:
    """What ``query`` says about time, read against ``now`` (an aware datetime; days begin in its time zone)."""
    window = _explicit(query, now) or _vague(query, now)
    anchor = None
    if window is None:
        found = _EVENT.search(query)
        if found:
            anchor = (found.group(1).lower(), found.group(2).strip())
    order = "earliest" if _EARLIEST.search(query) else "latest" if _LATEST.search(query) else None
    return QueryTime(window, anchor, order)


def _midnight(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _day(now: datetime, year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=now.tzinfo)
    except ValueError:  # 31 February
        return None


def _month_span(now: datetime, year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=now.tzinfo)
    return start, datetime(year + month // 12, month % 12 + 1, 1, tzinfo=now.tzinfo)


def _year_span(now: datetime, year: int) -> tuple[datetime, datetime]:
    return datetime(year, 1, 1, tzinfo=now.tzinfo), datetime(year + 1, 1, 1, tzinfo=now.tzinfo)


def _latest_year(now: datetime, month: int, day: int = 1) -> int:
    """The year of the most recent ``month``/``day`` at or before ``now`` (a date said without its year)."""
    return now.year if (month, day) <= (now.month, now.day) else now.year - 1


def _full_dates(text: str, now: datetime) -> list[tuple[int, int, datetime]]:
    """(start, end, day) of each date written with its year."""
    found = []
    for m in _FULL_DATE.finditer(text):
        g = m.groups()
        if g[0] is not None:
            day = _day(now, int(g[2]), MONTHS[g[1].lower()], int(g[0]))
        elif g[3] is not None:
            day = _day(now, int(g[5]), MONTHS[g[3].lower()], int(g[4]))
        else:
            day = _day(now, int(g[6]), int(g[7]), int(g[8]))
        if day is not None:
            found.append((m.start(), m.end(), day))
    return found


def _one_date(text: str, now: datetime, year: int | None = None) -> tuple[datetime, datetime] | None:
    """The span of the first date, month or year in ``text`` (a day or month without a year takes ``year``, else
    the most recent one)."""
    dates = _full_dates(text, now)
    if dates:
        return dates[0][2], dates[0][2] + timedelta(days=1)
    found = _DAY_MONTH.search(text)
    if found:
        g = found.groups()
        month, day = (MONTHS[g[1].lower()], int(g[0])) if g[0] else (MONTHS[g[2].lower()], int(g[3]))
        start = _day(now, year or _latest_year(now, month, day), month, day)
        return (start, start + timedelta(days=1)) if start else None
    found = _MONTH_YEAR.search(text)
    if found:
        return _month_span(now, int(found.group(2)), MONTHS[found.group(1).lower()])
    found = _YEAR_ALONE.search(text) or re.search(rf"\b{_YEAR}\b", text)
    if found:
        return _year_span(now, int(found.group(1)))
    return None


def _explicit(query: str, now: datetime) -> TimeWindow | None:
    between = _BETWEEN.search(query)
    if between:
        later = _one_date(between.group(2), now)
        if later is not None:
            earlier = _one_date(between.group(1), now, later[0].year)
            if earlier is not None and earlier[0] <= later[0]:
                return TimeWindow(earlier[0], later[1], True, between.group(0).strip())
    spans = [(first, last, day, day + timedelta(days=1)) for first, last, day in _full_dates(query, now)]
    if not spans:
        found = _MONTH_YEAR.search(query)
        if found:
            month = _month_span(now, int(found.group(2)), MONTHS[found.group(1).lower()])
            spans = [(found.start(), found.end(), *month)]
    if not spans:
        found = _YEAR_ALONE.search(query)
        if found:
            year = int(found.group(1))
            first = found.start() + found.group(0).lower().rfind(found.group(1))
            spans = [(first, found.end(), *_year_span(now, year))]
    if not spans:
        return None
    first, last, start, end = spans[0]
    phrase = query[first:last]
    unit = _UNIT_BEFORE.search(query[:first])
    if unit is not None:  # "the week before 16 November 2023"
        length = _length(unit.group(1).lower(), 1)
        return TimeWindow(start - length, start, True, f"{unit.group(0).strip()} {phrase}")
    side = _SIDE.search(query[:first])
    if side is None:
        return TimeWindow(start, end, True, phrase)
    word = side.group(1).lower()
    if word == "before":
        return TimeWindow(None, start, True, f"before {phrase}")
    if word == "after":
        return TimeWindow(end, None, True, f"after {phrase}")
    if word == "since":
        return TimeWindow(start, None, True, f"since {phrase}")
    return TimeWindow(None, end, True, f"{word} {phrase}")  # until, till, by


def _vague(query: str, now: datetime) -> TimeWindow | None:
    today = _midnight(now)
    found = _RELATIVE_RE.search(query)
    if found:
        phrase = found.group(1).lower()
        first, last, unit = _RELATIVE[phrase]
        if unit == "day":
            return TimeWindow(today + timedelta(days=first), today + timedelta(days=last), False, phrase)
        if unit in ("week", "weekend"):
            monday = today - timedelta(days=today.weekday())
            start = monday + timedelta(weeks=first) + (timedelta(days=5) if unit == "weekend" else timedelta(0))
            return TimeWindow(start, start + timedelta(days=2 if unit == "weekend" else 7), False, phrase)
        if unit == "month":
            month = (now.year * 12 + now.month - 1) + first
            return TimeWindow(*_month_span(now, month // 12, month % 12 + 1), False, phrase)
        return TimeWindow(*_year_span(now, now.year + first), False, phrase)
    found = _AGO.search(query)
    if found:
        count, unit = _count(found.group(1)), found.group(2).lower()
        center = now - _length(unit, count)
        half = _length(unit, 1) / 2
        return TimeWindow(center - half, center + half, False, found.group(0))
    found = _PAST.search(query)
    if found:
        return TimeWindow(now - _length(found.group(2).lower(), _count(found.group(1))), None, False, found.group(0))
    found = _WEEKDAY.search(query)
    if found:
        back = (today.weekday() - WEEKDAYS.index(found.group(1).lower())) % 7 or 7
        start = today - timedelta(days=back)
        return TimeWindow(start, start + timedelta(days=1), False, found.group(0))
    found = _MONTH_ALONE.search(query)
    if found:
        month = MONTHS[found.group(2).lower()]
        year = now.year if found.group(1).lower() == "this" else _latest_year(now, month)
        if found.group(1).lower() == "last" and year == now.year and month == now.month:
            year -= 1
        return TimeWindow(*_month_span(now, year, month), False, found.group(0))
    return None


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[word.lower()]


def _length(unit: str, count: int) -> timedelta:
    return timedelta(days=count * {"day": 1, "week": 7, "weekend": 2, "month": 30.44, "year": 365.25}[unit])
