"""RECALL: the stage owns a recall from its arguments to what using the results changes (seed 002 §4, seed 000 §3).

Arguments are checked into one :class:`RecallOptions` (the tenant rule keeps every scope inside the instance's). The
mode decides whether a query vector is needed. The store returns a candidate pool (``candidate_multiplier`` x limit,
wider with filters) with every filter applied inside the searches; confidence is computed on that small pool. When
the confidence floor drops too many candidates and the store may hold more, the pool is widened and the searches
repeated. Results stream out within a token budget, with provenance and counterclaims; the principles the consumer
took are reinforced.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from ..claims.judges import answers_alike
from ..config import ConfidenceConfig, RecallConfig
from ..errors import InvalidInputError, StorageError
from ..models import Counterclaim, Memory, RecallResult
from ..providers.embedding import count_tokens, to_matrix
from ..rules.calibration import calibrated, read_baseline
from ..rules.inputs import check_int, check_text
from ..rules.keywords import query_terms
from ..rules.lists import asks_for_many
from ..rules.ranking import Ranked, disputes_together, newest_answers_first, pool_size
from ..rules.recall_options import (
    LISTING_ARGUMENTS,
    RECALL_ARGUMENTS,
    RecallOptions,
    check_budget,
    check_options,
    within_tenant,
)
from ..storage import Storage
from .context import StageContext
from .recall_candidates import score, shaped, with_chunks
from .recall_results import disputes, provenance, record_retrieval, to_result
from .recall_time import NO_TIME, TimePlan, in_time_order, plan_time, within


def options(
    ctx: StageContext,
    limit: Any,
    arguments: Mapping[str, object],
    allowed: frozenset[str] = RECALL_ARGUMENTS,
    what: str = "recall options",
) -> RecallOptions:
    """Recall's arguments checked into options, every scope inside the instance's (``token_budget`` where allowed)."""
    unknown = set(arguments) - allowed
    if unknown:
        raise InvalidInputError(f"unknown {what} {sorted(unknown)}; use any of {sorted(allowed)}")
    arguments = dict(arguments)
    budget = check_budget(arguments.pop("token_budget", None))
    checked = check_options(agent=ctx.agent, limit=limit, **within_tenant(ctx.tenant, arguments))
    if checked.min_similarity is not None:  # the floor at its place under the store's model
        baseline = read_baseline(ctx.storage, ctx.embedder, ctx.clock())
        checked = replace(checked, min_similarity=calibrated(checked.min_similarity, baseline))
    return replace(checked, token_budget=budget, where=replace(checked.where, alive_at=ctx.clock()))


def recall(ctx: StageContext, query: Any, options: RecallOptions, query_vector: Any = None) -> Iterator[RecallResult]:
    """Memories relevant to ``query``, best first, one at a time (see :meth:`audrey_core.Audrey.recall`)."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must be a non-empty string")
    check_text("query", query)
    if options.mode == "keyword" or (options.mode == "hybrid" and ctx.storage.vector_search_error() is not None):
        vector = None  # no query vector needed
    elif query_vector is not None:  # the caller embedded the query already
        vector = to_matrix([query_vector], 1, ctx.embedder.dimensions, "query_vector")[0]
    else:
        vector = ctx.queries.vector(query)
    with ctx.readers.reading():
        return _stream(ctx, vector, options, query_terms(query), query)


def recall_by_vector(ctx: StageContext, vector: Any, options: RecallOptions) -> Iterator[RecallResult]:
    """:func:`recall` for a query vector the caller has."""
    matrix = to_matrix([vector], 1, ctx.embedder.dimensions, "query vector")
    if options.mode == "keyword":
        raise InvalidInputError("keyword recall needs a text query; use recall(query, mode='keyword')")
    with ctx.readers.reading():
        return _stream(ctx, matrix[0], options)


def list_memories(ctx: StageContext, limit: Any, offset: Any, arguments: dict[str, Any]) -> list[Memory]:
    """The instance's memories without a query, newest first, with paging; recall's filters."""
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidInputError(f"offset must be a non-negative int, got {offset!r}")
    check_int("offset", offset)
    checked = options(ctx, limit, arguments, LISTING_ARGUMENTS, "options")
    return ctx.storage.list_memories(checked.where, checked.limit, offset)


def iter_memories(ctx: StageContext, arguments: dict[str, Any], page: int = 1000) -> Iterator[Memory]:
    """Every memory of the instance matching recall's filters, oldest first (what is stored meanwhile comes last),
    read ``page`` at a time. The arguments are checked now, not at the first ``next()``."""
    checked = options(ctx, page, arguments, LISTING_ARGUMENTS, "options")

    def pages() -> Iterator[Memory]:
        offset = 0
        while True:
            batch = ctx.storage.list_memories(checked.where, page, offset, newest_first=False)
            yield from batch
            if len(batch) < page:
                return
            offset += page

    return pages()


def _stream(
    ctx: StageContext, vector: np.ndarray | None, options: RecallOptions, terms: Sequence[str] = (), query: str = ""
) -> Iterator[RecallResult]:
    now = ctx.clock()
    parts: dict[str, Any] = {
        "now": now,
        "confidence_cfg": ctx.config.confidence,
        "recall_cfg": ctx.config.recall,
        "terms": terms,
    }
    parts["many"] = options.spread is True or (options.spread == "auto" and asks_for_many(query))
    with ctx.storage.replica_reads():  # the searches and reads of a recall (a replica's, where one is set)
        timing = NO_TIME
        if options.parse_time and query:
            timing = plan_time(ctx.storage, query, options, now, ctx.config.recall)
        ranked = rank(ctx.storage, vector, options, timing=timing, **parts)
        found = disputes(ctx.storage, [item.memory for item in ranked], ctx.tenant)
    if options.order == "time":
        ranked = in_time_order(ranked)
    elif query and timing.order is None:  # the offline English layer, when it is on
        groups = answers_alike(ctx.storage, [item.memory for item in ranked], query, ctx.config.validation)
        ranked = newest_answers_first(ranked, groups) if groups else ranked
    return _results(ctx, disputes_together(ranked, found.sides), found.counterclaims, options, now)


def _results(
    ctx: StageContext,
    ranked: list[Ranked],
    against: Mapping[str, tuple[Counterclaim, ...]],
    options: RecallOptions,
    now: datetime,
) -> Iterator[RecallResult]:
    """Yield the ranked memories within the token budget; reinforce those the consumer took."""
    taken: list[Memory] = []
    spent = 0
    try:
        for item in ranked:
            if options.token_budget is not None:
                spent += count_tokens(ctx.embedder, item.memory.content)
                if spent > options.token_budget:
                    return  # stop before the budget is exceeded
            prov = provenance(ctx.storage, item.memory, ctx.tenant) if options.include_provenance else None
            taken.append(item.memory)
            yield to_result(item, prov, against.get(item.memory.id, ()))
    finally:
        derived = [m for m in taken if m.memory_type in ("semantic", "procedural")]
        if derived and options.reinforce:
            if ctx.retrievals is not None:
                ctx.retrievals(derived, now)  # written by a worker: a recall writes nothing itself
            else:
                record_retrieval(ctx, derived, now)


def rank(
    storage: Storage,
    vector: np.ndarray | None,
    options: RecallOptions,
    *,
    now: datetime,
    confidence_cfg: ConfidenceConfig,
    recall_cfg: RecallConfig,
    terms: Sequence[str] = (),
    timing: TimePlan = NO_TIME,
    many: bool = False,
) -> list[Ranked]:
    """The best ``options.limit`` memories, best first: by vector, by keyword ``terms``, or both fused; with the
    ``timing`` a question's time asks for (:mod:`.recall_time`), and spread over conversations when it asks for
    ``many`` things (:mod:`audrey_core.rules.lists`). When the floors drop too many candidates and the store may hold
    more, the pool widens and the searches run again (not past the relevance floor, ``options.min_similarity``).

    Without vector search (sqlite-vec unavailable) hybrid recall is keyword recall and vector recall an error."""
    unavailable = storage.vector_search_error()
    if unavailable is not None:
        if options.mode == "vector":
            raise StorageError(f"vector recall is unavailable: {unavailable}; use mode='hybrid' or 'keyword'")
        vector = None
    if options.mode == "keyword":
        vector = None
    elif vector is None and (options.mode == "vector" or not terms):
        raise InvalidInputError("vector recall needs a query vector")
    words = terms if options.mode != "vector" else ()
    fused = bool(words)  # with words to match, relevance fuses both lists; else it is the (context) cosine
    k = pool_size(options, recall_cfg)
    while True:
        found = storage.candidates(vector, words, k, options.where)
        if timing.favour is not None and timing.search_favoured:  # a narrow favoured span's own best join too
            found = found.joined(storage.candidates(vector, words, k, within(options, timing.favour).where))
        ranked = score(
            storage,
            vector,
            found,
            options.min_confidence,
            now,
            confidence_cfg,
            recall_cfg,
            # a spread or an order (relative to every candidate's time) may bring up any candidate: score them all
            None if many or timing.order else options.limit,
            terms,
            timing.most(recall_cfg),
            fused,
            options.where,
            options.min_similarity if vector is not None else None,
        )
        ranked = shaped(ranked, timing, many, options.limit, recall_cfg)
        exhausted = (len(found.vector) < k and len(found.keyword) < k) or k >= recall_cfg.max_candidates
        if options.min_similarity is not None and vector is not None and found.vector:
            # the vector hits come nearest first: past one under the relevance floor, a wider pool holds no more
            exhausted = exhausted or found.vector[-1].similarity < options.min_similarity
        if len(ranked) >= options.limit or exhausted:
            return with_chunks(storage, ranked[: options.limit])
        k = min(recall_cfg.max_candidates, k * recall_cfg.widen_factor)
