"""VALIDATE: check each new episode against the nearest memories of its scope (seed 002 step 2, seed 000 §4).

The judges give verdicts (:mod:`audrey_core.claims.judges`); one pure function decides what follows
(:func:`audrey_core.claims.decide.decide`); this stage writes it. Each new episode is compared with its
``update_neighbors`` nearest memories of every type in its scope (knowledge never crosses scopes). A memory it
restates is reinforced (a principle gains evidence, an episode a recorded restatement); one it replaces on an
explicit signal is marked ``superseded`` by the later of the two, with the time it stopped holding; any other
conflict is a dispute that keeps both sides in recall (or a context-dependent pair).

Validating an episode again (resuming after a crash) changes nothing the first run did: evidence, restatements and
claim support count once, a pair's contradiction is recorded once, and a memory already superseded stays so.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

import numpy as np

from ..errors import LLMError
from ..index_settings import GIVE_WAY_S, VALIDATION_TURN_S
from ..models import Episodic, Memory
from ..providers.llm import ask, model_name_of
from ..rules.expiry import expired
from ..rules.lineage import first_hand, independent
from ..rules.prompts import CLAIM_EXTRACTION
from ..rules.typed_claims import claim_from_reply, claim_update
from ..stages.context import StageContext
from ..stages.evidence import settle_for_newer
from ..states import CLAIM_STATES, movable
from ..storage import VectorFilter, VectorHit
from .apply import add_evidence, record_contradiction, reopen, supersede
from .decide import Decision, Judgement, Pair, decide
from .gather import lineages, nearest, principles_in
from .judges import Verdicts, judge_pairs_safely, repeats
from .parse import is_statement
from .readings import statements_read

log = logging.getLogger(__name__)

CLAIMS_PER_CALL = 32  # statements whose claims one LLM call reads: a reply a model can give whole


def neighbour_filter(ctx: StageContext, episode: Episodic, now: datetime) -> VectorFilter:
    """Where an episode's neighbours are searched: current claims of its scope. Without an LLM, a text longer than one
    statement is compared with principles only: the offline rules judge no other pair of it
    (:func:`~audrey_core.claims.parse.is_statement`), and scanning every episode would cost for nothing."""
    judged = ctx.llm is not None or (ctx.config.validation.offline_rules and is_statement(episode.content))
    types = None if judged else ("semantic", "procedural")
    return VectorFilter(
        agent=ctx.agent, memory_types=types, states=CLAIM_STATES, scope=tuple(episode.scope), alive_at=now
    )


def neighbours(
    ctx: StageContext, episode: Episodic, vector: np.ndarray, hits: Sequence[VectorHit] | None = None
) -> list[tuple[Memory, float]]:
    """The episode's nearest current memories of any type in its scope, closest first, down to the update zone (with
    an LLM, down to ``judge_similarity``). ``hits``: its neighbours as a batched search found them; each is read
    again here, so a claim an earlier episode of the batch superseded or disputed is seen as it now is."""
    cfg = ctx.config.validation
    if hits is None:
        hits = ctx.storage.knn(vector, cfg.update_neighbors + 1, neighbour_filter(ctx, episode, ctx.clock()))
    floor = cfg.update_similarity if ctx.llm is None else cfg.judge_similarity  # an LLM judges further pairs
    near = [h for h in hits if h.memory_id != episode.id and h.similarity >= floor][: cfg.update_neighbors]
    found = ctx.storage.get_memories([h.memory_id for h in near], {h.memory_id: h.memory_type for h in near})
    now = ctx.clock()  # an expired memory is neither reinforced nor disputed (a vec0 scan does not filter it)
    kept = [
        h
        for h in near
        if h.memory_id in found
        and found[h.memory_id].state in CLAIM_STATES
        and not expired(found[h.memory_id].expires_at, now)
    ]
    return [(found[h.memory_id], h.similarity) for h in kept]


def batch_neighbours(
    ctx: StageContext, episodes: Sequence[Episodic], vectors: dict[str, np.ndarray]
) -> dict[str, list[VectorHit]]:
    """Every episode's nearest claims, searched together: one search per scope (and kind of text) of the batch."""
    now = ctx.clock()
    groups: dict[VectorFilter, list[Episodic]] = {}
    for episode in episodes:
        if episode.id in vectors:
            groups.setdefault(neighbour_filter(ctx, episode, now), []).append(episode)
    return _searched_together(ctx, groups, vectors, ctx.config.validation.update_neighbors + 1)


def batch_disputed_claims(
    ctx: StageContext, episodes: Sequence[Episodic], vectors: dict[str, np.ndarray]
) -> dict[str, list[VectorHit]]:
    """Every episode's nearest principle that a dispute set aside or an update replaced (what
    :func:`support_disputed_claim` counts support for), searched together: one search per scope of the batch."""
    groups: dict[VectorFilter, list[Episodic]] = {}
    for episode in episodes:
        if episode.id in vectors:
            groups.setdefault(principles_in(ctx, movable("reopen"), episode.scope), []).append(episode)
    return _searched_together(ctx, groups, vectors, 1)


def _searched_together(
    ctx: StageContext, groups: dict[VectorFilter, list[Episodic]], vectors: dict[str, np.ndarray], k: int
) -> dict[str, list[VectorHit]]:
    found: dict[str, list[VectorHit]] = {}
    for where, members in groups.items():
        matrix = np.vstack([vectors[e.id] for e in members])
        for episode, hits in zip(members, ctx.storage.knn_many(matrix, k, where)):
            found[episode.id] = hits
    return found


def validate_episodes(ctx: StageContext, episode_ids: Sequence[str]) -> None:
    """Validate each episode in turn; one failure is reported and does not stop the others. The search indexes are
    caught up once for the batch (they hold every episode of it): an episode encoded while it runs is validated
    later, against these."""
    with ctx.storage.searches_caught_up_once():
        ctx.readers.give_way(GIVE_WAY_S, VALIDATION_TURN_S)
        episodes = ctx.storage.get_memories(episode_ids)
        episodes.update(read_claims(ctx, [e for e in episodes.values() if isinstance(e, Episodic)]))
        vectors = ctx.storage.get_vectors(list(episodes))
        batch = [e for e in episodes.values() if isinstance(e, Episodic)]
        ctx.readers.give_way(GIVE_WAY_S, VALIDATION_TURN_S)
        near, disputed = batch_neighbours(ctx, batch, vectors), batch_disputed_claims(ctx, batch, vectors)
        if ctx.llm is None and ctx.config.validation.offline_rules:
            read_statements(ctx, batch, near)
        for episode_id in episode_ids:
            episode = episodes.get(episode_id)
            if not isinstance(episode, Episodic) or episode_id not in vectors:
                continue
            ctx.readers.give_way(GIVE_WAY_S, VALIDATION_TURN_S)  # a recall under way runs first
            try:
                validate_episode(ctx, episode, vectors[episode_id], near.get(episode_id), disputed.get(episode_id))
            except Exception as exc:
                log.exception("validation of episode %s failed", episode_id)
                ctx.emit("error", {"event": "validation", "episode_id": episode_id, "error": exc})


def read_statements(ctx: StageContext, batch: Sequence[Episodic], near: Mapping[str, Sequence[VectorHit]]) -> None:
    """The readings of the pairs the offline rules will judge: each statement of the batch with a neighbour in the
    zone judged, and those neighbours; the ones stored already, and the rest parsed in one batch and stored
    (:mod:`.readings`). A statement alone in its zone is read when a later one comes near it."""
    floor = ctx.config.validation.update_similarity
    held = {e.id: e for e in batch}
    judged = {e: [h for h in near.get(e, ()) if h.similarity >= floor and h.memory_id != e] for e in held}
    kinds = {h.memory_id: h.memory_type for hits in judged.values() for h in hits}
    wanted = {e for e, hits in judged.items() if hits} | set(kinds)
    others = ctx.storage.get_memories([i for i in wanted if i not in held], kinds)
    statements_read(ctx.storage, [*(held[i] for i in wanted if i in held), *others.values()])


def read_claims(ctx: StageContext, episodes: Sequence[Episodic]) -> dict[str, Episodic]:
    """With an LLM, what each single statement among ``episodes`` states, typed, read ``CLAIMS_PER_CALL`` to a call
    and stored with it (an episode that has a claim keeps it). Returns the episodes that gained one. If a call fails,
    none of its statements does and an ``error`` event says so: their pairs are judged as before."""
    if ctx.llm is None:
        return {}
    unread = [e for e in episodes if e.claim is None and is_statement(e.content)]
    read: dict[str, Episodic] = {}
    for first in range(0, len(unread), CLAIMS_PER_CALL):
        read.update(_read_claims_of(ctx, unread[first : first + CLAIMS_PER_CALL]))
    return read


def _read_claims_of(ctx: StageContext, unread: Sequence[Episodic]) -> dict[str, Episodic]:
    listed = "\n".join(f"{n}. {' '.join(e.content.split())}" for n, e in enumerate(unread, 1))
    try:
        reply = ask(ctx.llm, CLAIM_EXTRACTION, statements=listed)
    except LLMError as exc:
        log.warning("LLM claim extraction failed (%s); the pairs are judged without typed claims", exc)
        ctx.emit("error", {"event": "validation", "error": exc})
        return {}
    read: dict[str, Episodic] = {}
    for typed in reply.claims:
        if not 1 <= typed.statement <= len(unread):
            continue
        episode = unread[typed.statement - 1]
        read[episode.id] = replace(episode, claim=claim_from_reply(typed))
    ctx.storage.update_memories({i: {"claim": e.claim} for i, e in read.items()})
    return read


def validate_episode(
    ctx: StageContext,
    episode: Episodic,
    vector: np.ndarray,
    hits: Sequence[VectorHit] | None = None,
    disputed: Sequence[VectorHit] | None = None,
) -> str:
    """Judge the episode against each of its neighbours and write what follows; then count support for disputed
    claims. ``hits`` and ``disputed``: its neighbours and its nearest disputed principle, when a batch searched them
    already. Returns what happened to the closest judged neighbour: reinforced, self-citation, restated, updated,
    contradiction, unrelated or nothing."""
    outcomes = []
    reinforced = False
    close = neighbours(ctx, episode, vector, hits)
    pairs = [Pair(c.content, sim, _newer(episode, c), c.memory_type == "episodic") for c, sim in close]
    # two typed claims of one single-valued attribute: the fields decide, and the judges are not asked about them
    typed = [typed_update(ctx, claim, episode, pair.newer) for (claim, _), pair in zip(close, pairs)]
    asked = [pair for pair, known in zip(pairs, typed) if known is None]
    judged = iter(judge_pairs_safely(ctx, episode.content, asked))  # one LLM call for all of them
    verdicts = [Verdicts(None, known) if known is not None else next(judged) for known in typed]
    reliability = ctx.config.confidence.source_reliability
    decisions = [
        decide(
            rules,
            llm,
            similarity=pair.similarity,
            newer=pair.newer,
            existing_source=claim.source,
            incoming_source=episode.source,
            existing_is_episode=claim.memory_type == "episodic",
            reliability=reliability,
            cfg=ctx.config.validation,
        )
        for (claim, _), pair, (rules, llm) in zip(close, pairs, verdicts)
    ]
    supports = [(c, s) for (c, s), d in zip(close, decisions) if d.action in ("restate", "reinforce")]
    lineage = lineages(ctx.storage, [episode, *(c for c, _ in supports)]) if supports else {}
    restated = restate(ctx, episode, [(c, s) for (c, s), d in zip(close, decisions) if d.action == "restate"], lineage)
    backed: list[Memory] = []  # the claims it restated or reinforced
    for (claim, similarity), pair, decision in zip(close, pairs, decisions):
        if decision.action == "nothing":
            continue
        if decision.action == "restate":
            outcome = restated.get(claim.id, "nothing")
        elif decision.action == "reinforce" and reinforced:
            continue  # one principle reinforced per episode: the closest one it restates
        else:
            outcome = apply_decision(ctx, claim, episode, similarity, decision, pair.newer, lineage)
        reinforced = reinforced or outcome == "reinforced"
        if outcome in ("reinforced", "restated"):
            backed.append(claim)
        outcomes.append(outcome)
    settle_for_newer(ctx, backed)
    support_disputed_claim(ctx, episode, vector, disputed)
    return outcomes[0] if outcomes else "nothing"


def typed_update(ctx: StageContext, claim: Memory, episode: Episodic, newer: bool | None) -> Judgement | None:
    """The update two typed claims make (the older's value replaced in a single-valued attribute), as the verdict
    that carries the explicit signal, or ``None``."""
    if newer is None or not isinstance(claim, Episodic):
        return None
    older, newest = (claim, episode) if newer else (episode, claim)
    update = claim_update(older.claim, newest.claim)
    if update is None:
        return None
    reason = f"{update.subject} {update.attribute}: {update.old_value!r} -> {update.new_value!r} (typed claims)"
    model = model_name_of(ctx.llm) if ctx.llm is not None else None
    prompt_hash = CLAIM_EXTRACTION.hash if newest.claim and newest.claim.method == "llm" else None
    return Judgement("updates", "llm" if prompt_hash else "caller", reason, None, None, model, prompt_hash,
                     "llm_structured" if prompt_hash else "claim_key", update)  # fmt: skip


def _newer(episode: Memory, claim: Memory) -> bool | None:
    """Whether the episode holds from a later time than the claim (None: the same time)."""
    if episode.valid_from == claim.valid_from:
        return None
    return episode.valid_from > claim.valid_from


def apply_decision(
    ctx: StageContext,
    claim: Memory,
    episode: Episodic,
    similarity: float,
    decision: Decision,
    newer: bool | None = None,
    lineage: dict[str, frozenset[str]] | None = None,
) -> str:
    """Write what a decision means: a reinforcement, a supersession (the earlier of the two by the later), or a
    dispute or context pair with its resolution. Returns reinforced, self-citation, updated, contradiction,
    unrelated or nothing."""
    verdict = decision.verdict
    if decision.action == "reinforce":
        return reinforce(ctx, claim, episode, similarity, lineage)
    if decision.action == "supersede" and verdict is not None and newer is not None:
        earlier, later = (claim, episode) if newer else (episode, claim)
        return supersede(ctx, earlier, later, verdict)
    if decision.action in ("dispute", "hold_in_context") and verdict is not None:
        record_contradiction(ctx, claim, episode, verdict)
        return "contradiction"
    return "unrelated"


def reinforce(
    ctx: StageContext,
    claim: Memory,
    episode: Episodic,
    similarity: float,
    lineage: dict[str, frozenset[str]] | None = None,
) -> str:
    """Add the episode as evidence of the principle ``claim`` unless they share a provenance chain (then it counts
    once) or the episode is the agent's own conclusion (no report: :mod:`audrey_core.rules.lineage`). ``lineage``:
    both memories' lineages, when the caller has them."""
    if not first_hand(episode):
        return "self-citation"
    if lineage is None or claim.id not in lineage or episode.id not in lineage:
        lineage = lineages(ctx.storage, [claim, episode])
    if lineage[claim.id] & lineage[episode.id]:
        return "self-citation"
    with ctx.storage.transaction():  # read-modify-write under a lock: another process may reinforce it too
        current, added = add_evidence(ctx, claim.id, [episode.id])
    if current is None:
        return "nothing"  # forgotten meanwhile
    if added:  # not counted already (validated twice): something new to announce
        event = {"kind": "evidence", "memory_id": claim.id, "episode_id": episode.id, "similarity": similarity}
        ctx.emit("reinforcement", event)
    return "reinforced"


def restate(
    ctx: StageContext, episode: Episodic, claims: Sequence[tuple[Memory, float]], lineage: dict[str, frozenset[str]]
) -> dict[str, str]:
    """Record the episode as restating each earlier episode in ``claims`` and each of them as restating it (two
    episodes saying one thing back each other; :mod:`audrey_core.stages.evidence` counts them), in one transaction.
    A memory gains a report only from a first-hand restater of a provenance chain it does not hold yet
    (:mod:`audrey_core.rules.lineage`): an echo counts once, and the assistant's "Noted: you are vegetarian" backs
    nothing. Returns each claim's outcome: restated, self-citation or nothing (forgotten meanwhile)."""
    outcomes = {c.id: "self-citation" for c, _ in claims if lineage[c.id] & lineage[episode.id]}
    fresh = {c.id: c for c, _ in claims if c.id not in outcomes}
    if not fresh:
        return outcomes
    similarity = {c.id: s for c, s in claims}
    held = _chains_held(ctx, [episode.id, *fresh], lineage)
    pairs = [(c, episode.id) for c in fresh if first_hand(episode) and not lineage[episode.id] & held[c]]
    chains = set(held[episode.id])
    for claim_id, claim in fresh.items():  # closest first: of two restaters of one chain, the closer counts
        if first_hand(claim) and not lineage[claim_id] & chains:
            pairs.append((episode.id, claim_id))
            chains |= lineage[claim_id]
    added = ctx.storage.add_restatements(pairs, ctx.clock()) if pairs else []  # counted in the store
    tried = {m for pair in pairs for m in pair} - {episode.id}
    for claim_id in fresh:
        if claim_id not in tried:
            outcomes[claim_id] = "self-citation"
        else:
            outcomes[claim_id] = "restated" if ctx.storage.get_memory(claim_id) is not None else "nothing"
    for claim_id, episode_id in added:
        if episode_id == episode.id:
            event = {
                "kind": "restatement",
                "memory_id": claim_id,
                "episode_id": episode_id,
                "similarity": similarity[claim_id],
            }
            ctx.emit("reinforcement", event)
    return outcomes


def _chains_held(
    ctx: StageContext, ids: Sequence[str], lineage: dict[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    """For each memory, the provenance chains behind it already: its own lineage and its restaters'."""
    supporters = {memory_id: ctx.storage.claim_support(memory_id) for memory_id in ids}
    wanted = {s for found in supporters.values() for s in found}
    theirs = lineages(ctx.storage, ctx.storage.get_memories(wanted).values()) if wanted else {}
    return {
        memory_id: lineage[memory_id].union(*(theirs.get(s, frozenset({s})) for s in supporters[memory_id]))
        for memory_id in ids
    }


def support_disputed_claim(
    ctx: StageContext, episode: Episodic, vector: np.ndarray, hits: Sequence[VectorHit] | None = None
) -> bool:
    """Record the episode as support for a disputed / superseded claim it repeats; reopen the claim's dispute when
    ``reopen_min_sources`` independent episodes (distinct source types, no shared ancestor) back it. ``hits``: the
    search for that claim, made for the batch (the claim is read now, and must still be disputed or replaced)."""
    cfg = ctx.config.validation
    found = nearest(ctx, vector, movable("reopen"), episode.scope, hits)
    if found is None:
        return False
    claim, similarity = found
    if similarity < cfg.reinforce_similarity or not repeats(claim.content, episode.content, similarity, cfg):
        return False
    ctx.storage.add_claim_support(claim.id, episode.id, ctx.clock())
    supporters = [m for m in ctx.storage.get_memories(ctx.storage.claim_support(claim.id)).values()]
    supporters.sort(key=lambda m: m.id)
    lineage = lineages(ctx.storage, [claim, *supporters])
    eligible = [s for s in supporters if first_hand(s) and not lineage[s.id] & lineage[claim.id]]
    backing = independent(eligible, lineage, distinct_sources=True)
    if len(backing) < cfg.reopen_min_sources:
        return False
    reopen(ctx, claim, episode, [m.id for m in backing])
    return True
