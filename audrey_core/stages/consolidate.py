"""CONSOLIDATE: the sleep cycle that turns clusters of episodes into principles (seed 002 step 3, seed 000 §5).

A run (1) plans: it takes the agent's unconsolidated episodes, clusters them with one KNN query per episode plus
union-find at ``cluster_similarity`` (offline, never two episodes the English rules read as about different things;
with an LLM: the pairs it says report one lesson, from a lower cosine; both cosines calibrated to the store's
embedding model, :mod:`..rules.calibration`), keeps the
clusters that qualify (adaptive minimum size, independent evidence from at least ``min_source_types`` source types,
never only model-generated) and records that plan in the run;
(2) promotes each planned cluster in one transaction: extract a principle (LLM, or the cluster's medoid), check it
against existing knowledge like validation does, write it with its evidence and causal links, mark its episodes
consolidated. Output ids derive from the cluster's episode ids, so a run that dies at any step and is resumed (the
next ``consolidate()`` picks it up) neither duplicates nor loses anything.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..claims.apply import add_evidence, record_contradiction
from ..claims.decide import Decision, decide
from ..claims.gather import lineages, nearest
from ..claims.judges import different_things, judge_safely
from ..config import ConsolidationConfig
from ..errors import LLMError
from ..ids import deterministic_id, new_ulid
from ..models import ConsolidationRun, Episodic, Memory, Procedural, Semantic
from ..providers.embedding import embed_texts
from ..providers.llm import ask, model_name_of
from ..rules.calibration import baseline_for, calibrated
from ..rules.causal import build_links
from ..rules.confidence import memory_confidence
from ..rules.expiry import expired
from ..rules.keywords import words_all_hold
from ..rules.lineage import first_hand, independent
from ..rules.prompts import PRINCIPLE_EXTRACTION, SAME_LESSON
from ..rules.union_find import UnionFind
from ..states import CLAIM_STATES
from ..storage import VectorFilter
from .context import StageContext
from .records import run_within
from .undo import snapshot

log = logging.getLogger(__name__)

EPISODE_STATES = ("active", "context_dependent")
PAIRS_PER_CALL = 16  # pairs of episodes one grouping call asks about


def cluster_ids(ctx: StageContext, episodes: Sequence[Episodic], vectors: dict[str, np.ndarray]) -> list[list[str]]:
    """Clusters of episode ids: N KNN queries among unconsolidated episodes, joined at ``cluster_similarity``; with an
    LLM, the pairs it says report the same lesson, asked of each episode's ``ask_neighbors`` nearest from
    ``ask_similarity`` (:func:`same_lessons`).

    Offline, with the English rules on (``ValidationConfig.offline_rules``), two episodes about different things
    (:func:`~audrey_core.claims.judges.different_things`) never join: "The admin site passed the restore
    drill" and "The search API passed the restore drill" are two facts, not one lesson met twice, and their medoid
    would be a principle naming one service on the other's evidence."""
    cfg = ctx.config.consolidation
    ids = [e.id for e in episodes if e.id in vectors]
    members = set(ids)
    scope_of = {e.id: e.scope for e in episodes}
    text_of = {e.id: e.content for e in episodes}
    sets = UnionFind(ids)
    baseline = baseline_for(ctx.storage, ctx.embedder, ctx.clock())
    floor = calibrated(cfg.cluster_similarity if ctx.llm is None else cfg.ask_similarity, baseline)
    asked: dict[tuple[str, str], None] = {}  # pairs for the LLM, in the order met, each once
    where = VectorFilter(agent=ctx.agent, memory_types=("episodic",), states=EPISODE_STATES, consolidated=False)
    for episode_id in ids:
        near = 0
        for hit in ctx.storage.knn(vectors[episode_id], cfg.max_neighbors, where):
            if hit.similarity < floor:
                break  # hits come nearest first
            other = hit.memory_id
            # Never across scopes: one user's episodes must not become a principle with another's.
            if other not in members or other == episode_id or scope_of[other] != scope_of[episode_id]:
                continue
            if ctx.llm is None:
                if not different_things(text_of[episode_id], text_of[other], ctx.config.validation):
                    sets.union(episode_id, other)
            elif near < cfg.ask_neighbors:  # it decides near-copies too: two limits of one tool read alike
                asked.setdefault((min(episode_id, other), max(episode_id, other)), None)
            near += 1
    if asked:
        same_lessons(ctx, list(asked), text_of, sets)
    return sets.groups()


def same_lessons(ctx: StageContext, pairs: Sequence[tuple[str, str]], texts: dict[str, str], sets: UnionFind) -> None:
    """Join in ``sets`` the pairs the LLM says report the same lesson, asked ``PAIRS_PER_CALL`` to a call; a pair
    already joined through others is not asked. Precision first: a call that fails (an error, malformed JSON, a
    refusal, a timeout) or leaves a pair out joins none of its pairs, and an ``error`` event says so."""
    waiting = iter(pairs)
    while True:
        batch = []
        for a, b in waiting:
            if sets.find(a) != sets.find(b):
                batch.append((a, b))
                if len(batch) == PAIRS_PER_CALL:
                    break
        if not batch:
            break
        listed = "\n".join(
            f"{n}. A: {' '.join(texts[a].split())}\n   B: {' '.join(texts[b].split())}"
            for n, (a, b) in enumerate(batch, 1)
        )
        try:
            reply = ask(ctx.llm, SAME_LESSON, pairs=listed)
            answers = {j.pair: j.same for j in reply.judgements}
            if set(answers) != set(range(1, len(batch) + 1)):
                raise LLMError(f"{model_name_of(ctx.llm)} answered pairs {sorted(answers)} of 1..{len(batch)}")
        except LLMError as exc:
            log.warning("LLM grouping failed (%s); its %d pairs stay apart", exc, len(batch))
            ctx.emit("error", {"event": "consolidation", "error": exc})
            continue
        for n, (a, b) in enumerate(batch, 1):
            if answers[n]:
                sets.union(a, b)


def cluster_variance(matrix: np.ndarray) -> float:
    """Mean squared distance of the members' unit vectors from their centroid (0 when identical, at most 2)."""
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return float(np.mean(np.sum((unit - unit.mean(axis=0)) ** 2, axis=1)))


def minimum_size(variance: float, cfg: ConsolidationConfig) -> int:
    """max(min_episodes, ceil(cluster_variance * confidence_target)) (seed 002's adaptive threshold)."""
    return max(cfg.min_episodes, math.ceil(round(variance * cfg.confidence_target, 9)))


@dataclass(frozen=True)
class Assessment:
    """Whether a cluster may become a principle, and on what evidence."""

    qualifies: bool
    reason: str
    independent: tuple[Episodic, ...]
    needed: int
    variance: float


def assess(
    members: Sequence[Episodic], matrix: np.ndarray, lineage: dict[str, frozenset[str]], cfg: ConsolidationConfig
) -> Assessment:
    """The independent-evidence rules: episodes sharing a provenance chain (an ancestor, a conversation) count once;
    enough of them for the cluster's spread; at least ``min_source_types`` distinct first-hand sources (the agent's
    own conclusions are no witness); never only the agent's own output."""
    ordered = sorted(members, key=lambda e: e.id)
    backing = tuple(independent(ordered, lineage))
    variance = cluster_variance(matrix)
    needed = minimum_size(variance, cfg)
    sources = {e.source for e in backing if first_hand(e)}
    if not sources:
        return Assessment(False, "only the agent's own conclusions", backing, needed, variance)
    if len(backing) < needed:
        return Assessment(False, f"{len(backing)} independent episodes, {needed} needed", backing, needed, variance)
    if len(sources) < cfg.min_source_types:
        reason = f"{len(sources)} source type(s), {cfg.min_source_types} needed"
        return Assessment(False, reason, backing, needed, variance)
    return Assessment(True, "qualifies", backing, needed, variance)


@dataclass(frozen=True)
class Extraction:
    """A principle drawn from a cluster, and how."""

    content: str
    kind: str
    boundary_conditions: str | None
    trigger_conditions: str | None
    mechanism: str | None
    link_type: str | None
    evidence_diverse: bool
    model: str
    prompt_hash: str | None
    medoid_id: str | None = None
    shared_words: str = ""  # offline: the medoid's words every member holds (what the cluster shares)


def extract(
    ctx: StageContext, members: Sequence[Episodic], matrix: np.ndarray, backing: Sequence[Episodic]
) -> Extraction:
    """Ask the LLM for the principle; without one, take the medoid episode's text (marked extractive) and the words
    every member holds."""
    if ctx.llm is None:
        unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        medoid = members[int(np.argmax((unit @ unit.T).sum(axis=1)))]
        diverse = len({e.source for e in backing if first_hand(e)}) >= ctx.config.consolidation.min_source_types
        shared = words_all_hold(medoid.content, [e.content for e in members])
        return Extraction(
            medoid.content, "semantic", None, None, None, None, diverse, "extractive", None, medoid.id, shared
        )
    now = ctx.clock()
    observations = "\n".join(
        f"- [{e.source}, {memory_confidence(e, now, ctx.config.confidence).value:.2f}] {e.content}" for e in members
    )
    causal = "\n".join(
        f"- {e.causal_trigger or '?'} -> {e.causal_consequence or '?'}"
        for e in members
        if e.causal_trigger or e.causal_consequence
    )
    reply = ask(ctx.llm, PRINCIPLE_EXTRACTION, observations=observations, causal=causal or "(none)")
    return Extraction(
        reply.principle.strip(),
        reply.kind,
        reply.boundary_conditions,
        reply.trigger_conditions,
        reply.mechanism,
        reply.link_type,
        reply.evidence_diverse,
        model_name_of(ctx.llm),
        PRINCIPLE_EXTRACTION.hash,
    )


def consolidate(ctx: StageContext, progress: Callable[[int, int], None] | None = None) -> ConsolidationRun:
    """Run (or resume) one consolidation for the agent and return its record.

    ``progress(done, total)`` is called after each planned cluster is promoted."""
    run = _resume_or_plan(ctx)
    try:
        for done, cluster in enumerate(run.plan, start=1):
            _promote_cluster(ctx, run, list(cluster))
            if progress is not None:
                progress(done, len(run.plan))
    except BaseException as exc:
        ctx.storage.update_record(
            ConsolidationRun, run.id, {"status": "failed", "error": f"{type(exc).__name__}: {exc}"}
        )
        raise
    ctx.storage.update_record(
        ConsolidationRun, run.id, {"status": "completed", "completed_at": ctx.clock(), "error": None}
    )
    return _run(ctx, run.id)


def _run(ctx: StageContext, run_id: str) -> ConsolidationRun:
    return ctx.storage.find_records(ConsolidationRun, id=run_id)[0]


def _resume_or_plan(ctx: StageContext) -> ConsolidationRun:
    unfinished = ctx.storage.find_records(ConsolidationRun, agent=ctx.agent, status=["running", "failed"])
    unfinished = [run for run in unfinished if run_within(ctx, run)]
    if unfinished:
        run = unfinished[0]
        ctx.storage.update_record(ConsolidationRun, run.id, {"status": "running", "error": None})
        return _run(ctx, run.id)
    now = ctx.clock()
    episodes = ctx.tenant.mine(ctx.storage.unconsolidated_episodes(ctx.agent, EPISODE_STATES))
    episodes = [e for e in episodes if not expired(e.expires_at, now)]  # gone for every read: no evidence either
    vectors = ctx.storage.get_vectors([e.id for e in episodes])
    by_id = {e.id: e for e in episodes}
    lineage = lineages(ctx.storage, episodes)
    plan = []
    for ids in cluster_ids(ctx, episodes, vectors):
        members = [by_id[i] for i in ids]
        if assess(members, np.vstack([vectors[i] for i in ids]), lineage, ctx.config.consolidation).qualifies:
            plan.append(tuple(ids))
    run = ConsolidationRun(
        id=new_ulid(now),
        agent=ctx.agent,
        status="running",
        checkpoint_cursor=episodes[-1].id if episodes else None,
        input_episode_ids=tuple(by_id),
        output_memory_ids=(),
        confidence_deltas={},
        consolidation_model=model_name_of(ctx.llm) if ctx.llm is not None else "extractive",
        consolidation_prompt_hash=PRINCIPLE_EXTRACTION.hash if ctx.llm is not None else None,
        started_at=now,
        completed_at=None,
        plan=tuple(plan),
    )
    ctx.storage.insert_records([run])
    return run


def _promote_cluster(ctx: StageContext, run: ConsolidationRun, ids: list[str]) -> None:
    # The run's id is part of the principle's: a resumed run finds what it made, and a run after a rollback makes new
    # principles instead of finding the rolled-back ones.
    run_id = run.id
    output_id = deterministic_id("M", ctx.agent, run_id, *ids)
    if ctx.storage.get_memory(output_id) is not None:
        return  # promoted before the run was interrupted
    found = ctx.storage.get_memories(ids)
    members = [found[i] for i in ids if isinstance(found.get(i), Episodic) and not found[i].consolidated]
    if not members:
        return  # folded into an existing principle before the run was interrupted
    vectors = ctx.storage.get_vectors([m.id for m in members])
    matrix = np.vstack([vectors[m.id] for m in members])
    lineage = lineages(ctx.storage, members)
    backing = independent(sorted(members, key=lambda e: e.id), lineage)
    extraction = extract(ctx, members, matrix, backing)
    vector = (
        vectors[extraction.medoid_id] if extraction.medoid_id else embed_texts(ctx.embedder, [extraction.content])[0]
    )
    neighbour = nearest(ctx, vector, CLAIM_STATES, members[0].scope)
    decision = _against_neighbour(ctx, neighbour, extraction.content)
    if decision.action == "reinforce" and neighbour is not None:
        _fold_into(ctx, run_id, neighbour[0], members, backing)
        return
    memory = _principle(ctx, output_id, run_id, members, backing, extraction)
    links = build_links(
        agent=ctx.agent,
        principle_id=output_id,
        episodes=members,
        independent_ids={e.id for e in backing},
        mechanism=extraction.mechanism,
        stated_type=extraction.link_type,
        run_id=run_id,
        now=ctx.clock(),
    )
    with ctx.storage.transaction():
        ctx.storage.insert_memories([memory], vector[None, :])
        _mark_consolidated(ctx, run_id, members)
        ctx.storage.insert_records(links)
        if decision.action in ("dispute", "hold_in_context") and neighbour is not None and decision.verdict:
            existing = neighbour[0]
            ctx.storage.append_undo(run_id, [snapshot(existing)])
            record_contradiction(ctx, existing, memory, decision.verdict, run_id=run_id)
        ctx.storage.record_run_result(run_id, output_id)  # a row: the run's own record is not rewritten per cluster
    ctx.emit(
        "consolidation",
        {
            "run_id": run_id,
            "principle": memory,
            "episodes": [m.id for m in members],
            "links": links,
            "checkpoint": run.checkpoint_cursor,
        },
    )


def _against_neighbour(ctx: StageContext, neighbour: tuple[Memory, float] | None, principle: str) -> Decision:
    """What a new principle is to the closest principle of its scope (both hold from now: never an update)."""
    if neighbour is None:
        return Decision("nothing")
    existing, similarity = neighbour
    rules, llm = judge_safely(ctx, existing.content, principle, similarity)
    return decide(
        rules,
        llm,
        similarity=similarity,
        newer=None,
        existing_source=existing.source,
        incoming_source=existing.source,
        existing_is_episode=False,
        reliability=ctx.config.confidence.source_reliability,
        cfg=ctx.config.validation,
    )


def _mark_consolidated(ctx: StageContext, run_id: str, members: Sequence[Episodic]) -> None:
    ctx.storage.update_memories({m.id: {"consolidated": True} for m in members})
    ctx.storage.append_undo(run_id, [{"op": "unconsolidate", "episode_ids": [m.id for m in members]}])


def _fold_into(
    ctx: StageContext, run_id: str, existing: Memory, members: Sequence[Episodic], backing: Sequence[Episodic]
) -> None:
    """The cluster repeats a principle we already hold: add its independent episodes as that principle's evidence."""
    now = ctx.clock()
    with ctx.storage.transaction():
        # validation elsewhere may reinforce it too: add_evidence locks it and returns it as it was
        held, new_evidence = add_evidence(ctx, existing.id, [e.id for e in backing])
        if held is None:
            return  # forgotten meanwhile: the cluster stays unconsolidated for the next run
        existing = held
        before = memory_confidence(existing, now, ctx.config.confidence).value
        ctx.storage.append_undo(run_id, [snapshot(existing)])
        _mark_consolidated(ctx, run_id, members)
        after = memory_confidence(ctx.storage.get_memory(existing.id), now, ctx.config.confidence).value
        ctx.storage.record_run_result(run_id, existing.id, after - before)
    ctx.emit(
        "reinforcement",
        {"kind": "consolidation", "memory_id": existing.id, "run_id": run_id, "episode_ids": new_evidence},
    )


def _principle(
    ctx: StageContext,
    output_id: str,
    run_id: str,
    members: Sequence[Episodic],
    backing: Sequence[Episodic],
    extraction: Extraction,
) -> Memory:
    sources = Counter(e.source for e in backing)
    reliability = ctx.config.confidence.source_reliability
    # The principle speaks with its evidence's voice: the commonest source (ties: the more reliable one).
    source = max(sources, key=lambda s: (sources[s], reliability[s]))
    common: dict[str, Any] = {
        "id": output_id,
        "agent": ctx.agent,
        "scope": members[0].scope,
        "content": extraction.content,
        "source": source,
        "source_reliability": float(np.mean([reliability[e.source] for e in backing])),
        "salience": max(e.salience for e in members),
        "tags": tuple(dict.fromkeys(t for e in members for t in e.tags)),
        "evidence_count": len(backing),
        "evidence_episode_ids": tuple(e.id for e in members),
        "created_at": ctx.clock(),
        "embedding_model": ctx.embedder.model_name,
        "consolidation_run_id": run_id,
        "consolidation_model": extraction.model,
        "consolidation_prompt_hash": extraction.prompt_hash,
        "metadata": {
            "extractive": extraction.model == "extractive",
            "evidence_diverse": extraction.evidence_diverse,
            "medoid_id": extraction.medoid_id,
            **({"shared_words": extraction.shared_words} if extraction.medoid_id else {}),
            "source_types": sorted(sources),
        },
    }
    if extraction.kind == "procedural":
        trigger = {"when": extraction.trigger_conditions} if extraction.trigger_conditions else None
        return Procedural(**common, trigger_conditions=trigger)
    boundary = {"boundary": extraction.boundary_conditions} if extraction.boundary_conditions else None
    return Semantic(**common, conditions=boundary, source_type_diversity=len(sources))
