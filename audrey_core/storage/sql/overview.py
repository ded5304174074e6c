"""Reads that give an overview rather than answer a query (what ``audrey ui`` shows): how many memories were stored
each day, by type and state (which principles cite an episode: ``Storage.principles_citing``)."""

from __future__ import annotations

from collections.abc import Sequence

from .dialect import SQLDialect
from .filters import scope_range
from .rows import TABLES


class SQLOverview(SQLDialect):
    def timeline(self, agent: str, scope_prefix: Sequence[str] = ()) -> list[tuple[str, str, str, int]]:
        """(day stored as YYYY-MM-DD, memory type, state, count) for ``agent``'s memories at or under
        ``scope_prefix``, in day order: one grouped scan per memory table, whatever the store's size."""
        conditions, params = ["agent = ?"], [agent]
        if scope_prefix:
            condition, bounds = scope_range("scope", scope_prefix)
            conditions.append(condition)
            params.extend(bounds)
        rows: list[tuple[str, str, str, int]] = []
        with self._read() as db:
            for memory_type, table in TABLES.items():
                found = db.execute(
                    f"SELECT substr(created_at, 1, 10), state, COUNT(*) FROM {table} "
                    f"WHERE {' AND '.join(conditions)} GROUP BY substr(created_at, 1, 10), state",
                    params,
                ).fetchall()
                rows += [(day, memory_type, state, int(count)) for day, state, count in found]
        return sorted(rows)

    def agents(self) -> dict[str, int]:
        """Every agent with memories in the store, and how many it has (of every type and state)."""
        counts: dict[str, int] = {}
        with self._read() as db:
            for table in TABLES.values():
                for agent, count in db.execute(f"SELECT agent, COUNT(*) FROM {table} GROUP BY agent").fetchall():
                    counts[agent] = counts.get(agent, 0) + int(count)
        return dict(sorted(counts.items()))

    def memory_chunks(self, memory_id: str) -> list[tuple[int, int]]:
        """The (start, end) spans of ``memory_id``'s text that were embedded apart, in order ([] for one vector)."""
        with self._read() as db:
            rows = db.execute(
                "SELECT chunk_start, chunk_end FROM memory_vector_rows "
                "WHERE memory_id = ? AND chunk_start IS NOT NULL ORDER BY chunk_index",
                [memory_id],
            ).fetchall()
        return [(int(start), int(end)) for start, end in rows]
