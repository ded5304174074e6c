"""The one offline signal that may hide a memory: a newer statement that names the value it replaces as past.

"The app was migrated from Heroku to Fly.io", "The user no longer works at Google", "We sold the Golf", "Redis was
replaced by Valkey", "I moved out of Leeds", "I used to live in York", "on Wednesdays instead of Mondays": each says
in so many words that the older value stopped holding, so the older statement naming it may leave recall.

Anything less is a guess: the same frame with another value ("The user has a dog" / "The user has a cat") may be a
second pet as well as a new one, and a verb of change without the old value ("The standup moved to room 7") does
not say what it replaced. So is a marker that describes rather than reports a change, as documentation and
descriptions are full of: a path "from source to target" with no verb of change, "fields are replaced by None", "any
lines left as bytes", "the left bracket", "the graph used to construct the array", "returns objects instead of
members". Those are disputes (both recalled, the newer first), decided in
:func:`audrey_core.claims.decide.decide`. A few markers of Spanish, German and French are read too ("ya no",
"nicht mehr", "ne ... plus", "en lugar de", "statt", "au lieu de").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...claims.parse import is_statement
from .conflict import DETERMINERS, GENERIC_PASSIVE, LINKING_VERBS, different_subjects
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
# "X was replaced by Y": the old value stands before the marker; "fields are replaced by None" describes, in the
# present, what always happens.
_REPLACED_BY = re.compile(r"\b(?:was|were|has been|have been|got|had been)\s+(?:replaced|superseded|succeeded)"
                          r"\s+(?:by|with)\b")  # fmt: skip
_REPLACED = re.compile(r"\breplac(?:ed|ing)\b")  # "we replaced X with Y", "Diego is on call now, replacing Priya"
_FROM_TO = (
    re.compile(r"\bfrom\s+(.{1,40}?)\s+to\b"),
    re.compile(r"\bvon\s+(.{1,40}?)\s+(?:zu|nach|auf)\b"),
    re.compile(r"\bde\s+(.{1,40}?)\s+(?:a|à)\b"),
)
# "I don't live in Leeds anymore": a negation with "anymore" / "any more" makes what it negates past.
_ANYMORE = re.compile(r"\bany ?more\b")
_NEGATION_NOISE = frozenset("ne n' pas plus mehr no".split())
# Verbs that report a change: "from X to Y" names X as past only beside one (before it, or after it in German);
# without one it is a path or a range ("a path from source to target", "from 0 to n").
CHANGE_VERBS = frozenset(
    "moved switched changed migrated transferred relocated rose fell went gone grew shrank jumped climbed dropped "
    "lowered raised increased decreased reduced cut upgraded downgraded renamed bumped shifted promoted rescheduled "
    "postponed updated "
    "mudó mudé mudamos cambió cambié cambiamos pasó pasé pasamos subió bajó trasladó "
    "gezogen umgezogen gewechselt gestiegen gesunken geändert verlegt umgestiegen "
    "déménagé passé changé augmenté baissé muté".split()
)
CHANGE_REACH = 6  # words before "from" (or after its "to", German's verb last) where the verb of change stands
# A verb marker after these is passive or modal ("is left", "are used to", "should not be changed"): a description.
# Unlike a cue of change ("the price was raised"), a marker is a description after a past passive too ("was left").
_BE_OR_MODAL = GENERIC_PASSIVE | {"was", "were", "been"}
_VERB_MARKERS = frozenset(
    "used to|gave up|given up|got rid of|moved out of|moved away from|moved from|switched from|changed from|"
    "migrated from|retired from|resigned from|broke up with|quit|quitted|sold|left|stopped|dropped|cancelled|"
    "canceled|divorced|dejó de|dejé de".split("|")
)
# "left" as a side or what remains, not a departure: "the left bracket", "move left", "lines left as bytes".
_NOT_DEPARTED = frozenset(
    "of side hand turn as in on over behind out alone with to by for at from here there unchanged blank empty "
    "untouched intact open".split()
)
_SIDE_BEFORE = frozenset("of through in on at with to for from by upper lower top bottom far move takes".split())
# "No longer needed", "to no longer place", "will no longer retrieve", "won't need it anymore": no subject, a purpose
# or a future, not a report that something stopped holding.
_NOT_REPORTED = frozenset("to will would shall should may might must won't wouldn't shouldn't".split())
# "instead of" / "rather than" name a past value only beside a change: "now runs on Wednesdays instead of Mondays";
# "returns objects instead of members" is an alternative.
_ALTERNATIVES = frozenset(("instead of", "rather than", "en lugar de", "en vez de", "statt", "anstatt", "au lieu de"))


def named_past_value(older: str, newer: str) -> str | None:
    """The value of ``older`` that ``newer`` names as past (with the marker that says so), or ``None``.

    Only single short statements about the same subject are read (:func:`~audrey_core.claims.parse.is_statement`,
    :func:`~.conflict.different_subjects`); the old value is a word of ``older`` that is neither a stop word nor a
    linking verb ("is", "has", "works"), named within ``REACH`` words of the marker. The words ``older`` itself puts
    in the past ("prices rose from 5 to 10", "I used to live in York", "it is no longer invoked on creation") are no
    value it holds, so naming them again replaces nothing."""
    if not (is_statement(older) and is_statement(newer)) or different_subjects(older, newer):
        return None
    values = _value_words(older)
    values -= {_norm(word) for _, word in _namings(older, values, every=True)}
    if not values:
        return None
    return next((phrase for phrase, _ in _namings(newer, values)), None)


def _namings(statement: str, values: set[str], every: bool = False) -> Iterator[tuple[str, str]]:
    """Each (phrase, word) where ``statement`` names one of ``values`` as past: the first value after each marker,
    or (``every``) each one before what holds since ("moved from Lisbon to Madrid": Lisbon only)."""
    text = " ".join(_words(statement))
    text = re.sub(r"\b(n'|ne)\s+(\S+)\s+plus\b", r"ne plus \2", text)  # "n'habite plus" -> "ne plus habite"
    text = re.sub(r"\bkeine?\s+(\S+)\s+mehr\b", r"kein mehr \1", text)  # "kein Auto mehr" -> "kein mehr auto"

    def named(window: list[str], among: set[str], phrase: str) -> Iterator[tuple[str, str]]:
        found = _values_in(window, among, every)
        for word in found if every else found[:1]:
            yield phrase.format(word), word

    for pattern in _FROM_TO:
        for match in pattern.finditer(text):
            near = text[: match.start()].split()[-CHANGE_REACH:] + text[match.end() :].split()[:CHANGE_REACH]
            if CHANGE_VERBS.intersection(near):  # else a path or a range, not a change
                yield from named(match.group(1).split(), values, "from {} to")
    tokens = text.split()
    for marker in PAST_MARKERS:
        size = len(marker.split())
        for start in _find(tokens, marker.split()):
            after = tokens[start + size : start + size + REACH]
            if _reports_a_change(tokens, marker, start, after):
                before = {_norm(w) for w in tokens[:start]}  # the subject and frame the statement opens with
                yield from named(after, {v for v in values if v not in before}, marker + " {}")
    for match in _REPLACED_BY.finditer(text):
        yield from named(text[: match.start()].split()[-REACH:], values, "{} was replaced")
    for match in _REPLACED.finditer(text):
        previous = text[: match.start()].split()[-1:]
        if previous and previous[0] in _BE_OR_MODAL | {"by"}:
            continue  # "are replaced with", "can be replaced", "shrink by replacing them": a description
        if match.group(0) == "replacing" and "now" not in tokens:
            continue  # "a new object replacing the fields": what a call does, unless it is happening now
        after = text[match.end() :].split()[:REACH]
        if after[:1] in (["with"], ["by"]):
            continue  # "occurrences replaced with a new one": what follows is the new value, never the old
        yield from named(after, values, "replaced {}")
    if _ANYMORE.search(text):  # what the negation negates: "don't live in Leeds anymore", not the subject
        negated = [i for i, w in enumerate(tokens) if w in NEGATIONS or w.endswith("n't")]
        if negated and tokens[negated[0]] not in _NOT_REPORTED:  # "won't need it anymore": a future
            yield from named(tokens[negated[0] + 1 : negated[0] + 1 + REACH], values, "{} not any more")


def _reports_a_change(tokens: list[str], marker: str, start: int, after: list[str]) -> bool:
    """Whether the marker at ``start`` reports that something stopped holding rather than describing: a verb of
    change with a subject before it, not passive or modal ("is left", "is used to", "can be dropped"); "left" as a
    departure, not a side or what remains; "used to" as a habit, not a purpose ("the intervals used to approximate
    a root are updated"); "instead of" beside a change ("now", a verb of change)."""
    previous = tokens[start - 1] if start else None
    if marker in _VERB_MARKERS and (
        previous is None or previous in DETERMINERS or _BE_OR_MODAL.intersection(tokens[max(0, start - 2) : start])
    ):
        return False  # no subject, an adjective, or passive or modal ("are then dropped", "can be dropped")
    if marker in ("no longer", "not any more") and (previous is None or previous in _NOT_REPORTED):
        return False
    if marker == "left" and (
        previous in _SIDE_BEFORE or (after[:1] and after[0] in _NOT_DEPARTED) or "right" in after[:2]
    ):
        return False
    if marker == "used to" and _BE_OR_MODAL.intersection(tokens[:start] + tokens[start + 3 :]):
        return False  # the sentence's verb is another: "used to" says what something is for ("used to be": a habit)
    if marker in _ALTERNATIVES:
        return "now" in tokens or bool(CHANGE_VERBS.intersection(tokens))
    return True


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


_SINCE = frozenset("to zu nach à".split())  # after these comes what holds since: "from X to Y", "von X nach Y"


def _values_in(window: list[str], values: set[str], every: bool) -> list[str]:
    """The words of ``window`` that are among ``values``, in order; ``every``: only those before what holds since
    (a "to")."""
    found = []
    for word in window:
        if every and word in _SINCE:
            break
        if _norm(word) in values:
            found.append(word)
    return found


def _find(tokens: list[str], phrase: list[str]) -> list[int]:
    size = len(phrase)
    return [i for i in range(len(tokens) - size + 1) if tokens[i : i + size] == phrase]


__all__ = ["PAST_MARKERS", "named_past_value"]
