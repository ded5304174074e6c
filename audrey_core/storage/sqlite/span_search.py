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

MAX_ROW_RUNS = 64  # more separate runs of rows than this: one membership test per row of the match instead


def fts_matches(match: str, rows: Sequence[int] | None) -> tuple[str, list[Any]]:
    """An FTS5 query for ``(rowid, rank)`` of the rows matching the expression ``match``, among ``rows`` if given, and
    its parameters. The rows go in as runs of consecutive row ids, each a range FTS5 seeks to (0.3 ms for 5,000 rows
    of a 60k store): a list of them (``rowid IN``) costs FTS5 a lookup a row (525 ms)."""
    select = f"SELECT rowid, rank FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?"
    if rows is None:
        return select, [match]
    ordered = sorted(set(rows))
    runs: list[list[int]] = []
    for row in ordered:
        if runs and row == runs[-1][1] + 1:
            runs[-1][1] = row
        else:
            runs.append([row, row])
    if len(runs) > MAX_ROW_RUNS:
        return f"{select} AND rowid IN (SELECT value FROM json_each(?))", [match, json.dumps(ordered)]
    sql = " UNION ALL ".join(f"{select} AND rowid BETWEEN ? AND ?" for _ in runs)
    return sql, [part for first, last in runs for part in (match, first, last)]


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
            hits = self._from_index("keyword", lambda: self._indexed_among(terms, k, list(memory_of), words))
            if hits is not None:
                return [KeywordHit(memory_of[row], span[memory_of[row]], score) for row, score in hits]
        found = self._fts_among(words, list(memory_of), k)
        return [KeywordHit(memory_of[row], span[memory_of[row]], score) for row, score in found]

    def _fts_among(self, words: str, rows: Sequence[int], k: int) -> list[tuple[int, float]]:
        """The ``k`` best of ``rows`` for the FTS5 query ``words``: (text row, BM25), best first."""
        matches, params = fts_matches(words, rows)
        with self._side_read() as db:
            found = db.execute(f"SELECT rowid, rank FROM ({matches}) ORDER BY rank LIMIT ?", [*params, k]).fetchall()
        return [(int(row), -float(rank)) for row, rank in found]

    def _indexed_among(self, terms: Sequence[str], k: int, rows: Sequence[int], words: str) -> list[tuple[int, float]]:
        """The index's last commit ranks the rows it holds as they are, FTS5 those changed since."""
        index = self.keyword_index
        view = index.view()
        changed = set(self._keyword_tail(view)) & set(rows)
        held = [row for row in rows if row not in changed]
        hits: list[tuple[int, float]] = index.search(terms, k, rows=held, view=view).hits if held else []
        if changed:
            hits = sorted([*hits, *self._fts_among(words, sorted(changed), k)], key=lambda h: (-h[1], h[0]))[:k]
        return hits
