"""Qualifiers: the words that narrow where a claim holds ("in test mode", "for hotfixes", "on weekends", "when it
rains", "this week", "to Canada"). A later statement whose context is narrower (or other) than an earlier one's is
no update of it: both hold, each in its context (seed 002's context-dependent claims). Pure; word-level, so it finds
the usual English shapes, not every one:

* a phrase before the subject, opened by a preposition or a condition ("In test mode the API rate limit ...",
  "During the holiday freeze deploys ...", "When travelling the user ...", "This week the standup ..."); phrases
  that date a change ("since March", "after the reorg", "from now on", "as of today") are no qualifier;
* a condition anywhere ("... if the cache is cold", "unless", "except", "when", "while");
* "for" and a plural ("for batch jobs", "for enterprise customers"), not after a verb it belongs to ("works for");
* "in / on / at / during" and a context word: a mode, an environment, a platform, a season, a part of the day or the
  week ("in staging", "on the mobile app", "on weekends", "in summer");
* a weekday ("on Sundays") or a place ("to Canada", "in Germany") that the other statement has none of: where both
  have one, it is the value that changed ("moved to Tuesdays", "moved to York").
"""

from __future__ import annotations

import functools
import re

from .quantities import STOPWORDS, TEXT_CACHE

_FRONT_LEADS = frozenset(
    "in on for during when whenever while if unless except at over under within outside throughout this next "
    "until".split()
)
_CLAUSE = re.compile(r"\b(?:when|whenever|while|if|unless|except)\b[^,.;]*")
_FOR_PLURAL = re.compile(r"\b([a-z]+) for ((?:[a-z]+ )?[a-z]+s)\b")
_NOT_FOR_QUALIFIER = frozenset(
    "work works worked working pay pays paid vote votes voted apply applies applied look looks looking wait waits "
    "waiting search searching responsible known famous used thanks asked asking ask".split()
)
_CONTEXT_WORDS = (
    "mode modes environment environments env staging sandbox test tests testing dev development production prod "
    "preview beta trial weekend weekends weekday weekdays holiday holidays summer winter spring autumn fall season "
    "night nights evening evenings morning mornings peak rush mobile app apps web desktop ios android windows linux "
    "macos browser region regions"
)
# A context word ends its phrase ("in test mode the ...", "on weekends."), not a noun's modifier ("the night shift").
_CONTEXT = re.compile(
    rf"\b(?:in|on|at|during|over) (?:the |a |an )?(?:[a-z]+ )?(?:{'|'.join(_CONTEXT_WORDS.split())})"
    rf"(?=$|[,.;!?]| (?:{'|'.join(STOPWORDS)})\b)"
)
# A time window the claim is limited to; "from next week", "starting tomorrow" date a change instead.
_TIME_WINDOW = re.compile(
    r"(?<!from )(?<!starting )(?<!as of )\b(?:(?:this|next|coming) (?:week|month|weekend|quarter|sprint|year|season"
    r"|semester|term)|today|tonight|tomorrow|temporarily|for now|until further notice|until the end of [a-z]+)\b"
)
_WEEKDAYS = "mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?"
_WEEKDAY = re.compile(rf"\b(?:on|every) (?:the )?(?:(?:first|last|second|third) )?(?:{_WEEKDAYS})\b")
_ANY_WEEKDAY = re.compile(rf"\b(?:{_WEEKDAYS})\b")
# A place that restricts the subject, right after it: "Shipping to Canada takes ...", "Refunds in Germany are ...".
_PLACE = re.compile(
    r"^(?:(?:[Tt]he|[Oo]ur|[Mm]y) )?[A-Za-z]+ (?:to|in|from|for) [A-Z][a-z]+(?: [A-Z][a-z]+)?(?= [a-z])"
)
_WORD = re.compile(r"[a-z0-9']+")


def qualifiers(text: str, other: str) -> frozenset[str]:
    """The phrases of ``text`` that narrow where it holds, as lower-case text (``other``: the statement it is being
    compared with, which tells a fronted phrase from the shared subject, and a weekday or place that is a value)."""
    lowered, other = text.lower(), other.lower()
    own, weekdays = _phrases(text)
    found = own if _has_weekday(other) else own | weekdays
    fronted = _fronted(lowered, other)
    if fronted:  # one phrase for the opening, however many rules saw a part of it
        found = frozenset(f for f in found if not (fronted.startswith(f) or f.startswith(fronted))) | {fronted}
    return frozenset(f for f in found if not _restates(f, other))


@functools.lru_cache(maxsize=TEXT_CACHE)
def _has_weekday(lowered: str) -> bool:
    return _ANY_WEEKDAY.search(lowered) is not None


def _restates(phrase: str, other: str) -> bool:
    """Whether the other statement already names the phrase's context ("for deployments" beside "we deploy"):
    every content word of the phrase begins like one of the other's (five letters)."""
    content = _phrase_content(phrase)
    return bool(content) and content <= _word_starts(other)


@functools.lru_cache(maxsize=TEXT_CACHE)
def _phrase_content(phrase: str) -> frozenset[str]:
    """The first five letters of each content word of a qualifier phrase."""
    return frozenset(w[:5] for w in _WORD.findall(phrase) if w not in STOPWORDS and w not in _FRONT_LEADS)


@functools.lru_cache(maxsize=TEXT_CACHE)
def _word_starts(lowered: str) -> frozenset[str]:
    """The first five letters of each word of a lower-cased statement."""
    return frozenset(w[:5] for w in _WORD.findall(lowered))


@functools.lru_cache(maxsize=TEXT_CACHE)
def _phrases(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The qualifier phrases of ``text`` that do not depend on the other statement, and its weekday phrases; none
    holding a number. After the subject, a phrase holding a number holds the value compared ("... when the job sent
    more than 100 requests"): no context. Before it, a number is the condition's threshold ("For orders above 50
    euros, ...")."""
    lowered = text.lower()
    found = {m.group(0).strip() for m in _CLAUSE.finditer(lowered)}
    found |= {m.group(0) for m in _CONTEXT.finditer(lowered)}
    found |= {m.group(0) for m in _TIME_WINDOW.finditer(lowered)}
    found |= {
        f"for {m.group(2)}"
        for m in _FOR_PLURAL.finditer(lowered)
        if m.group(1) not in _NOT_FOR_QUALIFIER and not STOPWORDS & set(m.group(2).split())
    }
    place = _PLACE.search(text)
    if place is not None:
        found.add(" ".join(place.group(0).lower().split()[-2:]))
    weekdays = {m.group(0) for m in _WEEKDAY.finditer(lowered)}
    own, dated = ({f for f in kind if not any(c.isdigit() for c in f)} for kind in (found, weekdays))
    return frozenset(own), frozenset(dated)


@functools.lru_cache(maxsize=TEXT_CACHE)
def _may_qualify(text: str) -> bool:
    """Whether :func:`qualifiers` can find anything in ``text``, whatever the other statement: a phrase of its own,
    or an opening :func:`_fronted` may read as one."""
    own, weekdays = _phrases(text)
    opening = _opening(text.lower())
    return bool(own or weekdays) or (bool(opening) and opening[0] in _FRONT_LEADS)


@functools.lru_cache(maxsize=TEXT_CACHE)
def _opening(lowered: str) -> tuple[str, ...]:
    """The words :func:`_fronted` reads: up to the first comma when there is one near the start."""
    return tuple(_WORD.findall(lowered.split(",")[0] if "," in lowered[:60] else lowered))


@functools.lru_cache(maxsize=TEXT_CACHE)
def _content_words(lowered: str) -> frozenset[str]:
    """The words of a lower-cased statement, possessives set aside, less the stop words."""
    return frozenset(w.removesuffix("'s") for w in _WORD.findall(lowered)) - STOPWORDS


def _fronted(lowered: str, other: str) -> str | None:
    """A phrase opening ``lowered`` before its first content word that ``other`` shares (the subject both talk of):
    up to a comma when there is one."""
    words = _opening(lowered)
    if not words or words[0] not in _FRONT_LEADS:
        return None
    if "," in lowered[:60]:
        return " ".join(words).strip() or None
    shared = _content_words(other)
    for index, word in enumerate(words[1:], 1):
        if word.removesuffix("'s") in shared:
            phrase = list(words[:index])
            while phrase and phrase[-1] in STOPWORDS | {"my", "our", "your", "their"}:
                phrase.pop()
            return " ".join(phrase) if len(phrase) > 1 else None
    return None


def context_difference(existing: str, incoming: str) -> tuple[str | None, str | None] | None:
    """The contexts in which each of two statements holds, where they differ: ``(existing's, incoming's)``, each the
    qualifiers the other lacks joined by "; " (``None``: no qualifier of its own, the general case); ``None`` when
    both hold in the same context."""
    if not (_may_qualify(existing) or _may_qualify(incoming)):
        return None  # most pairs: neither has a phrase of its own or an opening to read against the other
    a, b = qualifiers(existing, incoming), qualifiers(incoming, existing)
    if a == b:
        return None
    own_a, own_b = sorted(a - b), sorted(b - a)
    return ("; ".join(own_a) or None, "; ".join(own_b) or None)


def strip_qualifiers(text: str, phrases: str | None) -> str:
    """``text`` without the qualifier phrases of :func:`context_difference` ("; "-joined), and the comma after one."""
    for phrase in (phrases or "").split("; "):
        if phrase:
            text = _without(text, phrase)
    return text


def _without(text: str, phrase: str) -> str:
    """``text`` less the first whole-word ``phrase`` in it (any case) and the comma and spaces after it: a string
    search (a pattern per phrase was compiled for nearly every pair judged, the phrases being the texts' own)."""
    lowered, wanted = text.lower(), phrase.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer: positions differ, take the slow way
        return re.sub(rf"\b{re.escape(phrase)}\b,?\s*", "", text, count=1, flags=re.IGNORECASE).strip()
    start = lowered.find(wanted)
    while start >= 0:
        end = start + len(wanted)
        if _boundary(lowered, start) and _boundary(lowered, end):
            end += lowered.startswith(",", end)
            while end < len(text) and text[end].isspace():
                end += 1
            return (text[:start] + text[end:]).strip()
        start = lowered.find(wanted, start + 1)
    return text.strip()


def _boundary(text: str, at: int) -> bool:
    """Whether a word begins or ends at ``at`` (regex ``\\b``)."""
    before = at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_")
    after = at < len(text) and (text[at].isalnum() or text[at] == "_")
    return before != after
