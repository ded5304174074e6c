"""Conversation turns read with their neighbours: the words a turn's text row carries for keyword search, the vector
recall scores a turn by, and the speaker a question names. Pure; the store supplies the turns.

Why: a turn alone often does not say what it is about ("Yes! It was so much fun, the kids loved it" answers "How was
the camping trip?"). Measured on LoCoMo's five development conversations (benchmarks.retrieval) and on our own set
(benchmarks.conversations); README gives what each part adds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .keywords import query_terms


def window(turn: int, before: int, after: int) -> range:
    """The places of a turn's window in its session: ``before`` places before it up to ``after`` after it."""
    return range(turn - before, turn + after + 1)


def affected(places: Iterable[int], before: int, after: int) -> set[int]:
    """The turns whose window holds any of ``places`` (turns added or removed there): each place's own turn and those
    up to ``after`` places before it and ``before`` places after it."""
    return {turn for place in places for turn in range(place - after, place + before + 1)}


def window_text(contents: Mapping[int, Sequence[str]], turn: int, before: int, after: int) -> str:
    """The words of the other turns in ``turn``'s window, in session order (``contents``: place -> the texts said
    there; two writers may have given one place to two turns)."""
    return " ".join(text for place in window(turn, before, after) if place != turn for text in contents.get(place, ()))


def context_similarities(
    query: np.ndarray,
    vectors: Mapping[str, np.ndarray],
    windows: Mapping[str, Sequence[str]],
    self_weight: float,
) -> dict[str, float]:
    """Each turn's cosine to ``query`` in its context: its vector is ``self_weight`` x its own unit vector plus its
    neighbours' (``windows``: turn -> the ids around it), normalised. On LoCoMo's development conversations this
    scored turns as well as embedding the window's text (a second model call per turn) and better than the turn
    alone. Turns without a vector are left out; neighbours without one count for nothing. One pass of numpy for all."""
    turns = [t for t in windows if t in vectors]
    if not turns:
        return {}
    ids = list(dict.fromkeys([*turns, *(n for t in turns for n in windows[t] if n in vectors)]))
    place = {memory_id: i + 1 for i, memory_id in enumerate(ids)}  # row 0 is a zero vector, for padding
    matrix = np.zeros((len(ids) + 1, len(vectors[ids[0]])), dtype=np.float32)
    matrix[1:] = [vectors[i] for i in ids]  # filled in one copy: stacking row by row cost as much as the rest
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))[:, None]
    units = matrix / np.where(norms > 0, norms, 1.0)
    around = [[place[n] for n in windows[t] if n in place] for t in turns]
    cosines = blended_cosines(query, units, [place[t] for t in turns], around, self_weight)
    return dict(zip(turns, cosines.tolist()))


def blended_cosines(
    query: np.ndarray, units: np.ndarray, own: Sequence[int], around: Sequence[Sequence[int]], self_weight: float
) -> np.ndarray:
    """The rule of :func:`context_similarities` on rows of unit vectors (``units``, its row 0 all zeros): turn i's
    vector is ``self_weight`` x ``units[own[i]]`` plus ``units[j]`` for each j in ``around[i]``, normalised; its
    cosine to ``query``. For a store that holds the vectors as a matrix already."""
    width = max(map(len, around), default=0)
    padded = np.zeros((len(own), width), dtype=np.int64)
    for row, places in enumerate(around):
        padded[row, : len(places)] = places
    blended = self_weight * units[np.asarray(own, dtype=np.int64)] + units[padded].sum(axis=1)
    lengths = np.linalg.norm(blended, axis=1)
    return (blended @ (query / (np.linalg.norm(query) or 1.0))) / np.where(lengths > 0, lengths, 1.0)


def cosines(vectors: Mapping[str, np.ndarray], query: np.ndarray) -> dict[str, float]:
    """Each memory's cosine to ``query`` (for memories the vector search did not find)."""
    if not vectors:
        return {}
    stored = np.stack(list(vectors.values()))
    return dict(zip(vectors, (stored @ (query / np.linalg.norm(query)) / np.linalg.norm(stored, axis=1)).tolist()))


@dataclass(frozen=True)
class TurnScores:
    """What the conversation says about recall's candidates."""

    similarity: dict[str, float] = field(default_factory=dict)  # a turn's cosine to the query, in its context
    boost: dict[str, float] = field(default_factory=dict)  # relevance multipliers (the named speaker's turns)

    @property
    def ceiling(self) -> float:
        """The largest multiplier any candidate's relevance gets."""
        return max(self.boost.values(), default=1.0)


def turn_scores(
    speakers: Mapping[str, str | None],
    in_context: Mapping[str, float],
    terms: Sequence[str],
    speaker_boost: float,
) -> TurnScores:
    """Recall's candidates read as turns: their context cosines (``in_context``, :func:`context_similarities` as the
    store computed them), and a relevance multiplier of 1 + ``speaker_boost`` for the turns of the one speaker
    (``speakers``: candidate -> who said it) the query's ``terms`` name."""
    boost: dict[str, float] = {}
    if speaker_boost > 0 and terms:
        named = named_speaker((s for s in speakers.values() if s), terms)
        boost = {i: 1.0 + speaker_boost for i, s in speakers.items() if named is not None and s == named}
    return TurnScores(dict(in_context), boost)


def speaker_words(speaker: str) -> tuple[str, ...]:
    """A speaker's name as the words a question would use for it (lowercase, as :func:`query_terms` gives them)."""
    return tuple(query_terms(speaker))


def named_speaker(speakers: Iterable[str], terms: Sequence[str]) -> str | None:
    """The one speaker among ``speakers`` whose name's words are all among the query's ``terms``; ``None`` when the
    question names none of them, or several ("What did Alice and Bob both paint?" favours neither)."""
    wanted = set(terms)
    named = {s for s in set(speakers) if (words := speaker_words(s)) and set(words) <= wanted}
    return named.pop() if len(named) == 1 else None
