"""What the time in a question does to recall (:mod:`audrey_core.rules.when` reads it):

* a calendar date, month or year ("on 9 November, 2022", "in May 2023") is favoured strongly: memories whose event
  time (else when they were stored) falls inside gain ``RecallConfig.date_boost`` of their relevance, and the
  searches also run inside it; nothing outside is dropped, so the answer stored days later that names the date, or a
  misread date, still comes back;
* a vague span ("last week", "in June", "two days ago") and the side of an event ("before she moved": the event is
  the best keyword match for its words) are favoured: memories inside gain ``RecallConfig.time_boost`` of their
  relevance, and when the span is narrow the searches also run inside it, so they are among the candidates;
* a span nothing was said in (counted from the time indexes) changes nothing;
* "the first time" / "most recently" favour the earliest / latest candidates (by up to ``order_boost``), when the
  candidates span at least a day (memories stored together have no order worth reading).

``recall(order="time")`` returns the chosen memories oldest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ..config import RecallConfig
from ..rules.keywords import query_terms
from ..rules.ranking import Ranked, ranking_key
from ..rules.recall_options import RecallOptions
from ..rules.when import read_time
from ..storage import Storage

Span = tuple[datetime | None, datetime | None]
ORDER_FROM = timedelta(days=1)  # candidates spanning less than this are not ordered by time


@dataclass(frozen=True)
class TimePlan:
    """How recall applies a question's time."""

    favour: Span | None = None  # memories inside gain relevance
    order: str | None = None  # "earliest" or "latest"
    search_favoured: bool = True  # the searches also run inside the favoured span (a narrow one)
    date: bool = False  # the favoured span is a calendar date, month or year the question names

    def __bool__(self) -> bool:
        return self.favour is not None or self.order is not None

    def boost(self, cfg: RecallConfig) -> float:
        """The share of relevance a memory inside the favoured span gains."""
        return cfg.date_boost if self.date else cfg.time_boost

    def most(self, cfg: RecallConfig) -> float:
        """The largest factor the plan's favours lift a relevance by."""
        return (1.0 + self.boost(cfg) if self.favour is not None else 1.0) * (
            1.0 + cfg.order_boost if self.order is not None else 1.0
        )


NO_TIME = TimePlan()


def plan_time(storage: Storage, query: str, options: RecallOptions, now: datetime, cfg: RecallConfig) -> TimePlan:
    """How ``query``'s time applies to a recall with ``options`` at ``now``."""
    found = read_time(query, now)
    if not found:
        return TimePlan()
    if cfg.order_boost == 0:
        found = replace(found, order=None)
    span: Span | None = None
    if found.window is not None:
        span = (found.window.start, found.window.end)
    elif found.anchor is not None:
        side, words = found.anchor
        when = _event_time(storage, words, options)
        span = None if when is None else (None, when) if side == "before" else (when, None)
    bound = storage.index_config.span_exact_upto
    size = storage.span_size(within(options, span).where, bound) if span is not None else 0
    if span is None or size == 0:  # nothing said then: nothing to narrow to or favour
        return TimePlan(order=found.order)
    # a narrow span's own best join the candidates (searched among themselves, exactly); a wide one is favoured
    # among what the searches find anyway
    explicit = found.window is not None and found.window.explicit
    return TimePlan(favour=span, order=found.order, search_favoured=size <= bound, date=explicit)


def _event_time(storage: Storage, words: str, options: RecallOptions) -> datetime | None:
    """When the event ``words`` describe happened: the best keyword match's event time (else when it was stored)."""
    terms = query_terms(words)
    hits = storage.keyword_search(terms, 1, options.where) if terms else []
    if not hits:
        return None
    memory = storage.get_memories([hits[0].memory_id], {hits[0].memory_id: hits[0].memory_type}).get(hits[0].memory_id)
    return memory.valid_from if memory is not None else None


def within(options: RecallOptions, span: Span) -> RecallOptions:
    """``options`` with ``span`` also required of every memory (intersected with a ``time_range`` given)."""
    start, end = span
    if options.where.time_range is not None:
        given_start, given_end = options.where.time_range
        start = max((t for t in (start, given_start) if t is not None), default=None)
        end = min((t for t in (end, given_end) if t is not None), default=None)
    return replace(options, where=replace(options.where, time_range=(start, end)))


def _inside(moment: datetime, span: Span) -> bool:
    start, end = span
    return (start is None or moment >= start) and (end is None or moment < end)


def reorder(ranked: Sequence[Ranked], plan: TimePlan, cfg: RecallConfig) -> list[Ranked]:
    """``ranked`` with the plan's favours applied to each relevance, best first."""
    if plan.favour is None and plan.order is None:
        return list(ranked)
    factors = {item.memory.id: 1.0 for item in ranked}
    if plan.favour is not None:
        for item in ranked:
            if _inside(item.memory.valid_from, plan.favour):
                factors[item.memory.id] *= 1.0 + plan.boost(cfg)
    times = sorted({item.memory.valid_from for item in ranked})
    if plan.order is not None and len(times) > 1 and times[-1] - times[0] >= ORDER_FROM:
        place = {moment: i / (len(times) - 1) for i, moment in enumerate(times)}  # 0 earliest .. 1 latest
        for item in ranked:
            position = place[item.memory.valid_from]
            factors[item.memory.id] *= 1.0 + cfg.order_boost * (position if plan.order == "latest" else 1 - position)
    boosted = [_boosted(item, factors[item.memory.id]) for item in ranked]
    return sorted(boosted, key=ranking_key)


def _boosted(item: Ranked, factor: float) -> Ranked:
    if factor == 1.0:
        return item
    return replace(item, relevance=item.relevance * factor)


def in_time_order(ranked: Sequence[Ranked]) -> list[Ranked]:
    """``ranked`` oldest first (by event time, else when stored), ties in rank order."""
    return sorted(ranked, key=lambda item: item.memory.valid_from)
