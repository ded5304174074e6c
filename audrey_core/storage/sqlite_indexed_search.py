"""Searches through the derived indexes on SQLite: the index proposes candidates (agent, memory type and scope
filtered inside it), the database confirms every other filter, and the candidate list widens until enough pass."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ownership import Tenant
from .base import KeywordHit, VectorFilter, VectorHit
from .sql_filters import scope_match, scope_test

# Cost model for choosing between the graph and sqlite-vec's exact scan of a filter's partitions, measured on two
# cores at 384 dimensions: a scan costs about 1.5 us per row; a graph search about 0.5 ms plus 4 us per candidate.
SCAN_US_PER_ROW = 1.5
GRAPH_US_BASE = 500.0
GRAPH_US_PER_CANDIDATE = 4.0
MIN_CANDIDATES = 128  # asked of the graph at least (or 4 k) matching rows: 0.996 of the exact top 10 at 100k
GRAPH_MAX_SHARE = 0.5  # a search that must visit more of the graph than this scans instead (exact, and cheaper)


# The candidates lead every join (CROSS JOIN fixes SQLite's join order): otherwise the planner may walk a tenant's
# whole memory table through its agent index and probe the candidate list for each row (116 ms instead of 0.2 ms
# at 5k memories).


class SQLiteIndexedSearch:
    """Mixed into :class:`SQLiteStorage`."""

    keyword_index: Any
    vector_index: Any

    def _indexed_keyword_search(self, terms: Sequence[str], k: int, where: VectorFilter) -> list[KeywordHit]:
        index = self.keyword_index
        if not self._in_write_transaction():  # inside one, the log may hold changes that could still roll back
            index.ensure_fresh()
        union, params = self._over_tables(
            where,
            lambda t, table: (
                f"SELECT t.memory_id, '{t}', f.rank FROM found f CROSS JOIN memory_text_rows t "
                f"ON t.rowid = f.rowid CROSS JOIN {table} m ON m.id = t.memory_id"
            ),
        )
        scope_words = scope_match(where.scope, where.scope_prefix)
        limit = max(4 * k, 50)
        while True:
            matches = index.search(terms, limit, where.agent, where.memory_types, scope_words)
            found = json.dumps([[rowid, -score] for rowid, score in matches.hits])
            with self._side_read() as db:
                rows = db.execute(
                    "WITH found AS (SELECT json_extract(value, '$[0]') AS rowid, json_extract(value, '$[1]') AS rank "
                    f"FROM json_each(?)) {union} ORDER BY 3, 1 LIMIT ?",
                    [found, *params, int(k)],
                ).fetchall()
            if len(rows) >= k or len(matches.hits) < limit:  # enough, or every match was seen
                break
            limit *= 4
        return [KeywordHit(memory_id, memory_type, -float(rank)) for memory_id, memory_type, rank in rows]

    def get_vectors(self, ids: Sequence[str], owner: Tenant | None = None) -> dict[str, np.ndarray]:
        """From the graph's float32 copies when it is current (a point read from vec0 costs ~0.2 ms); inside a
        write transaction, or for rows the graph lacks, from the database."""
        index = self.vector_index
        if index is None or not ids or self._in_write_transaction():
            return super().get_vectors(ids, owner)  # type: ignore[misc]
        if owner is not None:
            ids = list(self.get_memories(ids, owner=owner))
        index.ensure_fresh()
        with self._side_read() as db:
            rows = db.execute(
                "SELECT memory_id, rowid FROM memory_vector_rows WHERE chunk_index = 0 AND memory_id IN "
                "(SELECT value FROM json_each(?))",
                [json.dumps(list(ids))],
            ).fetchall()
        held = index.vectors([rowid for _, rowid in rows])
        found = {memory_id: held[rowid] for memory_id, rowid in rows if rowid in held}
        missing = [memory_id for memory_id, rowid in rows if rowid not in held]
        if missing:
            found.update(super().get_vectors(missing))  # type: ignore[misc]
        return found

    def _indexed_knn(self, vector: np.ndarray, k: int, where: VectorFilter) -> list[VectorHit] | None:
        """The ``k`` nearest memories through the graph; None when sqlite-vec's exact scan of the filter's
        partitions is cheaper (a small tenant or scope) or the graph cannot find ``k`` without visiting most of
        itself, so the caller scans instead. Results equal the scan's whenever the graph finds the true nearest."""
        index = self.vector_index
        index.ensure_fresh()
        codes = index.codes_for(
            where.agent, where.memory_types, scope_test(where.scope, where.scope_prefix, where.scoped)
        )
        rows = index.rows_in(codes)
        if rows == 0:
            return []
        size = index.size()
        want = max(4 * k, MIN_CANDIDATES)
        count = math.ceil(want * size / rows)  # the graph is searched whole: ask for enough to hold `want` of ours
        union, params = self._over_tables(
            where,
            lambda t, table: (
                f"SELECT r.memory_id, '{t}', f.distance, r.rowid FROM found f CROSS JOIN memory_vector_rows r "
                f"ON r.rowid = f.rowid CROSS JOIN {table} m ON m.id = r.memory_id"
            ),
        )
        while True:
            if (
                count > size * GRAPH_MAX_SHARE
                or rows * SCAN_US_PER_ROW < GRAPH_US_BASE + count * GRAPH_US_PER_CANDIDATE
            ):
                return None
            keys, distances = index.search(vector, count, codes)
            found = json.dumps([[int(key), float(d)] for key, d in zip(keys, distances)])
            with self._side_read() as db:
                confirmed = db.execute(
                    "WITH found AS (SELECT json_extract(value, '$[0]') AS rowid, "
                    f"json_extract(value, '$[1]') AS distance FROM json_each(?)) {union}",
                    [found, *params],
                ).fetchall()
            hits = self._best_chunk_per_memory(confirmed, k)
            if len(hits) >= k:
                return hits
            count *= 4
