"""Compiling metadata filters and scope paths to SQLite SQL (json_extract; exact comparisons, never LIKE)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from ...rules.filters import AllOf, AnyOf, Compare, Filter
from ..sqlite.connection import placeholders

SCOPE_SEPARATOR = "\x1f"  # the unit separator: refused inside scope labels, so paths encode unambiguously
SQL_OPS = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def encode_scope(scope: Sequence[str]) -> str:
    """('user', 'john') -> 'user\\x1fjohn\\x1f'; the root scope () -> ''. A prefix's encoding is a string prefix of
    every scope below it, and only of those (segments end with the separator)."""
    return "".join(label + SCOPE_SEPARATOR for label in scope)


def decode_scope(text: str) -> tuple[str, ...]:
    """The inverse of :func:`encode_scope`."""
    return tuple(text.split(SCOPE_SEPARATOR)[:-1]) if text else ()


def scope_upper_bound(encoded_prefix: str) -> str:
    """The smallest string above every scope under a non-empty encoded prefix: scopes under it are exactly those
    in [prefix, bound), so a prefix is an indexable range, never a pattern."""
    return encoded_prefix[:-1] + chr(ord(SCOPE_SEPARATOR) + 1)


def scope_range(column: str, scope_prefix: Sequence[str]) -> tuple[str, list[str]]:
    """The condition (and its two parameters) keeping rows whose ``column`` lies under a non-empty scope prefix: an
    indexable range over the encoded scopes, exact by construction, never a pattern."""
    low = encode_scope(scope_prefix)
    return f"{column} >= ? AND {column} < ?", [low, scope_upper_bound(low)]


def _scope_token(kind: str, encoded: str) -> str:
    return kind + hashlib.blake2b(encoded.encode("utf-8"), digest_size=10).hexdigest()


def scope_tokens(scope: Sequence[str]) -> str:
    """The words a memory's full-text row carries for its scope: one for the scope itself and one for each scope
    above it (the root excepted), so a scoped keyword search intersects with a short list instead of filtering every
    match afterwards. Hashes: labels may hold any character, and a token never matches a different scope."""
    words = [_scope_token("sx", encode_scope(scope))]
    words += [_scope_token("sp", encode_scope(scope[:depth])) for depth in range(1, len(scope) + 1)]
    return " ".join(words)


def scope_match(scope: Sequence[str] | None, scope_prefix: Sequence[str] | None) -> list[str]:
    """Full-text query words restricting a search to ``scope`` exactly and / or to scopes under ``scope_prefix``."""
    words = []
    if scope is not None:
        words.append(_scope_token("sx", encode_scope(scope)))
    if scope_prefix:
        words.append(_scope_token("sp", encode_scope(scope_prefix)))
    return words


def json_path(key: str) -> str:
    """A JSON path naming one top-level key literally."""
    return '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


Compiled = tuple[str, list[Any]]


def compile_tree(flt: Filter, column: str, compare: Callable[[Compare, str], Compiled]) -> Compiled:
    """SQL (and its parameters) for a filter tree: $and / $or joined here, each comparison by ``compare`` (the
    backend's JSON dialect)."""
    if isinstance(flt, (AllOf, AnyOf)):
        if not flt.parts:  # {} inside $and / $or: no condition, which every memory meets
            return ("1 = 1" if isinstance(flt, AllOf) else "1 = 0"), []
        parts = [compile_tree(p, column, compare) for p in flt.parts]
        joiner = " AND " if isinstance(flt, AllOf) else " OR "
        return "(" + joiner.join(sql for sql, _ in parts) + ")", [p for _, params in parts for p in params]
    assert isinstance(flt, Compare)
    return compare(flt, column)


def compile_filter(flt: Filter, column: str) -> Compiled:
    """SQLite SQL (and its parameters) testing ``flt`` against the JSON object in ``column``."""
    return compile_tree(flt, column, _compare)


def _compare(flt: Compare, column: str) -> Compiled:
    value_sql = f"json_extract({column}, ?)"
    type_sql = f"json_type({column}, ?)"
    path = json_path(flt.key)
    scalar = f"{type_sql} NOT IN ('object', 'array')"
    if flt.op == "$eq":
        if flt.value is None:
            return f"{value_sql} IS NULL", [path]
        return f"({scalar} AND {value_sql} = ?)", [path, path, _param(flt.value)]
    if flt.op == "$ne":
        if flt.value is None:
            return f"{value_sql} IS NOT NULL", [path]
        return f"({value_sql} IS NULL OR {type_sql} IN ('object', 'array') OR {value_sql} != ?)", [
            path, path, path, _param(flt.value)
        ]  # fmt: skip
    if flt.op in ("$in", "$nin"):
        values = [_param(v) for v in flt.value if v is not None]
        has_null = any(v is None for v in flt.value)
        inside = f"({scalar} AND {value_sql} IN ({placeholders(values)}))" if values else "0"
        params = [path, path, *values] if values else []
        if has_null:
            inside = f"({inside} OR {value_sql} IS NULL)"
            params.append(path)
        # COALESCE: a missing key makes the test NULL, and NOT NULL would drop the row from $nin.
        if flt.op == "$in":
            return f"COALESCE({inside}, 0)", params
        return f"NOT COALESCE({inside}, 0)", params
    typed = "'text'" if isinstance(flt.value, str) else "'integer', 'real'"
    return f"({type_sql} IN ({typed}) AND {value_sql} {SQL_OPS[flt.op]} ?)", [path, path, _param(flt.value)]


def _param(value: Any) -> Any:
    return int(value) if isinstance(value, bool) else value


def scope_test(scope: Sequence[str] | None, scope_prefix: Sequence[str] | None, scoped: bool) -> Callable[[str], bool]:
    """Whether an encoded scope passes a filter's ``scope``, ``scope_prefix`` and ``scoped`` (as the SQL does)."""
    exact = None if scope is None else encode_scope(scope)
    low = encode_scope(scope_prefix) if scope_prefix else None

    def passes(encoded: str) -> bool:
        if exact is not None and encoded != exact:
            return False
        if scoped and encoded == "":
            return False
        return low is None or encoded.startswith(low)

    return passes
