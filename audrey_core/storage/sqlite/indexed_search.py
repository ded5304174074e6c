"""Searches through the derived indexes on SQLite: the index proposes candidates (agent, memory type and scope
filtered inside it), the database confirms every other filter, and the candidate list widens until enough pass."""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

from ...errors import AudreyError, IndexNotReady
from ...index_settings import GRAPH_US_BASE, GRAPH_US_PER_CANDIDATE
from ...rules.ownership import Tenant
from ...rules.turns import blended_cosines, cosines
from ..base import KeywordHit, TurnRelevance, VectorFilter, VectorHit, with_margin
from ..sql.filters import scope_match, scope_test
from ..sql.presence import presence
from ..sql.rows import TABLES
from ..sql.turns import WINDOW
from .parts import SQLiteParts

log = logging.getLogger(__name__)

# What tantivy, usearch and the file system raise when an index cannot be read or written (its folder deleted while
# it wrote, a full disk): the index is a cache, so the search runs through the database instead (exact, slower).
# Audrey's own errors (a closed store) still reach the caller.
INDEX_ERRORS = (OSError, ValueError, RuntimeError)
# After a failure the index's searches go to the database this long before it is tried again: on a full disk every
# try would start a rebuild that fails, inside a recall.
T = TypeVar("T")


# The candidates lead every join (CROSS JOIN fixes SQLite's join order): otherwise the planner may walk a tenant's
# whole memory table through its agent index and probe the candidate list for each row (116 ms instead of 0.2 ms
# at 5k memories).


class SQLiteIndexedSearch(SQLiteParts):
    """A part of :class:`SQLiteStorage`."""

    def _from_index(self, kind: str, search: Callable[[], T]) -> T | None:
        """``search()`` through ``kind``'s index; None when that index failed less than
        ``IndexConfig.retry_index_after_s`` ago or fails now (logged), and the caller asks the database. Audrey's
        own errors reach the caller.

        The one rule for indexes and transactions, kept here: a thread inside a read or write of the store (holding
        its lock) never touches an index; it asks the database, which also sees its own uncommitted rows. An index
        catching up reads the log and prunes it through the store, so taking index locks while holding the store's
        would invert the lock order (see :mod:`audrey_core.index`)."""
        if self.held_by_this_thread():
            return None
        failed = self._index_failed_at.get(kind)
        if failed is not None and time.monotonic() - failed < self.index_config.retry_index_after_s:
            return None
        try:
            return search()
        except IndexNotReady:  # being built in the background: the database answers until it is ready
            return None
        except AudreyError:
            raise
        except INDEX_ERRORS as exc:
            self._index_failed_at[kind] = time.monotonic()
            log.warning(
                "the %s index failed (%s: %s); searches run through the database for %.0f s, then it is tried again",
                kind, type(exc).__name__, exc, self.index_config.retry_index_after_s,
            )  # fmt: skip
            return None

    def _indexed_keyword_search(self, terms: Sequence[str], k: int, where: VectorFilter) -> list[KeywordHit]:
        """The index's last commit ranks the rows it holds as they are; the rows changed since (the log's tail) are
        ranked through FTS5, which weighs alike (:func:`~audrey_core.index.keyword_query.idf_as`)."""
        index = self.keyword_index
        view = index.view()
        tail = self._keyword_tail(view)
        scope_words = scope_match(where.scope, where.scope_prefix)
        limit = with_margin(k)
        while True:
            matches = index.search(
                terms, limit, where.agent, where.memory_types, scope_words, view=view, skip_rows=tail
            )
            scores = dict(matches.hits)
            confirmed = self._confirmed(
                "memory_text_rows", [(rowid, t) for (rowid, _), t in zip(matches.hits, matches.memory_types)], where
            )
            found = sorted(((-scores[rowid], memory_id, t) for rowid, memory_id, t in confirmed))[:k]
            if len(found) >= k or len(matches.hits) < limit:  # enough, or every match was seen
                break
            limit *= 4
        hits = [KeywordHit(memory_id, memory_type, -rank) for rank, memory_id, memory_type in found]
        if tail:
            hits += self._fts_keyword_search(terms, k, where, tail)
            hits.sort(key=lambda h: (-h.score, h.memory_id))
        return hits[:k]

    def _keyword_tail(self, view: Any) -> list[int]:
        """The text rows changed after ``view``'s commit (added, removed or given new words): the index holds them as
        they were, or not at all. :class:`IndexNotReady` when the log no longer reaches back to the commit or more
        than ``keyword_tail_max`` changed (a bulk load): FTS5 answers the whole search until the catch-up thread has
        applied them."""
        if view.applied >= view.head:
            return []
        found = self.search_log_since(view.applied)
        if found is None:
            raise IndexNotReady("the keyword index is behind a pruned log")
        rows = sorted(set(found[1]))
        if len(rows) > self.index_config.keyword_tail_max:
            raise IndexNotReady(f"{len(rows)} text rows changed since the keyword index's last commit")
        return rows

    def _confirmed(
        self, rows_table: str, candidates: Iterable[tuple[int, str]], where: VectorFilter
    ) -> list[tuple[int, str, str]]:
        """(row id, memory id, memory type) of each candidate (row id of ``rows_table``, memory type) whose memory
        passes ``where``: one SELECT per memory type among them, led by its candidates."""
        by_type: dict[str, list[int]] = {}
        for rowid, memory_type in candidates:
            by_type.setdefault(memory_type, []).append(int(rowid))
        selects, params = [], []
        for memory_type, rowids in by_type.items():
            conditions, values = self._row_conditions(where, "m", memory_type=memory_type)
            selects.append(
                f"SELECT r.rowid, r.memory_id, '{memory_type}' FROM json_each(?) j CROSS JOIN {rows_table} r "
                f"ON r.rowid = j.value CROSS JOIN {TABLES[memory_type]} m ON m.id = r.memory_id "
                f"WHERE {' AND '.join(conditions)}"
            )
            params += [json.dumps(rowids), *values]
        if not selects:
            return []
        with self._side_read() as db:
            rows: list[tuple[int, str, str]] = db.execute(" UNION ALL ".join(selects), params).fetchall()
        return rows

    def get_vectors(self, ids: Sequence[str], owner: Tenant | None = None) -> dict[str, np.ndarray]:
        """From the vector index's float32 copies when it is current (a point read from vec0 costs ~0.2 ms); inside a
        write transaction, or for rows the graph lacks, from the database."""
        if self.vector_index is None or not ids or self.held_by_this_thread():
            return super().get_vectors(ids, owner)
        if owner is not None:
            ids = list(self.get_memories(ids, owner=owner))
        found = self._from_index("vector", lambda: self._indexed_vectors(ids))
        return found if found is not None else super().get_vectors(ids)

    def _indexed_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        self.vector_index.ensure_fresh()
        with self._side_read() as db:
            rows = self._vector_rows(db, ids)
        return self._vectors_by_memory(rows)

    def _vector_rows(self, db: Any, ids: Sequence[str]) -> dict[str, int]:
        """The row of each memory's (first chunk's) vector among ``ids``."""
        return dict(
            db.execute(
                "SELECT memory_id, rowid FROM memory_vector_rows WHERE chunk_index = 0 AND memory_id IN "
                "(SELECT value FROM json_each(?))",
                [json.dumps(list(ids))],
            ).fetchall()
        )

    def _vectors_by_memory(self, rows: dict[str, int]) -> dict[str, np.ndarray]:
        """The vector of each memory in ``rows`` (memory -> vector row): the index's float32 copy, or the
        database's for a row the index lacks."""
        held = self.vector_index.vectors(list(rows.values()))
        found = {memory_id: held[row] for memory_id, row in rows.items() if row in held}
        missing = [memory_id for memory_id, row in rows.items() if row not in held]
        if missing:
            found.update(super().get_vectors(missing))
        return found

    def _turn_relevance_from_index(
        self, ids: Sequence[str], query: np.ndarray, unknown: Collection[str], before: int, after: int, weight: float
    ) -> TurnRelevance | None:
        """:meth:`~audrey_core.storage.Storage.turn_relevance` in one read: the windows and the vector rows of the
        turns among ``ids`` and of their neighbours (~240 on a store of turns), their unit vectors taken from the
        index's float32 copies as one matrix and blended in place by :func:`~audrey_core.rules.turns.blended_cosines`
        (a dictionary of the vectors, stacked again for the blend, cost more than the blend). None when the store
        holds no turns, this thread is inside a write, or the index cannot answer: the store then reads and blends as
        every backend does."""
        if self.vector_index is None or not ids or self.held_by_this_thread():
            return None
        if not presence(self, "turns").holds_any(self._read_value):
            return None
        return self._from_index(
            "vector", lambda: self._indexed_turn_relevance(ids, query, unknown, before, after, weight)
        )

    def _indexed_turn_relevance(
        self, ids: Sequence[str], query: np.ndarray, unknown: Collection[str], before: int, after: int, weight: float
    ) -> TurnRelevance:
        self.vector_index.ensure_fresh()
        speakers: dict[str, str | None] = {}
        own: dict[str, int | None] = {}  # each turn's vector row
        around: dict[str, list[int]] = {}  # the vector rows of each turn's neighbours (a turn with neighbours)
        with self._side_read() as db:
            found = db.execute(
                "SELECT c.id, c.speaker, rc.rowid, n.id, rn.rowid FROM json_each(?) j CROSS JOIN episodes c "
                "ON c.id = j.value LEFT JOIN memory_vector_rows rc ON rc.memory_id = c.id AND rc.chunk_index = 0 "
                f"LEFT JOIN episodes n ON {WINDOW.format(c='c', n='n')} "
                "LEFT JOIN memory_vector_rows rn ON rn.memory_id = n.id AND rn.chunk_index = 0 "
                "WHERE c.session IS NOT NULL OR c.speaker IS NOT NULL",
                [json.dumps(list(ids)), int(before), int(after)],
            ).fetchall()
            for memory_id, speaker, row, neighbour, neighbour_row in found:
                if memory_id not in speakers:
                    speakers[memory_id], own[memory_id] = speaker, row
                if neighbour is not None:
                    nearby = around.setdefault(memory_id, [])
                    if neighbour_row is not None:
                        nearby.append(neighbour_row)
            others = [i for i in ids if i in unknown and i not in speakers]  # found by their words, not turns
            asked = {i: r for i in ids if i in unknown and (r := own.get(i)) is not None}
            asked.update(self._vector_rows(db, others) if others else {})
        blended = {i: r for i, r in own.items() if r is not None and i in around}
        place: dict[int, int] = {}  # each vector row's place in the matrix (0: a zero vector, for padding)
        for row in (*blended.values(), *asked.values(), *(r for i in blended for r in around[i])):
            place.setdefault(row, len(place) + 1)
        if not place:
            return TurnRelevance(speakers, {}, {})
        rows = np.fromiter(place, dtype=np.int64, count=len(place))
        held, units = self.vector_index.unit_vectors(rows)
        units = np.vstack([np.zeros((1, units.shape[1]), dtype=np.float32), units])
        if not held.all():  # rows the index lacks: the database's copies (a row gone from both counts for nothing)
            pairs = [*((r, i) for _, _, _, i, r in found), *((r, i) for i, r in (*own.items(), *asked.items()))]
            memory_of = {r: i for r, i in pairs if r is not None}  # the memory of each vector row read
            lacking = {memory_of[row]: row for row, inside in zip(rows.tolist(), held.tolist()) if not inside}
            for memory_id, vector in super().get_vectors(list(lacking)).items():
                units[place[lacking.pop(memory_id)]] = vector / (np.linalg.norm(vector) or 1.0)
            asked = {i: r for i, r in asked.items() if i not in lacking}
            blended = {i: r for i, r in blended.items() if i not in lacking}
        asked_cosines = cosines({i: units[place[r]] for i, r in asked.items()}, query)
        in_context = blended_cosines(
            query, units, [place[r] for r in blended.values()], [[place[r] for r in around[i]] for i in blended], weight
        )
        return TurnRelevance(speakers, asked_cosines, dict(zip(blended, in_context.tolist())))

    def _graph_plan(self, where: VectorFilter, k: int) -> tuple[np.ndarray, int, int, int]:
        """The partitions ``where`` allows, the rows they hold, the graph's size, and how many of the graph's nearest
        to ask for ``k`` of them (the graph is searched whole: enough to hold a margin over ``k`` of ours)."""
        index = self.vector_index
        index.ensure_fresh()
        codes = index.codes_for(
            where.agent, where.memory_types, scope_test(where.scope, where.scope_prefix, where.scoped)
        )
        rows = index.rows_in(codes)
        size = index.size()
        return codes, rows, size, math.ceil(with_margin(k) * size / rows) if rows else 0

    def _graph_pays(self, rows: int, size: int, count: int) -> bool:
        """Whether asking the graph for ``count`` beats sqlite-vec's exact scan of ``rows`` and visits little of it."""
        cfg = self.index_config
        return count <= size * cfg.graph_max_share and rows * cfg.scan_us_per_row >= (
            GRAPH_US_BASE + count * GRAPH_US_PER_CANDIDATE
        )

    def _indexed_knn_many(
        self, vectors: np.ndarray, k: int, where: VectorFilter
    ) -> list[list[VectorHit] | None] | None:
        """:meth:`_indexed_knn` for several vectors in one search of the index and one confirming query; a vector
        whose first round finds fewer than ``k`` is None (the caller asks again for it alone, which widens). None
        when the scan is cheaper, as for one vector."""
        codes, rows, size, count = self._graph_plan(where, k)
        if rows == 0:
            return [[] for _ in vectors]
        if not self._graph_pays(rows, size, count):
            return None
        index = self.vector_index
        found = index.search_many(vectors, count, codes, few=True)  # a validation batch's few nearest
        union = np.unique(np.concatenate([keys for keys, _ in found])) if found else np.zeros(0, dtype=np.int64)
        confirmed = self._confirmed("memory_vector_rows", zip(union.tolist(), index.memory_types(union)), where)
        memory = {rowid: (memory_id, memory_type) for rowid, memory_id, memory_type in confirmed}
        results: list[list[VectorHit] | None] = []
        for keys, distances in found:
            passed = [
                (*memory[rowid], distance, rowid)
                for rowid, distance in zip(keys.tolist(), distances.tolist())
                if rowid in memory
            ]
            hits = self._best_chunk_per_memory(passed, k)
            results.append(hits if len(hits) >= k else None)
        return results

    def _indexed_knn(self, vector: np.ndarray, k: int, where: VectorFilter) -> list[VectorHit] | None:
        """The ``k`` nearest memories through the graph; None when sqlite-vec's exact scan of the filter's
        partitions is cheaper (a small tenant or scope) or the graph cannot find ``k`` without visiting most of
        itself, so the caller scans instead. Results equal the scan's whenever the graph finds the true nearest."""
        codes, rows, size, count = self._graph_plan(where, k)
        if rows == 0:
            return []
        index = self.vector_index
        while self._graph_pays(rows, size, count):
            keys, distances = index.search(vector, count, codes)
            distance = dict(zip(keys.tolist(), distances.tolist()))
            confirmed = self._confirmed("memory_vector_rows", zip(distance, index.memory_types(keys)), where)
            found = [(memory_id, t, distance[rowid], rowid) for rowid, memory_id, t in confirmed]
            hits = self._best_chunk_per_memory(found, k)
            if len(hits) >= k:
                return hits
            count *= 4
        return None
