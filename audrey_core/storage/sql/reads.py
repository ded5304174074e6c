"""Reads every SQL backend shares: fetching, listing, filtering by memory columns, counting. Backends supply the
vector and full-text searches and ``_metadata_sql`` (how their JSON is filtered)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from ...models import Episodic, Memory
from ...rules.ownership import Tenant
from ...timeutil import from_iso, to_iso
from ..base import StoreCounts, VectorFilter, VectorHit
from ..sqlite.connection import placeholders
from .dialect import SQLDialect
from .filters import decode_scope, encode_scope, scope_range
from .migrations import EVIDENCE_TABLE
from .presence import presence
from .rows import COLUMNS, TABLES, row_to_memory

MAX_IDS_PER_QUERY = 10_000  # PostgreSQL takes at most 65,535 parameters in a statement, SQLite 32,766 by default


def batches(ids: list[str], size: int = MAX_IDS_PER_QUERY) -> Iterator[list[str]]:
    """``ids`` in slices small enough for one statement's parameters."""
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


class SQLReads(SQLDialect):
    """Mixed into an SQL storage backend; uses its ``_read`` context."""

    def iter_memories(
        self, agent: str | None, states: Sequence[str], memory_types: Sequence[str] | None = None
    ) -> Iterator[Memory]:
        for memory_type in memory_types or TABLES:
            columns = COLUMNS[memory_type]
            sql = f"SELECT {', '.join(columns)} FROM {TABLES[memory_type]} WHERE state IN ({placeholders(states)})"
            params: list[Any] = list(states)
            if agent is not None:
                sql += " AND agent = ?"
                params.append(agent)
            with self._read() as db:
                rows = db.execute(sql + " ORDER BY id", params).fetchall()
            for row in rows:
                yield row_to_memory(memory_type, row)

    def key_holders(self, agent: str, scope: Sequence[str], key: str, other_than: str) -> list[Episodic]:
        columns = COLUMNS["episodic"]
        sql = (
            f"SELECT {', '.join(columns)} FROM episodes WHERE agent = ? AND scope = ? AND key = ? AND id != ? "
            "AND state != 'rolled_back' ORDER BY id"
        )
        with self._read() as db:
            rows = db.execute(sql, (agent, encode_scope(tuple(scope)), key, other_than)).fetchall()
        return [row_to_memory("episodic", row) for row in rows]  # type: ignore[misc]

    def unconsolidated_episodes(self, agent: str, states: Sequence[str], up_to: str | None = None) -> list[Episodic]:
        columns = COLUMNS["episodic"]
        sql = (
            f"SELECT {', '.join(columns)} FROM episodes WHERE agent = ? AND consolidated = 0 "
            f"AND state IN ({placeholders(states)})"
        )
        params: list[Any] = [agent, *states]
        if up_to is not None:
            sql += " AND id <= ?"
            params.append(up_to)
        with self._read() as db:
            rows = db.execute(sql + " ORDER BY id", params).fetchall()
        return [row_to_memory("episodic", row) for row in rows]  # type: ignore[misc]

    def chunk_spans(self, vector_rows: Sequence[int]) -> dict[int, tuple[int, int]]:
        if not vector_rows or not presence(self, "chunks").holds_any(self._read_value):
            return {}
        among, params = self._one_of("rowid", vector_rows)
        with self._read() as db:
            rows = db.execute(
                "SELECT rowid, chunk_start, chunk_end FROM memory_vector_rows "
                f"WHERE chunk_start IS NOT NULL AND {among}",
                params,
            ).fetchall()
        return {rowid: (start, end) for rowid, start, end in rows}

    def _vector_conditions(self, where: VectorFilter) -> tuple[list[str], list[Any]] | None:
        """Conditions on the vector table's own columns for ``where`` (rowid subqueries for tags, metadata and time);
        None when ``where`` can match nothing."""
        sql: list[str] = []
        params: list[Any] = []
        if where.agent is not None:
            sql.append("agent = ?")
            params.append(where.agent)
        for column, values in (("memory_type", where.memory_types), ("state", where.states), ("source", where.sources)):
            if values is not None:
                if not values:
                    return None
                sql.append(f"{column} IN ({placeholders(values)})")
                params.extend(values)
        if where.consolidated is not None:
            sql.append("consolidated = ?")
            params.append(int(where.consolidated))
        if where.scope is not None:
            sql.append("scope = ?")
            params.append(encode_scope(where.scope))
        if where.scoped:
            sql.append("scope != ''")
        if where.scope_prefix:  # a range over the scope column: only that subtree is scanned
            condition, bounds = scope_range("scope", where.scope_prefix)
            sql.append(condition)
            params.extend(bounds)
        if where.tags is not None and not where.tags:
            return None
        # sqlite-vec takes one "rowid IN (...)" constraint per query, so tags, metadata and time share one subquery.
        if where.metadata is not None or where.time_range is not None or where.as_of is not None:
            union, sub_params = self._over_tables(
                where,
                lambda t, table: f"SELECT r.rowid FROM memory_vector_rows r JOIN {table} m ON m.id = r.memory_id",
                vector_side=True,
            )
            sql.append(f"rowid IN ({union})")
            params.extend(sub_params)
        elif where.tags is not None:
            sql.append(
                "rowid IN (SELECT r.rowid FROM memory_tags t JOIN memory_vector_rows r ON r.memory_id = t.memory_id "
                f"WHERE t.tag IN ({placeholders(where.tags)}))"
            )
            params.extend(where.tags)
        return sql, params

    @staticmethod
    def _best_chunk_per_memory(rows: Sequence[Sequence[Any]], k: int) -> list[VectorHit]:
        """(memory_id, memory_type, distance, rowid) rows, nearest first once sorted, one hit per memory."""
        hits: dict[str, VectorHit] = {}
        for memory_id, memory_type, distance, rowid in sorted(rows, key=lambda row: row[2]):
            if memory_id not in hits:
                hits[memory_id] = VectorHit(memory_id, memory_type, float(distance), int(rowid))
        return list(hits.values())[:k]

    def _row_conditions(
        self, where: VectorFilter, alias: str, vector_side: bool = False, memory_type: str | None = None
    ) -> tuple[list[str], list[Any]]:
        """SQL conditions on a memory table for ``where``. ``vector_side``: only those vec0 cannot apply itself.
        ``memory_type`` names the table, for the episode-only consolidated flag."""
        conditions: list[str] = ["1 = 1"]
        params: list[Any] = []
        if not vector_side and where.consolidated is not None and memory_type == "episodic":
            conditions.append(f"{alias}.consolidated = ?")
            params.append(int(where.consolidated))
        if not vector_side:
            for column, values in (("state", where.states), ("source", where.sources)):
                if values is not None:
                    conditions.append(f"{alias}.{column} IN ({placeholders(values)})")
                    params.extend(values)
            if where.agent is not None:
                conditions.append(f"{alias}.agent = ?")
                params.append(where.agent)
            if where.scope is not None:
                conditions.append(f"{alias}.scope = ?")
                params.append(encode_scope(where.scope))
            if where.scoped:
                conditions.append(f"{alias}.scope != ''")
        if where.tags is not None:  # on the vector side too: it shares the one rowid subquery (see above)
            conditions.append(
                f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = {alias}.id "
                f"AND t.tag IN ({placeholders(where.tags)}))"
            )
            params.extend(where.tags)
        if where.scope_prefix and not vector_side:
            condition, bounds = scope_range(f"{alias}.scope", where.scope_prefix)
            conditions.append(condition)
            params.extend(bounds)
        if where.metadata is not None:
            sql, metadata_params = self._metadata_sql(where.metadata, f"{alias}.metadata")
            conditions.append(sql)
            params.extend(metadata_params)
        if where.as_of is not None:  # stored by then, begun by then, not yet ended then
            moment = to_iso(where.as_of)
            conditions.append(f"{alias}.created_at <= ? AND COALESCE({alias}.event_time, {alias}.created_at) <= ?")
            conditions.append(f"({alias}.valid_until IS NULL OR {alias}.valid_until > ?)")
            params.extend([moment, moment, moment])
        if where.alive_at is not None:
            conditions.append(f"({alias}.expires_at IS NULL OR {alias}.expires_at > ?)")
            params.append(to_iso(where.alive_at))
        if where.expired_by is not None:
            conditions.append(f"{alias}.expires_at <= ?")
            params.append(to_iso(where.expired_by))
        if where.time_range is not None:
            start, end = where.time_range
            moment = f"COALESCE({alias}.event_time, {alias}.created_at)"  # fixed-width UTC text compares as time
            if start is not None:
                conditions.append(f"{moment} >= ?")
                params.append(to_iso(start))
            if end is not None:
                conditions.append(f"{moment} <= ?")
                params.append(to_iso(end))
        return conditions, params

    def _over_tables(
        self, where: VectorFilter, head: Callable[[str, str], str], vector_side: bool = False
    ) -> tuple[str, list[Any]]:
        """``head(memory_type, table)`` (a SELECT whose memory table is aliased m) over each memory table ``where``
        allows, each with ``where``'s conditions, joined by UNION ALL; and the parameters."""
        selects, params = [], []
        for memory_type in where.memory_types or TABLES:
            conditions, values = self._row_conditions(where, "m", vector_side=vector_side, memory_type=memory_type)
            selects.append(f"{head(memory_type, TABLES[memory_type])} WHERE {' AND '.join(conditions)}")
            params.extend(values)
        return " UNION ALL ".join(selects), params

    def span_memories(self, where: VectorFilter, limit: int) -> dict[str, str] | None:
        """The memories matching ``where`` whose time (event time, else when stored) lies in its ``time_range``: id
        -> memory type, read through the time indexes; ``None`` when there are more than ``limit`` (or no range or
        agent to read them by), so the caller searches with the filter instead. A time range is usually narrow (a
        day, a month), and searching a large store with a filter the indexes cannot apply costs 250 ms at 100k."""
        if where.time_range is None or where.agent is None:
            return None
        start, end = (to_iso(t) if t is not None else None for t in where.time_range)
        size = self.span_size(where, limit)
        if size == 0 or size > limit:
            return {} if size == 0 else None
        rest = replace(where, time_range=None)
        selects, params = [], []
        for memory_type in where.memory_types or TABLES:
            conditions, values = self._row_conditions(rest, "m", memory_type=memory_type)
            for column, extra in (("m.event_time", []), ("m.created_at", ["m.event_time IS NULL"])):
                bounds = [f"{column} >= ?"] * (start is not None) + [f"{column} <= ?"] * (end is not None)
                selects.append(
                    f"SELECT m.id, '{memory_type}' FROM {TABLES[memory_type]} m WHERE "
                    + " AND ".join([*conditions, *extra, *bounds])
                )
                params += [*values, *(t for t in (start, end) if t is not None)]
        with self._read() as db:
            rows = db.execute(" UNION ALL ".join(selects) + " LIMIT ?", [*params, int(limit) + 1]).fetchall()
        return None if len(rows) > limit else dict(rows)

    def span_size(self, where: VectorFilter, limit: int) -> int:
        """At most how many of the agent's memories lie in ``where``'s time range, counted up to ``limit`` + 1 from
        the time indexes alone (an upper bound: memories with an event time are counted again by when they were
        stored, and other filters are not applied), so a wide span costs no more than reading that many entries."""
        if where.time_range is None or where.agent is None:
            return limit + 1
        agent, memory_types = where.agent, where.memory_types or tuple(TABLES)
        start, end = (to_iso(t) if t is not None else None for t in where.time_range)
        bounds = [("{0} >= ?", start), ("{0} <= ?", end)]
        total = 0
        with self._read() as db:
            for memory_type in memory_types:
                for column in ("event_time", "created_at"):
                    conditions = ["agent = ?", *(sql.format(column) for sql, value in bounds if value is not None)]
                    total += int(
                        db.execute(
                            f"SELECT COUNT(*) FROM (SELECT 1 FROM {TABLES[memory_type]} "
                            f"WHERE {' AND '.join(conditions)} LIMIT ?) s",
                            [agent, *(value for _, value in bounds if value is not None), int(limit) + 1 - total],
                        ).fetchone()[0]
                    )
                    if total > limit:
                        return total
        return total

    def list_memories(
        self, where: VectorFilter, limit: int, offset: int = 0, newest_first: bool = True
    ) -> list[Memory]:
        union, params = self._over_tables(where, lambda t, table: f"SELECT m.id, '{t}', m.created_at FROM {table} m")
        order = "DESC" if newest_first else "ASC"
        with self._read() as db:
            rows = db.execute(
                f"{union} ORDER BY 3 {order}, 1 {order} LIMIT ? OFFSET ?",
                [*params, int(limit), int(offset)],
            ).fetchall()
        found = self.get_memories([r[0] for r in rows], {r[0]: r[1] for r in rows})
        return [found[r[0]] for r in rows if r[0] in found]

    def scopes(self, agent: str | None, alive_at: datetime | None = None) -> list[tuple[str, ...]]:
        conditions: list[str] = []
        values: list[str] = []
        if agent is not None:
            conditions.append("agent = ?")
            values.append(agent)
        if alive_at is not None:
            conditions.append("(expires_at IS NULL OR expires_at > ?)")
            values.append(to_iso(alive_at))
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        scope_sql = " UNION ".join(f"SELECT scope FROM {table}{where}" for table in TABLES.values())
        with self._read() as db:
            rows = db.execute(scope_sql, values * len(TABLES)).fetchall()
        return sorted(decode_scope(r[0]) for r in rows)

    def get_memories(
        self, ids: Iterable[str], memory_types: Mapping[str, str] | None = None, owner: Tenant | None = None
    ) -> dict[str, Memory]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        groups: dict[str, list[str]] = {}
        if memory_types is not None and all(i in memory_types for i in wanted):
            for memory_id in wanted:
                groups.setdefault(memory_types[memory_id], []).append(memory_id)
        else:
            groups = {memory_type: wanted for memory_type in TABLES}
        found: dict[str, Memory] = {}
        with self._read() as db:
            for memory_type, group in groups.items():
                columns = COLUMNS[memory_type]
                # without the types every table is a group: each asks only for the ids not found yet (episodes,
                # the most, first); typed groups share no id, so this drops none of theirs
                group = [memory_id for memory_id in group if memory_id not in found]
                for batch in batches(group):
                    among, params = self._one_of("id", batch)
                    rows = db.execute(
                        f"SELECT {', '.join(columns)} FROM {TABLES[memory_type]} WHERE {among}", params
                    ).fetchall()
                    for row in rows:
                        found[row[0]] = row_to_memory(memory_type, row)
        if owner is not None:
            return {memory_id: m for memory_id, m in found.items() if owner.owns(m)}
        return found

    def get_vectors(self, ids: Sequence[str], owner: Tenant | None = None) -> dict[str, np.ndarray]:
        if not ids or self.vector_error is not None:
            return {}
        if owner is not None:
            ids = list(self.get_memories(ids, owner=owner))
        rows = []
        with self._read() as db:
            for batch in batches(list(ids)):
                among, params = self._one_of("r.memory_id", batch)
                rows += self._fetch_vectors(
                    db,
                    f"SELECT r.memory_id, v.embedding FROM memory_vector_rows r "
                    f"JOIN {self.vector_table} v ON v.rowid = r.rowid WHERE r.chunk_index = 0 AND {among}",
                    params,
                )
        return {memory_id: np.array(self._to_array(blob), dtype=np.float32) for memory_id, blob in rows}

    def principles_resting_on(
        self, episode_ids: Sequence[str], where: VectorFilter
    ) -> dict[str, tuple[str, tuple[str, ...]]]:
        kinds = [t for t in ("semantic", "procedural") if where.memory_types is None or t in where.memory_types]
        cited: dict[str, list[str]] = {}
        with self._read() as db:
            for batch in batches(list(dict.fromkeys(episode_ids))) if kinds else ():
                among, params = self._one_of("episode_id", batch)
                for memory_id, episode_id in db.execute(
                    f"SELECT memory_id, episode_id FROM {EVIDENCE_TABLE} WHERE {among}", params
                ):
                    cited.setdefault(memory_id, []).append(episode_id)
            kept: dict[str, str] = {}  # most episodes rest on nothing: this second read is rare
            for batch in batches(list(cited)):
                for kind in kinds:
                    conditions, params = self._row_conditions(where, "m", memory_type=kind)
                    among, ids = self._one_of("m.id", batch)
                    rows = db.execute(
                        f"SELECT m.id FROM {TABLES[kind]} m WHERE {among} AND {' AND '.join(conditions)}",
                        [*ids, *params],
                    )
                    kept.update((row[0], kind) for row in rows)
        return {memory_id: (kind, tuple(sorted(cited[memory_id]))) for memory_id, kind in kept.items()}

    def evidence_origins(self, memory_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        origins: dict[str, list[tuple[str, str]]] = {memory_id: [] for memory_id in memory_ids}
        if not memory_ids:
            return origins
        with self._read() as db:
            for table in ("semantics", "procedures"):
                rows = db.execute(
                    f"SELECT m.id, e.source, e.agent FROM {table} m "
                    f"CROSS JOIN {self._json_elements('m.evidence_episode_ids')} "
                    f"JOIN episodes e ON e.id = j.value WHERE m.id IN ({placeholders(memory_ids)})",
                    list(memory_ids),
                ).fetchall()
                for memory_id, source, agent in rows:
                    origins[memory_id].append((source, agent))
        return origins

    def supersedes_chain(self, memory_id: str) -> list[Memory]:
        chain: list[Memory] = []
        frontier, seen = [memory_id], {memory_id}
        while frontier and len(chain) < 1000:  # newest first: each step goes one replacement further back
            found = []
            with self._read() as db:
                for memory_type, table in TABLES.items():
                    rows = db.execute(
                        f"SELECT {', '.join(COLUMNS[memory_type])} FROM {table} "
                        f"WHERE superseded_by IN ({placeholders(frontier)}) ORDER BY id DESC",
                        frontier,
                    ).fetchall()
                    found += [row_to_memory(memory_type, row) for row in rows if row[0] not in seen]
            chain += found
            seen.update(m.id for m in found)
            frontier = [m.id for m in found]
        return chain

    def counts(self, agent: str | None, scope_prefix: tuple[str, ...] = ()) -> StoreCounts:
        scope, params = ("WHERE agent = ?", [agent]) if agent is not None else ("", [])
        subtree, subtree_params = scope, params
        if scope_prefix:
            condition, bounds = scope_range("scope", scope_prefix)
            subtree, subtree_params = f"{scope or 'WHERE 1 = 1'} AND {condition}", [*params, *bounds]
        with self._read() as db:
            states = {
                memory_type: dict(
                    db.execute(f"SELECT state, COUNT(*) FROM {table} {subtree} GROUP BY state", subtree_params)
                )
                for memory_type, table in TABLES.items()
            }
            contradictions = dict(
                db.execute(f"SELECT state, COUNT(*) FROM contradictions {scope} GROUP BY state", params)
            )
            links = db.execute(f"SELECT COUNT(*) FROM causal_links {scope}", params).fetchone()[0]
            completed = "WHERE status = 'completed'" + (" AND agent = ?" if agent is not None else "")
            last = db.execute(f"SELECT MAX(completed_at) FROM consolidation_runs {completed}", params).fetchone()[0]
            sources = dict(
                db.execute(f"SELECT source, COUNT(*) FROM episodes {subtree} GROUP BY source", subtree_params)
            )
        return StoreCounts(
            states=states,
            contradictions=contradictions,
            causal_links=int(links),
            last_consolidation=from_iso(last) if last else None,
            episode_sources=sources,
        )

    def config(self) -> dict[str, str]:
        """Every key in the store's ``audrey_config`` table."""
        with self._read() as db:
            return dict(db.execute("SELECT key, value FROM audrey_config").fetchall())
