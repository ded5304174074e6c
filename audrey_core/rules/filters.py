"""Metadata filters: a small, documented language that every storage backend compiles to SQL.

    {"topic": "billing"}                        equality (a bare value means $eq)
    {"year": {"$gte": 2023, "$lt": 2025}}       several operators on one key are ANDed
    {"lang": {"$in": ["en", "fr"]}}             $eq $ne $gt $gte $lt $lte $in $nin
    {"$or": [{"a": 1}, {"b": {"$ne": 2}}]}      $and / $or over sub-filters; top-level keys are ANDed

Keys are top-level metadata keys, matched literally (no character is a wildcard). Values are JSON scalars
(str, int, float, bool, None); ``$in`` / ``$nin`` take lists of them. How each compares, on every backend:

* ``$eq`` / ``$ne`` / ``$in`` / ``$nin``: equal JSON values (a number equals the same number, int or float, and a
  bool counts as the number 1 or 0, as SQLite stores it; a string equals only a string; None matches a missing key
  or null); a list or object never equals;
* ``$gt`` / ``$gte`` / ``$lt`` / ``$lte``: numbers with numbers, strings with strings (by code point); a stored
  value of another type never matches; a bool or None to order by is refused (JSON booleans have no order).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInputError
from .inputs import check_json_value, check_text

OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin")
_SCALARS = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class Compare:
    """``metadata[key] <op> value``."""

    key: str
    op: str
    value: Any


@dataclass(frozen=True)
class AllOf:
    """Every part holds."""

    parts: tuple[Filter, ...]


@dataclass(frozen=True)
class AnyOf:
    """At least one part holds."""

    parts: tuple[Filter, ...]


Filter = Compare | AllOf | AnyOf


def parse_filter(spec: Any) -> Filter | None:
    """Check and parse a filter dict (``None`` or ``{}`` means no filter)."""
    if spec is None:
        return None
    if not isinstance(spec, Mapping):
        raise InvalidInputError(f"a metadata filter must be a dict, got {type(spec).__name__}")
    if not spec:
        return None
    return _parse(spec)


def _parse(spec: Mapping[str, Any]) -> Filter:
    parts: list[Filter] = []
    for key, value in spec.items():
        if not isinstance(key, str) or not key:
            raise InvalidInputError(f"filter keys must be non-empty strings, got {key!r}")
        check_text("a filter key", key)
        if key in ("$and", "$or"):
            if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, Mapping) for v in value):
                raise InvalidInputError(f"{key} takes a non-empty list of filter dicts")
            subs = tuple(_parse(v) for v in value)
            parts.append(AllOf(subs) if key == "$and" else AnyOf(subs))
        elif key.startswith("$"):
            raise InvalidInputError(f"unknown filter operator {key!r}; use $and or $or at the top level")
        elif isinstance(value, Mapping):
            if not value:
                raise InvalidInputError(f"filter on {key!r} has no operator")
            for op, operand in value.items():
                parts.append(_compare(key, op, operand))
        else:
            parts.append(_compare(key, "$eq", value))
    return parts[0] if len(parts) == 1 else AllOf(tuple(parts))


def _compare(key: str, op: Any, operand: Any) -> Compare:
    if isinstance(operand, (set, frozenset, tuple)):
        check_json_value(f"filter value on {key[:40]!r}", list(operand))
    elif isinstance(operand, (str, int, float, list)):
        check_json_value(f"filter value on {key[:40]!r}", operand)
    if op not in OPERATORS:
        raise InvalidInputError(f"unknown filter operator {op!r} on {key!r}; use one of {', '.join(OPERATORS)}")
    if op in ("$in", "$nin"):
        if not isinstance(operand, (list, tuple, set, frozenset)) or not all(isinstance(v, _SCALARS) for v in operand):
            raise InvalidInputError(f"{op} on {key!r} takes a list of scalar values")
        return Compare(key, op, tuple(operand))
    if not isinstance(operand, _SCALARS):
        raise InvalidInputError(f"{op} on {key!r} takes a scalar value (str, number, bool or None), got {operand!r}")
    if operand is None and op not in ("$eq", "$ne"):
        raise InvalidInputError(f"{op} on {key!r} cannot compare with None")
    if isinstance(operand, bool) and op in ("$gt", "$gte", "$lt", "$lte"):
        raise InvalidInputError(f"{op} on {key!r} orders numbers or strings, not a boolean: use $eq or $ne")
    return Compare(key, op, operand)


def matches(flt: Filter | None, metadata: Mapping[str, Any]) -> bool:
    """Evaluate a parsed filter in Python (the reference the SQL compilation must agree with)."""
    if flt is None:
        return True
    if isinstance(flt, AllOf):
        return all(matches(p, metadata) for p in flt.parts)
    if isinstance(flt, AnyOf):
        return any(matches(p, metadata) for p in flt.parts)
    value = metadata.get(flt.key)
    if flt.op == "$eq":
        return value is None if flt.value is None else _same(value, flt.value)
    if flt.op == "$ne":
        return value is not None if flt.value is None else not _same(value, flt.value)
    if flt.op == "$in":
        return any(_same(value, v) for v in flt.value)
    if flt.op == "$nin":
        return not any(_same(value, v) for v in flt.value)
    if value is None or isinstance(value, bool) != isinstance(flt.value, bool):
        return False
    if isinstance(value, str) != isinstance(flt.value, str) or not isinstance(value, (str, int, float)):
        return False
    return {"$gt": value > flt.value, "$gte": value >= flt.value, "$lt": value < flt.value, "$lte": value <= flt.value}[
        flt.op
    ]


def _same(a: Any, b: Any) -> bool:
    # JSON has no separate bool type in SQLite (true is 1), so compare like the SQL does: bools as 0/1 numbers.
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    if isinstance(a, str) != isinstance(b, str):
        return False
    return a == b
