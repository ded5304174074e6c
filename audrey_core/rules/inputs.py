"""One input policy for every backend: what text and numbers Audrey stores or searches with.

Text (contents, tags, scope labels, ids, keys, queries, metadata keys and string values) must be valid Unicode
without NUL: SQLite cuts a JSON path at a NUL and PostgreSQL's text and jsonb refuse it, and a lone surrogate cannot
be encoded as UTF-8 by either driver. Integers must fit in 64 bits (SQLite's INTEGER and PostgreSQL's bigint).
Checking here, before anything is written, makes both backends accept exactly the same inputs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..errors import InvalidInputError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be stored as text, or None."""
    if "\x00" in value:
        return "contains a NUL character (\\x00)"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (invalid Unicode)"
    return None


def check_text(name: str, value: str) -> str:
    """``value`` unchanged, or :class:`InvalidInputError` naming ``name``."""
    problem = text_problem(value)
    if problem is not None:
        raise InvalidInputError(f"{name} {problem}; remove it before storing or searching")
    return value


def check_moment(name: str, value: Any) -> datetime | None:
    """``value`` unchanged if it is None or a timezone-aware datetime (a naive one has no place on the timeline)."""
    if value is not None and (not isinstance(value, datetime) or value.tzinfo is None):
        raise InvalidInputError(f"{name} must be a timezone-aware datetime, got {value!r}")
    return value


def check_int(name: str, value: int) -> int:
    """``value`` unchanged if it fits in a signed 64-bit integer."""
    if not INT64_MIN <= value <= INT64_MAX:
        raise InvalidInputError(f"{name} is {value}, outside the 64-bit integer range the store can hold")
    return value


def check_json_value(name: str, value: Any) -> None:
    """Walk a JSON-like value: every string valid text, every integer 64-bit, every float finite; mapping keys are
    strings that are valid text."""
    if isinstance(value, str):
        check_text(name, value)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        check_int(name, value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(f"{name} is {value}; only finite numbers can be stored or compared")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidInputError(f"{name} has a key {key!r} that is not a string")
            check_text(f"{name} key {key[:40]!r}", key)
            check_json_value(f"{name}[{key[:40]!r}]", item)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_json_value(f"{name}[{index}]", item)


def check_ids_text(name: str, ids: Any) -> list[str]:
    """A list of ids (strings of valid text); a lone string or a non-list is refused."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"{name} takes a list of memory ids, got {type(ids).__name__}")
    for memory_id in ids:
        if not isinstance(memory_id, str):
            raise InvalidInputError(f"{name}: memory ids are strings, got {memory_id!r}")
        check_text(f"{name}: memory id {memory_id[:40]!r}", memory_id)
    return list(ids)


__all__ = ["check_ids_text", "check_int", "check_json_value", "check_text", "text_problem"]
