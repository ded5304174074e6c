"""Query terms for keyword (full-text) search, which of them are worth ranking, and fusion of ranked lists."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence

# Words that carry no topic in a question; left out of the keyword query (BM25 would weigh them down anyway).
QUERY_STOPWORDS = frozenset(
    "a an and are as at be been being but by can could did do does doing for from had has have how i if in into is "
    "it its me my of on or our she he her his they them their that the this these those to was we were what when "
    "where which who whom why will with would you your about after before any some than then there so not no "
    "yes just also very much many more most".split()
)
_WORD = re.compile(r"\w+", re.UNICODE)
_SPOKEN_WORD = re.compile(r"\w+(?:['’]\w+)*", re.UNICODE)  # "mateo's", "don't", "o'brien": one word each
_APOSTROPHE = re.compile(r"['’]")
# What follows an apostrophe in English contractions and possessives ("Mateo's", "we'll", "I'd"): the indexes split
# it off as a word of its own, in nearly every sentence ("that's", "it's"), so a question's "Mateo's" matched every
# short turn holding "that's" through its "s".
CLITICS = frozenset("s t d m ll re ve".split())
MAX_TERMS = 32
COMMON_TERM_SHARE = 0.5  # a query term in more rows than this share is left out of keyword ranking
COMMON_TERM_MIN_ROWS = 1000  # below this many rows ranking everything is cheap anyway


def query_terms(text: str) -> list[str]:
    """Distinct lowercase words of ``text`` worth searching for, in order (at most 32). A word with an apostrophe
    gives its parts without the clitics of contractions and possessives ("Mateo's" -> "mateo"); a negated auxiliary
    ("doesn't") gives none."""
    parts = []
    for word in _SPOKEN_WORD.findall(text.lower()):
        if _APOSTROPHE.search(word) is None:
            parts.append(word)
        elif not _APOSTROPHE.sub("'", word).endswith("n't"):
            parts += [part for part in _APOSTROPHE.split(word) if part not in CLITICS]
    terms = [w for w in parts if w not in QUERY_STOPWORDS]
    return list(dict.fromkeys(terms))[:MAX_TERMS]


def words_all_hold(text: str, others: Sequence[str]) -> str:
    """The words of ``text``, in order, that each of ``others`` holds too (any case): what they all say."""
    held = [set(_WORD.findall(other.lower())) for other in others]
    return " ".join(w for w in _WORD.findall(text) if all(w.lower() in words for words in held))


def informative_terms(terms: Sequence[str], counts: dict[str, int], total: int) -> list[str]:
    """Terms found in at most half of ``total`` rows (the rarest one if none is; all of them in a small store). A
    term in most rows has a BM25 weight near zero yet forces the ranking of nearly every row."""
    if total < COMMON_TERM_MIN_ROWS:
        return list(terms)
    kept = [t for t in terms if counts[t] <= COMMON_TERM_SHARE * total]
    return kept or [min(terms, key=counts.__getitem__)]


class TermCounts:
    """Rows matching each term, cached until the store's size moves by more than 10%: the counts only steer which
    terms are ranked (or lead), so a slightly old one does no harm. Thread-safe."""

    def __init__(self, limit: int = 100_000, total_for_s: float = 5.0) -> None:
        self._cache: dict[str, tuple[int, int]] = {}  # term -> (rows matching it, rows in all then)
        self._lock = threading.Lock()
        self._limit = limit
        self._total: tuple[int, float] | None = None  # (rows in all, when read)
        self._total_for_s = total_for_s

    def total(self, read: Callable[[], int]) -> int:
        """Rows in all: ``read()`` at most every few seconds (a search's round trip saved; it only steers too)."""
        now = time.monotonic()
        with self._lock:
            known = self._total
        if known is not None and now - known[1] < self._total_for_s:
            return known[0]
        rows = read()
        with self._lock:
            self._total = (rows, now)
        return rows

    def get(self, terms: Sequence[str], total: int, count: Callable[[str], int]) -> dict[str, int]:
        """Each term's count, asking ``count(term)`` for those not cached or cached at another size."""
        counts = {}
        for term in terms:
            with self._lock:
                found, seen_at = self._cache.get(term, (0, -1))
            if seen_at < 0 or abs(total - seen_at) > 0.1 * max(seen_at, 1):
                found = count(term)
                with self._lock:
                    if len(self._cache) > self._limit:
                        self._cache.clear()
                    self._cache[term] = (found, total)
            counts[term] = found
        return counts
