"""Which recalled memories answer the same question at different times (offline, English), so that the newer comes
first when a question asks how things are.

A long chat turn mixes many claims, so validation judges none of them offline
(:func:`audrey_core.claims.parse.is_statement`) and a fact changed inside one ("We moved the main database over to MySQL
8 last weekend.") is neither disputed nor superseded: only ranking can put it first. Here, the sentence of each recalled
memory that answers the question is the one sharing most of its words; two memories whose answering sentences share the
same words of the question (at least two, or the question's only one) and say something else are two answers to it. Only
a pair counts: when more than two recalled memories answer alike, the question names a topic the conversation keeps
coming back to ("the dance studio"), not one value that changed (on LoCoMo, reordering such groups cost 2.6 points of
recall@1).
This only orders results that recall has already chosen; it never hides one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...claims.about import about_one_thing
from ...claims.parse import MAX_WORDS, parser_loaded
from ..keywords import query_terms
from ..union_find import UnionFind
from .conflict import same_words

# A question about another time than now (a past or perfect tense, a time named) or about what might be (a modal):
# its older answers are as good as the newer ones.
_NOT_NOW = re.compile(
    r"\b(?:did|was|were|had|has|have|used to|originally|at first|first time|before|previous(?:ly)?|former(?:ly)?|"
    r"ago|yesterday|earlier|last (?:week|month|year|time)|back then|in the past|in (?:19|20)\d\d|"
    r"would|could|might|should|will|may)\b",
    re.I,
)
_PAST_VERB = re.compile(r"^\W*(?:what|which|who|whom)\s+\w+ed\b", re.I)  # "What inspired ...", "Who started ..."
_SENTENCE = re.compile(r"[^.!?;]+(?:[.!?;]+|$)")
_WORD = re.compile(r"[a-z0-9']+")
_CASED_WORD = re.compile(r"[A-Za-z0-9']+")
_QUESTION_WORDS = frozenset("what which who where how long often many much whose".split())
_ASKS = re.compile(r"^\W*(?:what|which|who|whose|where|when|how|is|are|does|do)\b|\?\s*$", re.I)  # a question
PREFIX = 5  # "deploy" / "deployed" / "deploys", "run" / "running": one word to this


def asks_how_things_are(question: str) -> bool:
    """Whether ``question`` is a question (not a search phrase: "first memory to backfill") asking for the value that
    holds now: present tense, no other time named, no modal."""
    return bool(_ASKS.search(question)) and _NOT_NOW.search(question) is None and _PAST_VERB.search(question) is None


def question_words(question: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words of the question an answer would repeat, cut to their first letters; and those of them that are no
    name (not capitalised inside the question): what the question asks about rather than whom."""
    terms = frozenset(query_terms(question)) - _QUESTION_WORDS
    cased = _CASED_WORD.findall(question)
    names = {w.lower() for w in cased[1:] if w[:1].isupper()}
    return frozenset(_stem(t) for t in terms), frozenset(_stem(t) for t in terms - names)


def answering_sentence(text: str, words: frozenset[str]) -> tuple[str, frozenset[str]] | None:
    """The sentence of ``text`` that shares most of ``words`` (a claim: not a question, not longer than a
    statement) and the words it shares; ``None`` when no sentence shares any."""
    best: tuple[str, frozenset[str]] | None = None
    for match in _SENTENCE.finditer(text):
        sentence = match.group(0).strip()
        said = _WORD.findall(sentence.lower())
        if not said or sentence.endswith("?") or len(said) > MAX_WORDS:
            continue
        shared = words & {_stem(w) for w in said}
        if shared and (best is None or len(shared) > len(best[1])):
            best = (sentence, shared)
    return best


def same_question(
    a: tuple[str, frozenset[str]] | None,
    b: tuple[str, frozenset[str]] | None,
    words: frozenset[str],
    named_not: frozenset[str],
) -> bool:
    """Whether two answering sentences answer the question alike: they share the same words of it (two or more, or
    its only one), one of them no name (two remarks to one person share only the name: ``named_not`` are the
    question's words that are no name), do not say the same thing (a restatement is no other answer), and the
    parser does not read them as of another subject or predicate (:mod:`audrey_core.claims.about`; a statement
    is parsed only when the parser is loaded already, else read as stored: recall never waits for it to load)."""
    if a is None or b is None:
        return False
    shared = a[1] & b[1]
    if len(shared) < min(2, len(words)) or not shared & named_not or same_words(a[0], b[0]):
        return False
    return about_one_thing(a[0], b[0], parse=parser_loaded()) is not False  # "the user's sister" / "... brother"


def _stem(word: str) -> str:
    """The word's first letters, its possessive and plural set aside ("banks" ~ "bank", "user's" ~ "user")."""
    word = word.removesuffix("'s")
    plural = len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))
    return (word[:-1] if plural else word)[:PREFIX]


def answer_groups(texts: Sequence[str], question: str) -> list[list[int]]:
    """Pairs of indexes into ``texts`` that answer ``question`` alike, and no third text with them; none when the
    question asks about another time."""
    if not asks_how_things_are(question):
        return []
    words, named_not = question_words(question)
    if not words:
        return []
    answers = [answering_sentence(text, words) for text in texts]
    sets = UnionFind(list(range(len(texts))))
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            if same_question(answers[i], answers[j], words, named_not):
                sets.union(i, j)
    return [group for group in sets.groups() if len(group) == 2]
