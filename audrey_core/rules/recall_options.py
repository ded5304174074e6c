"""Recall's arguments, checked into one options object: limit, confidence floor, filters (what runs inside the
search: ``VectorFilter``), mode, token budget, and the tenant rule that keeps every scope inside the instance's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, TypedDict, get_args

from ..config import MEMORY_TYPES, SOURCES, STATES, MemoryType, Source
from ..errors import InvalidInputError
from ..states import RECALLABLE_STATES, MemoryState
from .arguments import check_scope, check_tags
from .filters import Filter, parse_filter
from .inputs import check_int, check_moment
from .ownership import Tenant


@dataclass(frozen=True, slots=True)
class VectorFilter:
    """Restrictions applied inside the KNN query. ``None`` means no restriction on that field.

    ``tags`` matches memories carrying at least one of the tags. ``scope`` matches one scope exactly;
    ``scope_prefix`` a scope and everything below it, by whole segments. ``metadata`` is a parsed filter.
    """

    agent: str | None = None
    memory_types: tuple[str, ...] | None = None
    states: tuple[str, ...] | None = None
    sources: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    consolidated: bool | None = None
    scope: tuple[str, ...] | None = None
    scope_prefix: tuple[str, ...] | None = None
    metadata: Filter | None = None
    scoped: bool = False  # only memories below the root scope
    time_range: tuple[datetime | None, datetime | None] | None = None  # on event_time, else created_at
    as_of: datetime | None = None  # only memories stored by then and valid then (valid_from <= as_of < valid_until)
    alive_at: datetime | None = None  # only memories not expired then (every read of the instance sets it: now)
    expired_by: datetime | None = None  # only memories expired by then (what a sweep deletes)

    @property
    def is_narrowed(self) -> bool:
        """True when anything beyond the agent and default states restricts the search."""
        narrowing = (
            self.memory_types, self.sources, self.tags, self.consolidated, self.scope_prefix, self.metadata,
            self.time_range, self.as_of,
        )  # fmt: skip
        return self.scoped or any(x is not None for x in narrowing)


class ListingFilters(TypedDict, total=False):
    """The filters ``list_memories``, ``iter_memories`` and ``forget_all`` take as keywords, as :meth:`recall` does
    (see its arguments): each narrows which memories count, inside the instance's tenant."""

    tags: Sequence[str] | None
    sources: Sequence[Source] | None
    states: Sequence[MemoryState] | None
    filter: Mapping[str, Any] | None
    scope: Sequence[str] | None
    scope_prefix: Sequence[str] | None
    scoped: bool
    time_range: tuple[datetime | None, datetime | None] | None
    as_of: datetime | None
    include_superseded: bool


RecallMode = Literal["hybrid", "vector", "keyword"]
RecallOrder = Literal["relevance", "time"]
Spread = bool | Literal["auto"]
MODES: tuple[RecallMode, ...] = get_args(RecallMode)
ORDERS: tuple[RecallOrder, ...] = get_args(RecallOrder)


class RecallArguments(ListingFilters, total=False):
    """Every keyword argument recall takes besides the query and ``limit``, declared once: :meth:`Audrey.recall`
    documents each; ``recall_by_vector`` and the adapters pass them through as they are."""

    min_confidence: float
    min_similarity: float | None
    types: Sequence[MemoryType] | None
    include_dormant: bool
    include_provenance: bool
    mode: RecallMode
    token_budget: int | None
    order: RecallOrder
    parse_time: bool
    spread: Spread
    reinforce: bool


@dataclass(frozen=True)
class RecallOptions:
    """Checked recall arguments."""

    limit: int
    min_confidence: float
    where: VectorFilter
    include_provenance: bool
    mode: RecallMode = "hybrid"
    token_budget: int | None = None  # stop before the returned contents would exceed this many tokens
    order: RecallOrder = "relevance"  # or "time": the chosen memories oldest first
    parse_time: bool = True  # read the query's time ("in May 2023", "last week", "the first time")
    spread: Spread = False  # spread the results over conversations: True, or "auto" for list questions
    reinforce: bool = True  # False: look without touching (nothing returned is reinforced), as a dashboard does
    min_similarity: float | None = None  # the relevance floor: a cosine to the query, under the reference model


def check_options(
    *,
    agent: str | None,
    limit: Any = 10,
    min_confidence: Any = 0.0,
    min_similarity: Any = None,
    types: Any = None,
    tags: Any = None,
    sources: Any = None,
    include_dormant: Any = False,
    include_provenance: Any = False,
    states: Any = None,
    filter: Any = None,
    scope: Any = None,
    scope_prefix: Any = None,
    scoped: Any = False,
    mode: Any = "hybrid",
    time_range: Any = None,
    as_of: Any = None,
    include_superseded: Any = False,
    order: Any = "relevance",
    parse_time: Any = True,
    spread: Any = False,
    reinforce: Any = True,
) -> RecallOptions:
    """Validate recall's arguments; raise :class:`InvalidInputError` saying what is wrong. ``as_of`` (an aware
    datetime) answers what was believed true then: memories stored by then whose validity covers it, superseded
    ones included; ``include_superseded`` adds replaced memories to the default states."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError(f"limit must be a positive int, got {limit!r}")
    check_int("limit", limit)
    if (
        isinstance(min_confidence, bool)
        or not isinstance(min_confidence, (int, float))
        or not (0.0 <= min_confidence <= 1.0)
    ):
        raise InvalidInputError(f"min_confidence must be a number in [0, 1], got {min_confidence!r}")
    if min_similarity is not None and (
        isinstance(min_similarity, bool)
        or not isinstance(min_similarity, (int, float))
        or not (-1.0 <= min_similarity <= 1.0)
    ):
        raise InvalidInputError(f"min_similarity must be None or a cosine in [-1, 1], got {min_similarity!r}")
    chosen_states = _choice("states", states, STATES) or RECALLABLE_STATES
    if include_dormant and "dormant" not in chosen_states:
        chosen_states = (*chosen_states, "dormant")
    check_moment("as_of", as_of)
    if (include_superseded or as_of is not None) and states is None and "superseded" not in chosen_states:
        chosen_states = (*chosen_states, "superseded")
    where = VectorFilter(
        agent=agent,
        memory_types=_choice("types", types, MEMORY_TYPES),
        states=chosen_states,
        sources=_choice("sources", sources, SOURCES),
        tags=check_tags(tags) or None if tags is not None else None,
        metadata=parse_filter(filter),
        scope=check_scope(scope) if scope is not None else None,
        scope_prefix=check_scope(scope_prefix) or None if scope_prefix is not None else None,
        scoped=bool(scoped),
        time_range=_check_time_range(time_range),
        as_of=as_of,
    )
    if mode not in MODES:
        raise InvalidInputError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if order not in ORDERS:
        raise InvalidInputError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    if not isinstance(parse_time, bool):
        raise InvalidInputError(f"parse_time must be True or False, got {parse_time!r}")
    if spread not in (True, False, "auto") or (isinstance(spread, (int, float)) and not isinstance(spread, bool)):
        raise InvalidInputError(f"spread must be True, False or 'auto', got {spread!r}")
    if not isinstance(reinforce, bool):
        raise InvalidInputError(f"reinforce must be True or False, got {reinforce!r}")
    options = RecallOptions(int(limit), float(min_confidence), where, bool(include_provenance), mode)
    floor = None if min_similarity is None else float(min_similarity)
    return replace(
        options, order=order, parse_time=parse_time, spread=spread, reinforce=reinforce, min_similarity=floor
    )


def _check_time_range(value: Any) -> tuple[datetime | None, datetime | None] | None:
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or len(value) != 2 or value == (None, None):
        raise InvalidInputError("time_range must be (start, end) with aware datetimes; either may be None")
    for moment in value:
        if moment is not None and (not isinstance(moment, datetime) or moment.tzinfo is None):
            raise InvalidInputError(f"time_range bounds must be timezone-aware datetimes, got {moment!r}")
    start, end = value
    if start is not None and end is not None and start > end:
        raise InvalidInputError("time_range starts after it ends")
    return (start, end)


def _choice(name: str, values: Any, allowed: Sequence[str]) -> tuple[str, ...] | None:
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"{name} must be a list, e.g. {name}=[{allowed[0]!r}]; got {values!r}")
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise InvalidInputError(f"unknown {name} {unknown}; use any of: {', '.join(allowed)}")
    if not values:
        raise InvalidInputError(f"{name} is empty; pass None to allow every value")
    return tuple(dict.fromkeys(values))


RECALL_ARGUMENTS = frozenset(RecallArguments.__optional_keys__)
# listing takes no query: no mode, budget, floor or ordering
LISTING_ARGUMENTS = frozenset(ListingFilters.__optional_keys__) | {"types", "include_dormant"}


SCOPE_FILTERS = ("scope", "scope_prefix", "scoped")


def check_budget(budget: Any) -> int | None:
    """``token_budget``: None or a positive int."""
    if budget is None:
        return None
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InvalidInputError(f"token_budget must be a positive int, got {budget!r}")
    return budget


def within_tenant(tenant: Tenant, filters: dict[str, Any]) -> dict[str, Any]:
    """Recall and listing filters, always inside the tenant's scope. A scope the caller names must lie in it;
    ``None`` (or ``scoped=False``) means the argument was not given, never "every scope"."""
    named = {k: v for k, v in filters.items() if k not in SCOPE_FILTERS or v not in (None, False)}
    for name in ("scope", "scope_prefix"):
        if name in named:
            tenant.require_scope(check_scope(named[name]), name)
    if tenant.scope and "scope" not in named:
        prefix = check_scope(named.get("scope_prefix"))
        named["scope_prefix"] = prefix if len(prefix) > len(tenant.scope) else tenant.scope
    return named
