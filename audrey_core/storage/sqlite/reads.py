"""SQLite storage reads: KNN with every filter inside the vec0 scan, FTS5 keyword search, vectors, lineage."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...rules.filters import Filter
from ...rules.keywords import COMMON_TERM_MIN_ROWS, informative_terms
from ..base import KeywordHit, VectorFilter, VectorHit
from ..sql.filters import compile_filter, scope_match
from ..sql.migrations import FTS_TABLE
from .span_search import SQLiteSpanSearch, fts_matches


def _quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class SQLiteReads(SQLiteSpanSearch):
    """A part of :class:`SQLiteStorage`: searches, through the indexes when it can."""

    def _metadata_sql(self, flt: Filter, column: str) -> tuple[str, list[Any]]:
        return compile_filter(flt, column)

    def knn(self, vector: np.ndarray, k: int, where: VectorFilter) -> list[VectorHit]:
        if k <= 0 or self.vector_error is not None:
            return []  # without sqlite-vec nothing has a vector to be near
        conditions = self._vector_conditions(where)
        if conditions is None:
            return []
        # a narrow time span: its memories, searched exactly
        span = self.span_memories(where, self.index_config.span_exact_upto)
        if span is not None:
            return self._knn_among(vector, k, span)
        if self.vector_index is not None:
            hits = self._from_index("vector", lambda: self._indexed_knn(vector, k, where))
            if hits is not None:
                return hits
        query = np.ascontiguousarray(vector, dtype=np.float32).tobytes()
        sql = f"SELECT memory_id, memory_type, distance, rowid FROM {self.vector_table} "
        sql += "WHERE embedding MATCH ? AND k = ?"
        sql += "".join(f" AND {c}" for c in conditions[0])
        params = [query, int(k), *conditions[1]]
        # Inside a transaction the main connection, which sees its rows; otherwise the side one, so a scan (100 ms
        # and more while an index is rebuilt) does not hold up this process's writes.
        with self._read() if self.held_by_this_thread() else self._side_read() as db:
            rows = db.execute(sql, params).fetchall()
        # several partitions each return their own k nearest; a memory counts once, by its best chunk
        return self._best_chunk_per_memory(rows, k)

    def knn_many(self, vectors: np.ndarray, k: int, where: VectorFilter) -> list[list[VectorHit]]:
        """:meth:`knn` for several vectors: through the vector index in one search where it answers (one lock, one
        matrix product when it scans, one confirming query), else one by one."""
        found = None
        if k > 0 and self.vector_error is None and self.vector_index is not None:
            matchable = self._vector_conditions(where) is not None
            if matchable and not self.span_memories(where, self.index_config.span_exact_upto):  # a span: its own scan
                found = self._from_index("vector", lambda: self._indexed_knn_many(vectors, k, where))
        if found is None:  # one by one
            found = [None] * len(vectors)
        return [hits if hits is not None else self.knn(vector, k, where) for vector, hits in zip(vectors, found)]

    def keyword_search(self, terms: Sequence[str], k: int, where: VectorFilter) -> list[KeywordHit]:
        """Memories matching any of ``terms`` (BM25 over the whole text), best first, with ``where`` applied.

        FTS5 ranks its matches first (ORDER BY rank with a limit, the fast path); the filters then join only those.
        When filters leave fewer than ``k``, the FTS limit widens until every match has been seen."""
        if not terms or k <= 0:
            return []
        # a narrow time span: its memories, searched exactly
        span = self.span_memories(where, self.index_config.span_exact_upto)
        if span is not None:
            return self._keyword_among(terms, k, span, f"{{content context}} : ({self._fts_words(terms)})")
        if self.keyword_index is not None:
            found = self._from_index("keyword", lambda: self._indexed_keyword_search(terms, k, where))
            if found is not None:
                return found
        return self._fts_keyword_search(terms, k, where)

    def _fts_keyword_search(
        self, terms: Sequence[str], k: int, where: VectorFilter, rows: Sequence[int] | None = None
    ) -> list[KeywordHit]:
        """:meth:`keyword_search` through FTS5 (``rows``: among these text rows only, the keyword index's tail)."""
        words = self._fts_words(terms)
        match = " AND ".join(
            [
                *(f"scopes : {w}" for w in scope_match(where.scope, where.scope_prefix)),
                f"{{content context}} : ({words})",
            ]
        )
        union, params = self._over_tables(
            where,
            lambda t, table: (
                f"SELECT t.memory_id, '{t}', f.rank FROM found f CROSS JOIN memory_text_rows t "
                f"ON t.rowid = f.rowid CROSS JOIN {table} m ON m.id = t.memory_id"  # matches lead
            ),
        )
        matches, match_params = fts_matches(match, rows)
        limit = max(4 * k, 50)
        while True:
            with self._side_read() as db:
                found = db.execute(
                    f"WITH found AS (SELECT rowid, rank FROM ({matches}) ORDER BY rank LIMIT ?) {union} "
                    "ORDER BY 3, 1 LIMIT ?",
                    [*match_params, limit, *params, int(k)],
                ).fetchall()
                if len(found) >= k:
                    break
                matched = db.execute(f"SELECT COUNT(*) FROM ({matches})", match_params).fetchone()
            if matched[0] <= limit:
                break
            limit *= 4
        return [KeywordHit(memory_id, memory_type, -float(rank)) for memory_id, memory_type, rank in found]

    def _fts_words(self, terms: Sequence[str]) -> str:
        """An FTS5 expression matching any of the informative ``terms``."""
        return " OR ".join(_quoted(term) for term in self._informative_terms(terms))

    def _informative_terms(self, terms: Sequence[str]) -> list[str]:
        """The terms worth ranking (:func:`~audrey_core.rules.keywords.informative_terms`), counted through FTS5."""
        with self._side_read() as db:
            total = db.execute("SELECT COUNT(*) FROM memory_text_rows").fetchone()[0]
            if total < COMMON_TERM_MIN_ROWS:
                return list(terms)
            query = f"SELECT COUNT(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?"
            counts = self._term_counts.get(terms, total, lambda t: db.execute(query, [_quoted(t)]).fetchone()[0])
        return informative_terms(terms, counts, total)

    def _json_elements(self, column: str) -> str:
        return f"json_each({column}) AS j"
