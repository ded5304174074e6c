"""GATHER: what validation and consolidation read about claims before deciding: the nearest claim of a scope, and
the lineage (ancestors and conversations) behind each memory."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

import numpy as np

from ..models import Memory
from ..rules.lineage import conversation, parents
from ..stages.context import StageContext
from ..storage import Storage, VectorFilter, VectorHit

log = logging.getLogger(__name__)


def principles_in(ctx: StageContext, states: Sequence[str], scope: tuple[str, ...]) -> VectorFilter:
    """This agent's semantic memories in ``states`` within ``scope`` (knowledge never crosses scopes: one user's
    observations must not reinforce or dispute another's)."""
    return VectorFilter(agent=ctx.agent, memory_types=("semantic",), states=tuple(states), scope=tuple(scope))


def nearest(
    ctx: StageContext,
    vector: np.ndarray,
    states: Sequence[str],
    scope: tuple[str, ...],
    hits: Sequence[VectorHit] | None = None,
) -> tuple[Memory, float] | None:
    """The closest semantic memory of this agent in ``states`` within ``scope`` (:func:`principles_in`), and its
    similarity. ``hits``: that search made already for a batch; the memory is read now and must still be in one of
    ``states``."""
    if hits is None:
        hits = ctx.storage.knn(vector, 1, principles_in(ctx, states, scope))
    if not hits:
        return None
    memory = ctx.storage.get_memory(hits[0].memory_id)
    return (memory, hits[0].similarity) if memory is not None and memory.state in states else None


def lineages(storage: Storage, memories: Iterable[Memory], max_depth: int = 50) -> dict[str, frozenset[str]]:
    """The lineage of each memory (:mod:`audrey_core.rules.lineage`): itself, its ancestors, walking the store level
    by level, and the conversation each of them was said in."""
    result: dict[str, set[str]] = {}
    known: dict[str, Memory] = {}
    for memory in memories:
        known[memory.id] = memory
        result[memory.id] = {memory.id}
    frontier = {m.id: set(parents(m)) for m in known.values()}
    for _ in range(max_depth):
        wanted = {p for ps in frontier.values() for p in ps} - set(known)
        if wanted:
            known.update(storage.get_memories(wanted))
        next_frontier: dict[str, set[str]] = {}
        for root, ids in frontier.items():
            fresh = ids - result[root]
            result[root] |= fresh
            next_frontier[root] = {p for i in fresh if i in known for p in parents(known[i])} - result[root]
        frontier = {root: ids for root, ids in next_frontier.items() if ids}
        if not frontier:
            break
    said_in = {i: mark for i, m in known.items() if (mark := conversation(m)) is not None}
    return {root: frozenset(ids | {said_in[i] for i in ids if i in said_in}) for root, ids in result.items()}
