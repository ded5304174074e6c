"""What the page's forms and URLs may say, checked: each bad value becomes an :class:`InvalidInputError` whose
message the page shows (a 400, never a traceback). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, time, timezone
from typing import Any

from ..config import MEMORY_TYPES, SOURCES, STATES
from ..errors import InvalidInputError
from ..rules.arguments import parse_scope_path

MODES = ("hybrid", "vector", "keyword")
SHOW = ("recall", "dormant", "all")  # no state ticked: what recall answers, that and dormant memories, or every state
MAX_LIMIT = 100
PAGE = 25


@dataclass(frozen=True)
class Search:
    """A search (or, without a query, a listing) as the form asked for it."""

    query: str = ""
    mode: str = "hybrid"
    limit: int = 10
    offset: int = 0
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    states: tuple[str, ...] = ()
    scope: tuple[str, ...] = ()
    start: datetime | None = None
    end: datetime | None = None
    min_confidence: float = 0.0
    show: str = "dormant"
    echo: dict[str, Any] = field(default_factory=dict)  # the form's values, to show them again

    def recall_options(self) -> dict[str, Any]:
        """Keyword arguments of ``Audrey.recall`` / ``list_memories`` for this search."""
        options: dict[str, Any] = {}
        if self.types:
            options["types"] = list(self.types)
        if self.tags:
            options["tags"] = list(self.tags)
        if self.sources:
            options["sources"] = list(self.sources)
        if self.states:
            options["states"] = list(self.states)
        elif self.show == "all":
            options["states"] = list(STATES)
        elif self.show == "dormant":
            options["include_dormant"] = True
        if self.scope:
            options["scope_prefix"] = self.scope
        if self.start is not None or self.end is not None:
            options["time_range"] = (self.start, self.end)
        return options


def search_from(params: Mapping[str, Any]) -> Search:
    """The search a query string asks for (``params``: a multi-dict with ``getlist``, or a plain mapping)."""
    query = _one(params, "q").strip()
    mode = _choice(_one(params, "mode") or "hybrid", MODES, "mode")
    limit = _integer(_one(params, "limit") or "10", "limit", 1, MAX_LIMIT)
    offset = _integer(_one(params, "offset") or "0", "offset", 0, 10**9)
    start, end = _day(_one(params, "from"), "from", time.min), _day(_one(params, "to"), "to", time.max)
    if start is not None and end is not None and start > end:
        raise InvalidInputError("'from' is after 'to': give the earlier day first")
    confidence = _number(_one(params, "min_confidence") or "0", "min_confidence", 0.0, 1.0)
    tags = tuple(t.strip() for t in _one(params, "tags").split(",") if t.strip())
    return Search(
        query=query,
        mode=mode,
        limit=limit,
        offset=offset,
        types=tuple(_choice(t, MEMORY_TYPES, "type") for t in _many(params, "type")),
        tags=tags,
        sources=tuple(_choice(s, SOURCES, "source") for s in _many(params, "source")),
        states=tuple(_choice(s, STATES, "state") for s in _many(params, "state")),
        scope=parse_scope_path(_one(params, "scope")),
        start=start,
        end=end,
        min_confidence=confidence,
        show=_choice(_one(params, "show") or "dormant", SHOW, "show"),
        echo={key: _many(params, key) for key in ("type", "source", "state")}
        | {key: _one(params, key) for key in ("q", "mode", "limit", "tags", "scope", "from", "to", "min_confidence")},
    )


def offset_from(params: Mapping[str, Any]) -> int:
    return _integer(_one(params, "offset") or "0", "offset", 0, 10**9)


def _one(params: Mapping[str, Any], key: str) -> str:
    value = params.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidInputError(f"{key} must be text")
    if len(value) > 2000:
        raise InvalidInputError(f"{key} is too long (at most 2,000 characters)")
    return value


def _many(params: Mapping[str, Any], key: str) -> list[str]:
    values: Sequence[Any] = params.getlist(key) if hasattr(params, "getlist") else params.get(key, [])
    if isinstance(values, str):
        values = [values]
    return [v for v in values if isinstance(v, str) and v]


def _choice(value: str, allowed: Sequence[str], name: str) -> str:
    if value not in allowed:
        raise InvalidInputError(f"unknown {name} {value!r}: choose one of {', '.join(allowed)}")
    return value


def _integer(text: str, name: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InvalidInputError(f"{name} must be a whole number, got {text!r}") from None
    if not low <= value <= high:
        raise InvalidInputError(f"{name} must lie between {low} and {high:,}, got {value}")
    return value


def _number(text: str, name: str, low: float, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidInputError(f"{name} must be a number, got {text!r}") from None
    if not low <= value <= high:
        raise InvalidInputError(f"{name} must lie between {low} and {high}, got {text}")
    return value


def _day(text: str, name: str, at: time) -> datetime | None:
    if not text:
        return None
    try:
        day = datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        raise InvalidInputError(f"{name} must be a day written YYYY-MM-DD, got {text!r}") from None
    return datetime.combine(day.date(), at, tzinfo=timezone.utc)
