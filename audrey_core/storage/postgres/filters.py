"""Compiling metadata filters to PostgreSQL (jsonb), with the same meaning as the SQLite compiler.

SQLite's ``json_extract`` semantics are the reference (both are tested against one Python model): a JSON true
counts as 1 and false as 0 in equality, strings only ever equal strings, range comparisons apply to numbers or to
strings (byte order), a missing key and a JSON null are both "null", and objects and arrays match nothing but $ne.
"""

from __future__ import annotations

from typing import Any

from ...rules.filters import Compare, Filter
from ..sql.filters import SQL_OPS, Compiled, compile_tree


def compile_jsonb_filter(flt: Filter, column: str) -> Compiled:
    """SQL (with ``?`` placeholders) and parameters testing ``flt`` against the JSON text in ``column``."""
    return compile_tree(flt, column, _compare)


def _compare(flt: Compare, column: str) -> Compiled:
    value = f"(({column})::jsonb -> ?)"
    kind = f"jsonb_typeof{value}"
    text = f"(CASE WHEN {kind} = 'string' THEN ({column})::jsonb ->> ? END)"
    number = (
        f"(CASE {kind} WHEN 'number' THEN (({column})::jsonb ->> ?)::numeric "
        f"WHEN 'boolean' THEN CASE WHEN {value} = 'true'::jsonb THEN 1 ELSE 0 END END)"
    )
    key = flt.key

    def equal(v: Any) -> Compiled:
        if isinstance(v, str):
            return f"{text} = ?", [key, key, v]
        return f"{number} = ?", [key, key, key, _number(v)]

    def is_null() -> Compiled:
        return f"COALESCE({kind}, 'null') = 'null'", [key]

    if flt.op == "$eq":
        return is_null() if flt.value is None else _coalesced(*equal(flt.value))
    if flt.op == "$ne":
        if flt.value is None:
            sql, params = is_null()
            return f"NOT {sql}", params
        sql, params = _coalesced(*equal(flt.value))
        return f"NOT {sql}", params
    if flt.op in ("$in", "$nin"):
        parts = [equal(v) if v is not None else is_null() for v in flt.value]
        sql = "(" + " OR ".join(s for s, _ in parts) + ")" if parts else "FALSE"
        sql, params = _coalesced(sql, [p for _, values in parts for p in values])
        return (sql, params) if flt.op == "$in" else (f"NOT {sql}", params)
    op = SQL_OPS[flt.op]
    if isinstance(flt.value, str):
        return _coalesced(f"{text} {op} ?", [key, key, flt.value])
    numeric = f"(CASE WHEN {kind} = 'number' THEN (({column})::jsonb ->> ?)::numeric END)"
    return _coalesced(f"{numeric} {op} ?", [key, key, _number(flt.value)])


def _number(value: Any) -> int | float:
    return int(value) if isinstance(value, bool) else value


def _coalesced(sql: str, params: list[Any]) -> Compiled:
    # A missing key makes a comparison NULL; NOT NULL would drop the row from $ne / $nin.
    return f"COALESCE({sql}, FALSE)", params


__all__ = ["compile_jsonb_filter"]
