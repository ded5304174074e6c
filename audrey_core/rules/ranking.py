"""Ranking recall candidates: a candidate's score (relevance x confidence x type weight), the order (the sides of a
dispute together; answers to one question at different times newest first), how many candidates to fetch, and the
self-citation guard on reinforcement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..config import RecallConfig
from ..models import Memory
from .confidence import ConfidenceBreakdown
from .lineage import DERIVED_SOURCES
from .recall_options import RecallOptions


@dataclass(frozen=True)
class Ranked:
    """A candidate after scoring. ``relevance`` is the fused keyword + vector relevance in hybrid and keyword modes;
    in vector mode the cosine similarity (a conversation turn's in its context), with what the question favours."""

    memory: Memory
    similarity: float
    breakdown: ConfidenceBreakdown
    relevance: float
    influence: float = 1.0  # RecallConfig.confidence_influence
    type_weight: float = 1.0  # RecallConfig.type_weights[memory type]
    vector_row: int | None = None  # the memory's nearest vector (chunk), when the vector search found it
    chunk: str | None = None  # that chunk's text, when the memory is long enough to have several
    rests_on: tuple[str, ...] = ()  # a principle's: the episodes among the candidates read that it rests on
    carried: float = 0.0  # a principle's: the score of the best of them (lessons_first)

    @property
    def score(self) -> float:
        """relevance x (1 - influence + influence x confidence) x type weight; a principle's at least ``carried``."""
        own = self.relevance * (1.0 - self.influence + self.influence * self.breakdown.value) * self.type_weight
        return max(own, self.carried)


def ranked_item(
    memory: Memory,
    similarity: float,
    breakdown: ConfidenceBreakdown,
    relevance: float,
    cfg: RecallConfig,
    vector_row: int | None = None,
) -> Ranked:
    return Ranked(
        memory,
        similarity,
        breakdown,
        relevance,
        cfg.confidence_influence,
        cfg.type_weights[memory.memory_type],
        vector_row,
    )


def ranking_key(item: Ranked) -> tuple[float, float, float, str]:
    """Best first: higher score, then a principle before the episode whose score it carries, then higher similarity,
    then id (so ties order the same everywhere)."""
    return (-item.score, -item.carried, -item.similarity, item.memory.id)


def lessons_first(ranked: Sequence[Ranked]) -> list[Ranked]:
    """``ranked`` with each principle scoring at least what the best of its episodes in ``ranked`` scores, and standing
    before it: it carries their evidence (seed 002), so the lesson comes before the reports it was learned from."""
    if not any(item.rests_on for item in ranked):
        return list(ranked)
    scores = {item.memory.id: item.score for item in ranked}
    lifted = []
    for item in ranked:
        best = max((scores[e] for e in item.rests_on if e in scores), default=0.0)
        lifted.append(replace(item, carried=best) if best >= item.score and best > 0.0 else item)
    return sorted(lifted, key=ranking_key)


def pool_size(options: RecallOptions, cfg: RecallConfig) -> int:
    """How many KNN candidates to fetch before re-ranking."""
    narrowed = options.where.is_narrowed or options.min_confidence > 0
    multiplier = cfg.filtered_candidate_multiplier if narrowed else cfg.candidate_multiplier
    return min(cfg.max_candidates, max(cfg.min_candidates, options.limit * multiplier))


def is_self_citation(memory: Memory, origins: Sequence[tuple[str, str]], retriever: str | None) -> bool:
    """True when every piece of the memory's evidence is the retrieving agent's own inference or generation.

    Such a memory gains nothing from being retrieved by that agent (seed 002: self-citation guard).
    """
    chain = list(origins) or [(memory.source, memory.agent)]
    return all(source in DERIVED_SOURCES and agent == retriever for source, agent in chain)


def each_statement_once(ranked: Sequence[Ranked]) -> list[Ranked]:
    """``ranked`` with a statement repeated word for word by one source in one scope kept once, where its best copy
    stood (a script run twice, an agent told the same thing again): nothing is deleted or changed, and validation
    counted the copies as each other's evidence. The same words from two sources stay apart (two witnesses), and a
    conversation's turns are events, each in its place: all stay."""
    seen: set[tuple[str, tuple[str, ...], str, str]] = set()
    kept = []
    for item in ranked:
        memory = item.memory
        if getattr(memory, "session", None) is None:  # an episode, or a principle, said again in the same words
            text = " ".join(memory.content.split()).casefold()
            statement = (memory.memory_type, memory.scope, memory.source, text)
            if statement in seen:
                continue
            seen.add(statement)
        kept.append(item)
    return kept


def disputes_together(ranked: Sequence[Ranked], sides: Mapping[str, Sequence[str]]) -> list[Ranked]:
    """``ranked`` with the recalled sides of each dispute next to each other, where the better-ranked side stood:
    the sides held before those a settlement set aside (``disputed``), and among them the more recent first when
    their sources are equally reliable, else in rank order (an agent reading the top of the list meets the
    disagreement, and the newer claim, together). A chain of disputes (A against B, B against C: two updates guessed
    in a row) stands together as one. ``sides``: memory id -> the ids of the other sides of its disputes."""
    by_id = {item.memory.id: item for item in ranked}
    placed: set[str] = set()
    result: list[Ranked] = []
    for item in ranked:
        if item.memory.id in placed:
            continue
        group, frontier = [item], [item.memory.id]
        placed.add(item.memory.id)
        while frontier:
            for other in sides.get(frontier.pop(), ()):
                if other in by_id and other not in placed:
                    placed.add(other)
                    group.append(by_id[other])
                    frontier.append(other)
        if len({g.memory.source_reliability for g in group}) == 1:
            group.sort(key=lambda g: g.memory.valid_from, reverse=True)
        group.sort(key=lambda g: g.memory.state == "disputed")  # (stable) a side a settlement set aside goes last
        result.extend(group)
    return result


def newest_answers_first(ranked: Sequence[Ranked], groups: Sequence[Sequence[int]]) -> list[Ranked]:
    """``ranked`` with the members of each group (indexes into it: memories answering the question alike, from
    :func:`audrey_core.rules.english.answers.answer_groups`) together at the best place any of them held, the most
    recent first; the others keep their order. Together, not in the places the group held: the best answer would
    otherwise trade places with a newer one far down the list and leave the first results."""
    first_of = {min(group): sorted(group) for group in groups}
    grouped = {i for group in groups for i in group}
    result: list[Ranked] = []
    for place, item in enumerate(ranked):
        if place in first_of:
            members = [ranked[i] for i in first_of[place]]
            result += sorted(members, key=lambda member: member.memory.valid_from, reverse=True)
        elif place not in grouped:
            result.append(item)
    return result
