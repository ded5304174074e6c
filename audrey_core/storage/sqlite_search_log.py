"""What SQLite gives the derived search indexes: its log of text-row changes and the rows themselves, as committed
(the side connection; never a transaction in progress, which could still roll back)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from .base import KeywordHit, VectorFilter
from .rows import TABLES
from .sql_filters import decode_scope, scope_match, scope_tokens

BATCH = 10_000


class SQLiteSearchLog:
    """Mixed into :class:`SQLiteStorage`."""

    keyword_index: Any

    def search_log_head(self) -> int:
        with self._side_read() as db:
            return self._head(db)

    @staticmethod
    def _head(db: Any) -> int:
        row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'search_changes'").fetchone()
        return int(row[0]) if row else 0

    def search_log_since(self, seq: int) -> tuple[int, list[int]] | None:
        """The last change and the text rows changed after ``seq``; None when the log no longer reaches back."""
        with self._side_read() as db:
            db.execute("BEGIN")  # one snapshot for the head and the rows
            try:
                head = self._head(db)
                rows = db.execute(
                    "SELECT seq, text_rowid FROM search_changes WHERE seq > ? ORDER BY seq", [int(seq)]
                ).fetchall()
            finally:
                db.execute("COMMIT")
        if head <= seq:
            return seq, []
        if not rows or rows[0][0] != seq + 1:
            return None
        return int(rows[-1][0]), [int(r[1]) for r in rows]

    def text_documents(self, rowids: Sequence[int] | None) -> Iterator[tuple[int, str, str, str, str]]:
        """(text row id, agent, memory type, scope words, content) for ``rowids`` (None: every row)."""
        batches: list[Sequence[int] | None] = (
            [None] if rowids is None else [rowids[i : i + BATCH] for i in range(0, len(rowids), BATCH)]
        )
        for batch in batches:
            selects, params = [], []
            for memory_type, table in TABLES.items():
                sql = (
                    f"SELECT t.rowid, m.agent, '{memory_type}', m.scope, m.content FROM memory_text_rows t "
                    f"JOIN {table} m ON m.id = t.memory_id"
                )
                if batch is not None:
                    sql += " WHERE t.rowid IN (SELECT value FROM json_each(?))"
                    params.append(json.dumps(list(batch)))
                selects.append(sql)
            with self._side_read() as db:
                rows = db.execute(" UNION ALL ".join(selects), params).fetchall()
            for rowid, agent, memory_type, scope, content in rows:
                yield int(rowid), agent, memory_type, scope_tokens(decode_scope(scope)), content

    def search_indexes(self) -> list[dict[str, Any]]:
        if self.keyword_index is None:
            return [{"engine": "fts5", "kind": "keyword", "note": "tantivy is not importable: SQLite FTS5 ranks"}]
        return [{"kind": "keyword", **self.keyword_index.status()}]

    def rebuild_search_indexes(self) -> list[dict[str, Any]]:
        if self.keyword_index is not None:
            self.keyword_index.rebuild()
        return self.search_indexes()

    def prune_search_log(self, upto: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM search_changes WHERE seq <= ?", [int(upto)])

    def _in_write_transaction(self) -> bool:
        return bool(self._depth) and self.held_by_this_thread()

    def _indexed_keyword_search(self, terms: Sequence[str], k: int, where: VectorFilter) -> list[KeywordHit]:
        """Candidates from the keyword index (agent, type and scope filtered inside it), every other filter
        confirmed in the database; the candidate list widens until ``k`` pass or none are left."""
        index = self.keyword_index
        if not self._in_write_transaction():  # inside one, the log may hold changes that could still roll back
            index.ensure_fresh()
        union, params = self._over_tables(
            where,
            lambda t, table: (
                f"SELECT t.memory_id, '{t}', f.rank FROM found f JOIN memory_text_rows t "
                f"ON t.rowid = f.rowid JOIN {table} m ON m.id = t.memory_id"
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
