"""Searches among the memories of a narrow time span, on SQLite: "what did we say on 9 May" asks about a few dozen
memories of a large store, and neither index can apply a time range itself (filtering their candidates widened the
search to most of the store: 250 ms at 100k). When the span holds at most ``IndexConfig.span_exact_upto`` memories (read
through the time indexes), those are searched exactly: their vectors scored from the vector index's float32 copies
(else from the database), their words ranked by the keyword index restricted to their rows (else FTS5)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..base import KeywordHit, VectorHit
from ..sql.migrations import FTS_TABLE
from .indexed_search import SQLiteIndexedSearch


class SQLiteSpanSearch(SQLiteIndexedSearch):
    """A part of :class:`SQLiteStorage`."""

    def _connection(self) -> Any:
        # inside a transaction the main connection, which sees its rows; otherwise the side one
        return self._read() if self.held_by_this_thread() else self._side_read()

    def _rows_of(self, table: str, span: Mapping[str, str]) -> list[tuple[int, str]]:
        """(row id, memory id) of ``table``'s rows (vector or text rows) for the span's memories."""
        with self._connection() as db:
            rows = db.execute(
                f"SELECT rowid, memory_id FROM {table} WHERE memory_id IN (SELECT value FROM json_each(?))",
                [json.dumps(list(span))],
            ).fetchall()
        return [(int(rowid), memory_id) for rowid, memory_id in rows]

    def _knn_among(self, vector: np.ndarray, k: int, span: Mapping[str, str]) -> list[VectorHit]:
        """The ``k`` nearest of the span's memories (each by its nearest chunk), exactly."""
        rows = self._rows_of("memory_vector_rows", span) if span and k > 0 else []
        if not rows:
            return []
        rowids = [rowid for rowid, _ in rows]
        held: dict[int, np.ndarray] = {}
        if self.vector_index is not None:
            held = self._from_index("vector", lambda: self._held_vectors(rowids)) or {}
        missing = [rowid for rowid in rowids if rowid not in held]
        if missing:
            with self._connection() as db:
                found = db.execute(
                    f"SELECT rowid, embedding FROM {self.vector_table} WHERE rowid IN (SELECT value FROM json_each(?))",
                    [json.dumps(missing)],
                ).fetchall()
            held.update((int(rowid), self._to_array(blob)) for rowid, blob in found)
        scored = [(rowid, memory_id) for rowid, memory_id in rows if rowid in held]
        if not scored:
            return []
        matrix = np.vstack([held[rowid] for rowid, _ in scored]).astype(np.float32)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(vector) or 1.0)
        distances = 1.0 - (matrix @ vector) / np.where(norms > 0, norms, 1.0)
        found_rows = [(m, span[m], float(d), rowid) for (rowid, m), d in zip(scored, distances.tolist())]
        return self._best_chunk_per_memory(found_rows, k)

    def _held_vectors(self, rowids: Sequence[int]) -> dict[int, np.ndarray]:
        index = self.vector_index
        index.ensure_fresh()
        held: dict[int, np.ndarray] = index.vectors(rowids)
        return held

    def _keyword_among(self, terms: Sequence[str], k: int, span: Mapping[str, str], words: str) -> list[KeywordHit]:
        """The ``k`` best keyword matches among the span's memories (``words``: the FTS5 query, if it comes to it)."""
        rows = self._rows_of("memory_text_rows", span) if span and k > 0 else []
        if not rows:
            return []
        memory_of = dict(rows)
        if self.keyword_index is not None:
            hits = self._from_index("keyword", lambda: self._indexed_among(terms, k, list(memory_of)))
            if hits is not None:
                return [KeywordHit(memory_of[row], span[memory_of[row]], score) for row, score in hits]
        with self._side_read() as db:
            found = db.execute(
                f"SELECT rowid, rank FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? AND rowid IN "
                "(SELECT value FROM json_each(?)) ORDER BY rank LIMIT ?",
                [words, json.dumps(list(memory_of)), int(k)],
            ).fetchall()
        return [KeywordHit(memory_of[row], span[memory_of[row]], -float(rank)) for row, rank in found]

    def _indexed_among(self, terms: Sequence[str], k: int, rows: Sequence[int]) -> list[tuple[int, float]]:
        index = self.keyword_index
        index.ensure_fresh()
        hits: list[tuple[int, float]] = index.search(terms, k, rows=rows).hits
        return hits
