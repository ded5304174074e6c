"""A deterministic conflict and update detector for when no LLM is configured (and a guard before any reinforcement).

This is a heuristic, not understanding. Two texts already known to be about the same subject (by embedding
similarity) are judged to conflict when:

* they state quantities of one dimension whose values do not agree ("100 req/s" vs "25 req/s"; "300 seconds" and
  "five minutes" agree, and so do "12 minutes" and "12 to 13 minutes": :mod:`audrey_core.rules.quantities`; unitless
  numbers count as one unit, so "HTTP 429" vs "HTTP 429" agrees; "opens at 8am" and "closes at 8pm" time two
  events), or
* one negates the other: the parity of negation words differs while most content words are shared
  ("the cache is redis" vs "the cache is not redis").

It misses paraphrased disagreement ("the limit went up") and flags consistent statements that quote different
numbers ("429 at 120 req/s" vs "throttles above 100 req/s"). Configure an LLM for judgement.

:func:`update_signal` looks for a changed value of the same attribute, which (later in time) makes an update:

* the two texts have the same subject: not two different first content words that each text lacks ("Alice
  moved..." vs "Bob moved..."), not two different owners ("Alice's phone" vs "Bob's phone"; "the user's daughter"
  vs "the user's daughter's friend"), not two different names in the subject ("Project Atlas" vs "Project
  Borealis"); "Bob said Alice's ..." is about Alice's; and neither quotes someone ('the docs say "..."'), and
* one of: a conflicting quantity where a value stands ("is 100 req/s", "at 10", "due on the 1st"; not "worker 4"),
  or a negation flip (above); an update cue the newer text adds next to
  what changed ("no longer", "moved", "switched", "renamed", "quit", "replaced", "upgraded", ...); "from X to Y"
  where the older text mentions X; or a single changed slot: both texts share a beginning that names the attribute
  and links it to a value ("my manager is") and differ in one place after it, with no word in common there
  ("Priya Shah" vs "Tom Becker"), unless the slot is only the verb before a shared object ("is learning Japanese"
  vs "has been studying Japanese" restate), and no value written two ways ("300 seconds" / "five minutes").

Two texts that differ in two places ("a dog called Rex" vs "a cat called Tom") or before any shared attribute
("the API timeout is..." vs "the API rate limit is...") are left unrelated, and so is anything longer than one short
sentence: in a chat turn of several sentences, "changed" or "from now on" rarely concerns a stated fact.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ...claims.parse import is_statement
from .quantities import (
    MARKED_VALUE,
    NEGATIONS,
    STOPWORDS,
    TEXT_CACHE,
    cased_words,
    disjoint,
    measured,
    quantities,
    same_quantities,
    show,
)
from .quantities import words as _words


@dataclass(frozen=True)
class Conflict:
    """Why two texts were judged to conflict."""

    kind: str  # "quantity", "negation", "update" or "value"
    detail: str
    unit: str | None = None  # for a quantity: its normalised unit ("" for a bare number)


# A negation word that negates nothing: "can't stand coriander" says the user hates it.
_NEGATED_IDIOM = re.compile(r"\b(?:can't|cannot|can not|couldn't|could not) (?:stand|bear|wait|help)\b")
_QUOTED = re.compile(r"[\"“][^\"”]*\s[^\"”]*[\"”]")  # two or more words in double quotes
# Events whose times are different attributes: "opens at 8am" and "closes at 8pm" do not disagree.
_EVENT_SIDES = (
    ("open", "start", "begin", "arrive", "land", "wake"),
    ("close", "until", "end", "finish", "leave", "depart"),
)


def _opposite_events(existing: str, incoming: str) -> bool:
    """Whether one text times the start of something and the other its end (by how the verbs begin)."""
    a, b = _event_sides(existing), _event_sides(incoming)
    return len(a) == 1 and len(b) == 1 and a != b


@functools.lru_cache(maxsize=TEXT_CACHE)
def _event_sides(text: str) -> frozenset[int]:
    """Which of :data:`_EVENT_SIDES` the words of ``text`` time."""
    return frozenset(side for side, stems in enumerate(_EVENT_SIDES) for w in _words(text) if w.startswith(stems))


def detect_conflict(existing: str, incoming: str, values_only: bool = False) -> Conflict | None:
    """The conflict between two same-subject texts, or ``None`` when the heuristic sees none (``values_only``: see
    :func:`quantities`)."""
    leads = VALUE_LEADS if values_only else None
    a, b = quantities(existing, leads), quantities(incoming, leads)
    for unit in sorted(set(a) & set(b)):
        if disjoint(a[unit], b[unit], unit) and not (unit == "clock" and _opposite_events(existing, incoming)):
            label = unit or "a bare number"
            return Conflict("quantity", f"{show(a[unit], unit)} vs {show(b[unit], unit)} ({label})", unit)
    if _negations(existing) % 2 != _negations(incoming) % 2:
        content_a = {w for w in _words(existing) if w not in STOPWORDS and w not in NEGATIONS}
        content_b = {w for w in _words(incoming) if w not in STOPWORDS and w not in NEGATIONS}
        union = content_a | content_b
        if union and len(content_a & content_b) / len(union) >= 0.5:
            return Conflict("negation", "one statement negates the other")
    return None


@functools.lru_cache(maxsize=TEXT_CACHE)  # both texts of every pair judged
def _negations(text: str) -> int:
    """How many words of ``text`` negate something ("can't stand coriander" negates nothing)."""
    said = sum(w in NEGATIONS or w.endswith("n't") for w in _words(text))
    return said - len(_NEGATED_IDIOM.findall(text.lower()))


# Verbs and words that announce a change. A cue counts only next to what changed (see update_cue): in conversation
# "moved" or "changed" are everywhere ("new" and "now" so much that they are no cue at all).
UPDATE_CUES = frozenset(
    "anymore instead moved switched changed renamed quit lowered raised increased decreased reduced dropped "
    "replaced upgraded downgraded migrated transferred rewritten rewrote postponed rescheduled bumped grew shrank "
    "married divorced updated relocated reassigned stepped resigned retired promoted sold swapped switch stopped "
    "started began joined left extended shortened replacing handed".split()
)
# Set aside before comparing slots ("is now Tom" ~ "is Tom").
SLOT_NOISE = UPDATE_CUES | {"now", "new", "again", "still"}
UPDATE_PHRASES = ("no longer", "pushed back", "from now on", "once more", "went up", "went down", "took over")
CUE_REACH = 3  # words between a cue and the subject or a shared word it must be near
# A verb form after these is an adjective ("each dropped tensor", "an updated runbook", "the left bracket").
DETERMINERS = frozenset("the a an this that these those its their his her my our your each every any some".split())
# A verb of change after these describes what happens, not what changed: "an exception is raised", "can be updated".
GENERIC_PASSIVE = frozenset("is are be being am get gets can could may might must shall should will would".split())
_NOT_A_CUE_AFTER = DETERMINERS | GENERIC_PASSIVE  # the word before a verb of change that makes it no report
# Verbs that join an attribute to its value: the shared opening of a single-slot change must contain one.
LINKING_VERBS = frozenset(
    "is are was were be has have had uses use used lives live works work runs run costs cost takes take starts start "
    "opens open closes close called named means equals prefers prefer likes like drives drive includes include "
    "contains contain holds hold allows allow needs need requires require lasts".split()
) | frozenset(  # the same verbs in Spanish, German and French
    "es son está están era tiene tienen vive viven trabaja trabajan usa usan cuesta cuestan empieza abre cierra "
    "ist sind war hat haben wohnt wohnen arbeitet arbeiten nutzt nutzen kostet kosten beträgt beginnt öffnet schließt "
    "est sont était habite habitent travaille travaillent utilise utilisent coûte coûtent commence ouvre ferme".split()
)
# Words after which a number is a value ("is 100 req/s", "to 25", "at 9am", "has 6 engineers", "takes 20 minutes").
VALUE_LEADS = (
    STOPWORDS
    | LINKING_VERBS
    | frozenset(
        "least most now just only roughly nearly approximately probably maybe likely perhaps possibly version".split()
    )
    | frozenset("a à en las los le de um bei ab".split())  # "a las 10", "à 8 heures", "um 9 Uhr"
)
_SUBJECT_SKIP = STOPWORDS | frozenset("after before during since once".split())
_FROM_TO = re.compile(r"\bfrom ([a-z0-9'.-]+)(?: [a-z0-9'.-]+)? to\b")


# The speaker is the user an assistant remembers for: "I work at KPMG" and "the user works at EY" share a subject.
FIRST_PERSON = frozenset("i i'm i've i'd i'll me myself we we're we've us".split())
OWNERS = frozenset("my our your his her their its".split())


@functools.lru_cache(maxsize=8192)  # called for every word of every pair judged
def _fold(word: str) -> str:
    """A word with its possessive and plural endings set aside, for comparing subjects ("invoices" ~ "invoice");
    the first person is "user"."""
    if word in FIRST_PERSON:
        return "user"
    word = word.removesuffix("'s").removesuffix("'")
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@functools.lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    """A crude stem for matching a verb's forms ("sells" ~ "selling" ~ "sold" is beyond it; "sells" ~ "selling")."""
    for ending in ("ing", "ed", "es", "s"):
        if len(word) > len(ending) + 2 and word.endswith(ending) and not word.endswith("ss"):
            return word[: -len(ending)]
    return word


# Words that report someone else's claim: "Bob said (that) Alice's flight ..." is about Alice's flight.
REPORTING = frozenset("said says told tells thinks think believes believe claims claimed mentioned heard".split())
_NOT_OWNERS = frozenset("it's let's that's what's there's here's he's she's who's where's".split())


def _owned(words: list[str]) -> tuple[tuple[str, ...], str | None]:
    """The chain of owners a statement opens with and the thing it is about: "the user's daughter's best friend" ->
    (("user", "daughter"), "best"); "my manager" -> (("user",), "manager"); "Sam is ..." -> ((), "sam")."""
    if len(words) > 2 and words[1] in REPORTING:
        words = words[2:]
        words = words[1:] if words and words[0] in ("that", "me", "us") else words
    owners: list[str] = []
    for word in words:
        if word in OWNERS:
            owners.append("user" if word in ("my", "our") else word)
        elif word.endswith(("'s", "'")) and word not in _NOT_OWNERS:
            owners.append(_fold(word))
        elif word in FIRST_PERSON or (word not in _SUBJECT_SKIP and word not in NEGATIONS):
            return tuple(owners), _fold(word)
    return tuple(owners), (owners[-1] if owners else None)


@functools.lru_cache(maxsize=TEXT_CACHE)
def _names(text: str) -> frozenset[str]:
    """Capitalised words after the first in the subject phrase (up to its first linking verb or four words):
    "Project Atlas", "the Berlin office"."""
    found = set()
    for index, word in enumerate(re.findall(r"[\w']+", text)[:5]):
        if word.lower() in VERB_FORMS or word.lower() in UPDATE_CUES:
            break
        if index and word[0].isupper() and not word.isupper():
            found.add(word.lower())
    return frozenset(found)


_DECIMAL = re.compile(r"\d\.\d")
_CODE = re.compile(r"[^\W\d]\d|\d[^\W\d]|[^\W\d][_-]\w|\w[_-][^\W\d]")  # letters beside digits, or joined as code


@functools.lru_cache(maxsize=TEXT_CACHE)
def _subject_label(text: str) -> str | None:
    """The label right after the subject's noun, which names the subject as a name would: a number ("Ticket 41 is
    closed", "Order 5512 shipped", "Room 204 is booked") or words joined as code joins them ("Test test_login
    failed", "Job nightly-export failed"). None after a word a value follows ("Version 2 is live"), and for a decimal
    ("Python 3.11 is our runtime": a version) or a measure ("Sleeps 8 hours"): values."""
    words = _words(text)
    subject = _owned_by(text)[1]
    at = next((i for i, w in enumerate(words[:3]) if _fold(w) == subject), None)
    if at is None or at + 1 >= len(words) or words[at] in VALUE_LEADS:
        return None
    label = words[at + 1]
    named = any(c.isdigit() for c in label) or _CODE.search(label)  # a number, or a label as _labels reads one
    return label if named and not _DECIMAL.search(label) and not measured(" ".join(words[at + 2 :])) else None


@functools.lru_cache(maxsize=8192)  # asked by several rules of one pair
def different_subjects(existing: str, incoming: str) -> bool:
    """True when the two texts are about different things: different owners ("Alice's phone" / "Bob's phone", "the
    user's daughter" / "the user's daughter's friend"), different names or labels in the subject ("Project Atlas" /
    "Project Borealis", "Ticket 41" / "Ticket 42"), or different subjects neither of which the other text mentions."""
    if _other_owners_or_names(existing, incoming):
        return True
    sa, sb = _owned_by(existing)[1], _owned_by(incoming)[1]
    if sa is None or sb is None or sa == sb:
        return False
    return sa not in _folded(incoming) and sb not in _folded(existing)


@functools.lru_cache(maxsize=8192)
def different_things(existing: str, incoming: str) -> bool:
    """For two texts that read alike (a restatement, a cluster's near-copies): whether they are about different
    things all the same: different owners, names or labels ("Emma's birthday is on May 4" / "Emma's son's birthday
    is on June 9", "Build 88 failed" / "Build 89 failed"), the same sentence but for the names or labels it holds
    ("The nightly job failed on Monday" / "... on Tuesday", "slow on Safari" / "slow on Firefox"), or the same
    sentence but for who or what it is about ("The billing service got a new dashboard" / "The payments gateway got a
    new dashboard"). Narrower than :func:`different_subjects`, which also parts two subjects that neither text
    mentions, and so two wordings of one claim ("We deploy with GitHub Actions" / "Deployments go through GitHub
    Actions")."""
    a, b, prefix, suffix = _aligned(existing, incoming)
    middle_a, middle_b = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    if _spelled_alike(middle_a, middle_b):
        return False  # one name spaced or joined otherwise: "ONNX Runtime" / "OnnxRuntime", "Git Hub" / "GitHub"
    if _other_owners_or_names(existing, incoming):
        return True
    if not middle_a or not middle_b or _overlap(middle_a, middle_b):
        return False
    if prefix >= 2 and _labels(existing).issuperset(middle_a) and _labels(incoming).issuperset(middle_b):
        # past the sentence's opening ("failed on Monday" / "on Tuesday"), where a capital marks a name, not
        # a German noun ("Meine Chefin heißt" / "Meine Vorgesetzte heißt"); one amount is no label ("7 Uhr" / "07:00")
        return not same_quantities(existing, incoming)
    if all(w in STOPWORDS for w in a[len(a) - suffix :]):
        return False  # no claim in common after the differing words
    sa, sb = _owned_by(existing)[1], _owned_by(incoming)[1]
    return sa != sb and sa in {_fold(w) for w in middle_a} and sb in {_fold(w) for w in middle_b}


def _spelled_alike(a: list[str], b: list[str]) -> bool:
    """Whether two runs of words hold the same letters and digits in the same order."""

    def letters(words: list[str]) -> str:
        return "".join(c for w in words for c in w if c.isalnum())

    return letters(a) == letters(b)


@functools.lru_cache(maxsize=TEXT_CACHE)
def _labels(text: str) -> frozenset[str]:
    """The words of ``text`` that name something rather than state an amount, lower-cased: capitalised after the
    first word ("Safari", "Monday"), letters joined with digits or as code joins words ("db-1", "test_login"), or a
    number after a capitalised word ("March 3", "Windows 11"); another bare number ("50 items") is a value."""
    cased = cased_words(text)
    return frozenset(
        word.lower()
        for i, word in enumerate(cased)
        if (i and word[0].isupper()) or _CODE.search(word) or (i and word.isdigit() and cased[i - 1][0].isupper())
    )


def _other_owners_or_names(existing: str, incoming: str) -> bool:
    """Different owners ("Alice's phone" / "Bob's phone"), different names in the subject ("Project Atlas" /
    "Project Borealis") or different labels naming it ("Ticket 41" / "Ticket 42")."""
    label_a, label_b = _subject_label(existing), _subject_label(incoming)
    if label_a is not None and label_b is not None and label_a != label_b:
        return True
    (owners_a, _), (owners_b, _) = _owned_by(existing), _owned_by(incoming)
    if owners_a and owners_b and owners_a != owners_b:
        return True
    names_a, names_b = _names(existing), _names(incoming)
    return bool(names_a and names_b and not names_a & names_b)


@functools.lru_cache(maxsize=TEXT_CACHE)
def _owned_by(text: str) -> tuple[tuple[str, ...], str | None]:
    """:func:`_owned` of the words of ``text``."""
    return _owned(_words(text))


@functools.lru_cache(maxsize=TEXT_CACHE)
def _folded(text: str) -> frozenset[str]:
    """The words of ``text``, possessive and plural endings set aside (:func:`_fold`)."""
    return frozenset(_fold(w) for w in _words(text))


def update_cue(existing: str, incoming: str) -> str | None:
    """An update cue the newer text adds (a word or phrase the older one lacks) next to what changed: within
    ``CUE_REACH`` words after the newer text's subject, or of a common word the two texts share (not a name); or
    "from X to Y" with X in the older text."""
    lower_a, lower_b = existing.lower(), incoming.lower()
    for phrase in UPDATE_PHRASES:
        if phrase in lower_b and phrase not in lower_a:
            return phrase
    words_a, words_b = _word_set(existing), _words(incoming)
    cues = _cues_at(incoming)
    if cues:  # most statements hold no cue word: then nothing nears one
        names = _capitalised(incoming)
        subject = _owned_by(incoming)[1]
        stems_a = _stems(existing)
        anchors = [
            i
            for i, w in enumerate(words_b)
            if (_fold(w) == subject and i < 4)
            or (_stem(w) in stems_a and w not in STOPWORDS and w not in names and w not in UPDATE_CUES)
        ]
        for index in cues:
            word = words_b[index]
            if index and words_b[index - 1] in _NOT_A_CUE_AFTER:
                continue  # an adjective ("has an updated runbook"), what always happens ("an error is raised")
            near = any(abs(index - a) <= CUE_REACH for a in anchors)
            changed = near and (word not in words_a or _object_replaced(_words(existing), words_b, word))
            if changed and (word in LEAVING_CUES or not _arrived_at_what_was_said(words_a, words_b[index + 1 :])):
                return word
    for match in _FROM_TO.finditer(lower_b):
        if match.group(1) in words_a and match.group(1) not in STOPWORDS:
            return f"from {match.group(1)} to"
    return None


@functools.lru_cache(maxsize=TEXT_CACHE)
def _cues_at(text: str) -> tuple[int, ...]:
    """Where the words of ``text`` are update cues, in order."""
    return tuple(i for i, w in enumerate(_words(text)) if w in UPDATE_CUES)


@functools.lru_cache(maxsize=TEXT_CACHE)
def _word_set(text: str) -> frozenset[str]:
    return frozenset(_words(text))


@functools.lru_cache(maxsize=TEXT_CACHE)
def _stems(text: str) -> frozenset[str]:
    """The crude stems (:func:`_stem`) of the words of ``text``."""
    return frozenset(_stem(w) for w in _words(text))


@functools.lru_cache(maxsize=TEXT_CACHE)
def _capitalised(text: str) -> frozenset[str]:
    """The words of ``text`` written with a capital after its first letter (names), lower-cased."""
    return frozenset(w.lower() for w in re.findall(r"\b[A-Z][\w']*", text[1:]))


# Cues whose object is what stopped holding ("left Acme"); after any other cue comes what holds since.
LEAVING_CUES = frozenset("quit left sold stopped resigned retired divorced dropped".split())


def _arrived_at_what_was_said(words_a: set[str], after_cue: list[str]) -> bool:
    """Whether every content word after a cue of arrival is one the older text says: "was raised in Cork" beside
    "grew up in Cork", "moved to Berlin" beside "lives in Berlin" say the same, not that it changed."""
    content = {_fold(w) for w in after_cue if w not in STOPWORDS and w not in SLOT_NOISE}
    return bool(content) and content <= {_fold(w) for w in words_a}


def _object_replaced(words_a: list[str], words_b: list[str], cue: str) -> bool:
    """Both texts use the cue ("moved to Chicago", "moved again, to Denver"): none of what follows it in the older
    one is left in the newer one, which names something else there."""
    after_a = {w for w in words_a[words_a.index(cue) + 1 :] if w not in SLOT_NOISE and w not in STOPWORDS}
    after_b = {w for w in words_b[words_b.index(cue) + 1 :] if w not in SLOT_NOISE and w not in STOPWORDS}
    return bool(after_a) and bool(after_b) and not after_a & set(words_b)


def _aligned(existing: str, incoming: str) -> tuple[list[str], list[str], int, int]:
    """Both texts' words with cue words set aside, and how many they share at the start and at the end."""
    a = [w for w in _words(existing) if w not in SLOT_NOISE]
    b = [w for w in _words(incoming) if w not in SLOT_NOISE]
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return a, b, prefix, suffix


def single_slot_change(existing: str, incoming: str) -> str | None:
    """The changed value when both texts share an opening that names an attribute and differ after it in one slot
    with no word in common; cue words are set aside first ("my manager is now Tom" -> "my manager is tom")."""
    a, b, prefix, suffix = _aligned(existing, incoming)
    middle_a, middle_b = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    named = [w for w in a[:prefix] if w not in STOPWORDS and w not in NEGATIONS]
    linked = any(w in LINKING_VERBS for w in a[:prefix])  # "my manager is", not just "the api"
    if not linked and middle_a and middle_b and middle_a[0] in VERB_FORMS and middle_b[0] in VERB_FORMS:
        # "the password is orange42" / "the password might be falcon77": each slot opens with its own verb form
        middle_a = _after_verbs(middle_a)
        middle_b = _after_verbs(middle_b)
        linked = max(len(middle_a), len(middle_b)) <= MAX_SLOT_WORDS
    if prefix < 2 or not named or not linked or not middle_a or not middle_b or _overlap(middle_a, middle_b):
        return None
    if bool(quantities(" ".join(middle_a), VALUE_LEADS)) != bool(quantities(" ".join(middle_b), VALUE_LEADS)):
        return None  # a measured value against words ("15 minutes" / "a short meeting"): not comparable here
    if all(w in STOPWORDS for w in middle_a) or all(w in STOPWORDS for w in middle_b):
        return None
    if all(w.isdigit() for w in (*middle_a, *middle_b)) and a[prefix - 1] not in STOPWORDS:
        return None  # a bare number right after a noun is an identifier ("note 1", "note 2"), not a value ("at 10")
    if any(w not in STOPWORDS for w in a[len(a) - suffix :]) and not _valued(middle_a + middle_b):
        return None  # the verb differs before a shared object ("is learning Japanese" / "has been studying Japanese")
    return f"{' '.join(middle_a)} -> {' '.join(middle_b)}"


def _overlap(a: list[str], b: list[str]) -> bool:
    """Whether two slots share a word, plurals folded, or the first five letters of a longer one ("allergic to
    peanuts" / "a peanut allergy"): one says what the other does."""
    stems_a = {_fold(w)[:5] for w in a if w not in STOPWORDS and len(w) > 3} | {_fold(w) for w in a}
    return any(_fold(w) in stems_a or (len(w) > 3 and w not in STOPWORDS and _fold(w)[:5] in stems_a) for w in b)


def _valued(words: list[str]) -> bool:
    """Whether a slot holds a value of its own: a number, a literal or an e-mail address."""
    return any(any(c.isdigit() for c in w) or "@" in w for w in words)


VERB_FORMS = LINKING_VERBS | frozenset("might may could will would should must can be been being".split())


def _after_verbs(words: list[str]) -> list[str]:
    index = 0
    while index < len(words) and words[index] in VERB_FORMS:
        index += 1
    return words[index:]


MAX_SLOT_WORDS = 3  # the longest changed slot of a same-frame update ("Priya Shah" -> "Tom Becker")


def changed_value(existing: str, incoming: str) -> Conflict | None:
    """For two statements already known to say nearly the same thing: the literal values (anything with a digit, an
    e-mail address) that the newer one gives instead of the older one's ("555-0142" -> "555-0199", "1.28" -> "1.30"),
    or ``None`` when either has none or they share one."""
    if not (is_statement(existing) and is_statement(incoming)) or different_subjects(existing, incoming):
        return None
    a, b = _literal_values(existing), _literal_values(incoming)
    grouped = any(" " in v for v in a | b)  # a number in groups, which quantities would read as several numbers
    if not a or not b or a & b or (not grouped and same_quantities(existing, incoming)):
        return None
    return Conflict("value", f"{' '.join(sorted(a))} -> {' '.join(sorted(b))}")


def other_numbers(existing: str, incoming: str) -> bool:
    """Whether each text holds a number the other lacks, one amount written two ways aside ("50 items" / "200
    items", "User id 4411" / "User id 4412"; not "300 seconds" / "five minutes", "10 MB" / "10MB"): two things, or
    one thing with two values, and either way not one claim said twice."""
    a, b = _numbered(existing), _numbered(incoming)
    return bool(a - b) and bool(b - a) and not same_quantities(existing, incoming)


_DIGITS = re.compile(r"\d+(?:[.,:]\d+)*")


@functools.lru_cache(maxsize=TEXT_CACHE)
def _numbered(text: str) -> frozenset[str]:
    """The numbers written in ``text``, wherever they stand: "S3-backed" and "S3", "utf8" and "UTF-8" hold one."""
    return frozenset(_DIGITS.findall(text))


_DIGIT_GROUPS = re.compile(r"(?<![\d.,])\d+(?: \d+)+(?![\d.,]\d)")  # "07700 900123", "06 12 34 56 78"


def _literal_values(text: str) -> set[str]:
    """Values written as literals. A bare integer right after a noun names something ("ticket 41") and is left out,
    unless it stands after the statement's verb ("the build uses Node 18"); digits in groups ("07700 900123",
    "06 12 34 56 78") are one value."""
    found = set(_DIGIT_GROUPS.findall(text))
    words = _words(_DIGIT_GROUPS.sub(" ", text))
    verb = next((i for i, w in enumerate(words) if w in LINKING_VERBS), len(words))
    return found | {
        w.strip("'")
        for i, w in enumerate(words)
        if "@" in w or MARKED_VALUE.search(w) or (w.isdigit() and (i == 0 or i > verb or words[i - 1] in VALUE_LEADS))
    }


def same_words(existing: str, incoming: str) -> bool:
    """Whether the two texts use the same content words (plurals, possessives and stop words aside): a restatement
    that needs no judge ("The cache is Redis." / "We cache with Redis" is not one)."""
    a = {_fold(w) for w in _words(existing) if w not in STOPWORDS}
    b = {_fold(w) for w in _words(incoming) if w not in STOPWORDS}
    return a == b


def update_signal(existing: str, incoming: str) -> Conflict | None:
    """Why ``incoming`` (the newer text) changes the value ``existing`` states, or ``None`` (see the module doc).
    Only single statements are judged (:func:`is_statement`); longer texts need an LLM."""
    if not (is_statement(existing) and is_statement(incoming)) or different_subjects(existing, incoming):
        return None
    if _opposite_events(existing, incoming) or _QUOTED.search(existing) or _QUOTED.search(incoming):
        return None  # "opens at 8am" / "closes at 8pm": two attributes; a quotation is a mention, not a claim
    conflict = detect_conflict(existing, incoming, values_only=True)
    if conflict is not None:  # numbers where a value stands; those naming things ("note 1", "worker 4") are left out
        return conflict
    cue = update_cue(existing, incoming)
    if cue is not None:
        return Conflict("update", f"the newer statement says {cue!r}")
    if same_quantities(existing, incoming, VALUE_LEADS):
        return None  # one value written two ways ("300 seconds" / "five minutes"), or a range around it
    slot = single_slot_change(existing, incoming)
    if slot is not None:
        return Conflict("value", slot)
    return None


def same_frame(existing: str, incoming: str) -> bool:
    """Whether the two statements are the same sentence but for one short slot (cue words such as "now" set aside):
    "The daily sync starts at 9am" / "The daily sync starts at 10am". Only such a pair, or one that says it changed,
    is an update without an LLM; another value in other words is kept as a dispute."""
    a, b, prefix, suffix = _aligned(existing, incoming)
    shared = [w for w in a[:prefix] + a[len(a) - suffix :] if w not in STOPWORDS]
    return bool(shared) and max(len(a), len(b)) - prefix - suffix <= MAX_SLOT_WORDS
