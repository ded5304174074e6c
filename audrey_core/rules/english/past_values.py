"""The one offline signal that may hide a memory: a newer statement that names the value it replaces as past.

"The app was migrated from Heroku to Fly.io", "The user no longer works at Google", "We sold the Golf", "Redis was
replaced by Valkey", "I moved out of Leeds", "I used to live in York", "on Wednesdays instead of Mondays": each says
in so many words that the older value stopped holding, so the older statement naming it may leave recall.

Anything less is a guess: the same frame with another value ("The user has a dog" / "The user has a cat") may be a
second pet as well as a new one, and a verb of change without the old value ("The standup moved to room 7") does
not say what it replaced. Those are disputes (both recalled, the newer first), decided in
:func:`audrey_core.rules.judgement.decide`. A few markers of Spanish, German and French are read too ("ya no",
"nicht mehr", "ne ... plus", "en lugar de", "statt", "au lieu de").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .conflict import LINKING_VERBS, different_subjects, is_statement
from .quantities import NEGATIONS, STOPWORDS
from .quantities import words as _words

REACH = 4  # words after a marker (or before "was replaced by") where the old value must be named
# Words and phrases whose object is the value that stopped holding.
PAST_MARKERS = (
    "no longer",
    "not any more",
    "used to",
    "formerly",
    "previously",
    "instead of",
    "rather than",
    "gave up",
    "given up",
    "got rid of",
    "moved out of",
    "moved away from",
    "moved from",
    "switched from",
    "changed from",
    "migrated from",
    "retired from",
    "resigned from",
    "broke up with",
    "quit",
    "quitted",
    "sold",
    "left",
    "stopped",
    "dropped",
    "cancelled",
    "canceled",
    "divorced",
    "former",
    "ex",
    # Spanish, German, French
    "ya no",
    "dejó de",
    "dejé de",
    "en lugar de",
    "en vez de",
    "nicht mehr",
    "kein mehr",
    "keine mehr",
    "statt",
    "anstatt",
    "früher",
    "ne plus",
    "n' plus",
    "au lieu de",
    "auparavant",
)
# "X was replaced by Y": the old value stands before the marker.
_REPLACED_BY = re.compile(r"\b(?:was|were|is|are|has been|have been|got|had been)\s+(?:replaced|superseded|succeeded)"
                          r"\s+(?:by|with)\b")  # fmt: skip
_REPLACED = re.compile(r"\breplac(?:ed|ing)\b")  # "we replaced X with Y"
_FROM_TO = (
    re.compile(r"\bfrom\s+(.{1,40}?)\s+to\b"),
    re.compile(r"\bvon\s+(.{1,40}?)\s+(?:zu|nach|auf)\b"),
    re.compile(r"\bde\s+(.{1,40}?)\s+(?:a|à)\b"),
)
# "I don't live in Leeds anymore": a negation with "anymore" / "any more" makes what it negates past.
_ANYMORE = re.compile(r"\bany ?more\b")
_NEGATION_NOISE = frozenset("ne n' pas plus mehr no".split())
_DIRECTIONS = frozenset("of side hand turn".split())


def named_past_value(older: str, newer: str) -> str | None:
    """The value of ``older`` that ``newer`` names as past (with the marker that says so), or ``None``.

    Only single short statements about the same subject are read (:func:`~.conflict.is_statement`,
    :func:`~.conflict.different_subjects`); the old value is a word of ``older`` that is neither a stop word nor a
    linking verb ("is", "has", "works"), named within ``REACH`` words of the marker. A word ``older`` itself names as
    past ("prices rose from 5 to 10") is no value it holds, so naming it again replaces nothing."""
    if not (is_statement(older) and is_statement(newer)) or different_subjects(older, newer):
        return None
    values = _value_words(older)
    values -= {_norm(word) for _, word in _namings(older, values)}
    if not values:
        return None
    return next((phrase for phrase, _ in _namings(newer, values)), None)


def _namings(statement: str, values: set[str]) -> Iterator[tuple[str, str]]:
    """Each (phrase, word) where ``statement`` names one of ``values`` as past."""
    text = " ".join(_words(statement))
    text = re.sub(r"\b(n'|ne)\s+(\S+)\s+plus\b", r"ne plus \2", text)  # "n'habite plus" -> "ne plus habite"
    text = re.sub(r"\bkeine?\s+(\S+)\s+mehr\b", r"kein mehr \1", text)  # "kein Auto mehr" -> "kein mehr auto"
    for pattern in _FROM_TO:
        for match in pattern.finditer(text):
            named = _first_value(match.group(1).split(), values)
            if named:
                yield f"from {named} to", named
    tokens = text.split()
    for marker in PAST_MARKERS:
        size = len(marker.split())
        for start in _find(tokens, marker.split()):
            after = tokens[start + size : start + size + REACH]
            if marker == "left" and after[:1] and after[0] in _DIRECTIONS:
                continue  # "left of the bank": a side, not a departure
            before = {_norm(w) for w in tokens[:start]}  # the subject and frame the statement opens with
            named = _first_value(after, {v for v in values if v not in before})
            if named:
                yield f"{marker} {named}", named
    for match in _REPLACED_BY.finditer(text):
        named = _first_value(text[: match.start()].split()[-REACH:], values)
        if named:
            yield f"{named} was replaced", named
    for match in _REPLACED.finditer(text):
        named = _first_value(text[match.end() :].split()[:REACH], values)
        if named:
            yield f"replaced {named}", named
    if _ANYMORE.search(text) and any(w in NEGATIONS or w.endswith("n't") for w in tokens):
        named = _first_value(tokens, values)
        if named:
            yield f"{named} not any more", named


def _value_words(text: str) -> set[str]:
    """The words of a statement that can name its value (plurals and possessives folded): not stop words,
    negations or linking verbs."""
    return {
        _norm(w)
        for w in _words(text)
        if w not in STOPWORDS and w not in NEGATIONS and w not in LINKING_VERBS and w not in _NEGATION_NOISE
    }


def _norm(word: str) -> str:
    word = word.removesuffix("'s").removesuffix("'")
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _first_value(window: list[str], values: set[str]) -> str | None:
    for word in window:
        if _norm(word) in values:
            return word
    return None


def _find(tokens: list[str], phrase: list[str]) -> list[int]:
    size = len(phrase)
    return [i for i in range(len(tokens) - size + 1) if tokens[i : i + size] == phrase]


__all__ = ["PAST_MARKERS", "named_past_value"]
