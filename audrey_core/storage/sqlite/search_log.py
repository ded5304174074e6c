"""What SQLite gives the derived search indexes: the logs of text-row and vector-row changes and the rows
themselves, as committed (the side connection; never a transaction in progress, which could still roll back)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..sql.filters import decode_scope, scope_tokens
from ..sql.rows import TABLES
from .parts import SQLiteParts

BATCH = 10_000
PAGE_CHUNKS = 16  # vec0 chunks read per query by a rebuild (~1,000 vectors), the side connection let go between


class SQLiteSearchLog(SQLiteParts):
    """A part of :class:`SQLiteStorage`."""

    # -- the change logs ------------------------------------------------------------------------------------------

    def _log_head(self, log: str) -> int:
        with self._side_read() as db:
            row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", [log]).fetchone()
        return int(row[0]) if row else 0

    def _log_since(self, log: str, column: str, seq: int) -> tuple[int, list[int]] | None:
        """The last change and the rows changed after ``seq``; None when the log no longer reaches back."""
        with self._side_read() as db:
            db.execute("BEGIN")  # one snapshot for the head and the rows
            try:
                head_row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", [log]).fetchone()
                rows = db.execute(f"SELECT seq, {column} FROM {log} WHERE seq > ? ORDER BY seq", [int(seq)]).fetchall()
            finally:
                db.execute("COMMIT")
        head = int(head_row[0]) if head_row else 0
        if head <= seq:
            return seq, []
        if not rows or rows[0][0] != seq + 1:
            return None
        return int(rows[-1][0]), [int(r[1]) for r in rows]

    def _prune_log(self, log: str, upto: int) -> None:
        with self._write() as db:
            db.execute(f"DELETE FROM {log} WHERE seq <= ?", [int(upto)])

    def search_log_head(self) -> int:
        return self._log_head("search_changes")

    def search_log_since(self, seq: int) -> tuple[int, list[int]] | None:
        return self._log_since("search_changes", "text_rowid", seq)

    def prune_search_log(self, upto: int) -> None:
        self._prune_log("search_changes", upto)

    def vector_log_head(self) -> int:
        return self._log_head("vector_changes")

    def vector_log_since(self, seq: int) -> tuple[int, list[int]] | None:
        return self._log_since("vector_changes", "vector_rowid", seq)

    def prune_vector_log(self, upto: int) -> None:
        self._prune_log("vector_changes", upto)

    # -- the rows ---------------------------------------------------------------------------------------------------

    def text_row_count(self) -> int:
        """How many text rows the store holds (what a rebuild of the keyword index would add)."""
        with self._side_read() as db:
            return int(db.execute("SELECT COUNT(*) FROM memory_text_rows").fetchone()[0])

    def text_documents(self, rowids: Sequence[int] | None) -> Iterator[tuple[int, str, str, str, str, str]]:
        """(text row id, agent, memory type, scope words, content, neighbours' words) for ``rowids`` (None: every row,
        a window of BATCH row ids per query, the side connection let go between windows)."""
        if rowids is None:
            with self._side_read() as db:
                top = int(db.execute("SELECT COALESCE(MAX(rowid), 0) FROM memory_text_rows").fetchone()[0])
            windows = [(low, low + BATCH) for low in range(0, top, BATCH)]
            for low, high in windows:
                yield from self._text_rows("t.rowid > ? AND t.rowid <= ?", [low, high])
            return
        for start in range(0, len(rowids), BATCH):
            batch = json.dumps(list(rowids[start : start + BATCH]))
            yield from self._text_rows("t.rowid IN (SELECT value FROM json_each(?))", [batch])

    def _text_rows(self, condition: str, values: list[Any]) -> Iterator[tuple[int, str, str, str, str, str]]:
        selects, params = [], []
        for memory_type, table in TABLES.items():
            selects.append(
                f"SELECT t.rowid, m.agent, '{memory_type}', m.scope, m.content, t.context FROM memory_text_rows t "
                f"JOIN {table} m ON m.id = t.memory_id WHERE {condition}"
            )
            params += values
        with self._side_read() as db:
            rows = db.execute(" UNION ALL ".join(selects), params).fetchall()
        for rowid, agent, memory_type, scope, content, context in rows:
            yield int(rowid), agent, memory_type, scope_tokens(decode_scope(scope)), content, context or ""

    def vector_identity(self) -> dict[str, Any]:
        """What a vector index must have been built from to be used here."""
        return {
            "store": self.store_id,
            "model": self.model_name,
            "dimensions": self.dimensions,
            "table": self.vector_table,
        }

    def vector_row_count(self) -> int:
        """How many vector rows the store holds (what a rebuild of the vector index would insert)."""
        with self._side_read() as db:
            return int(db.execute("SELECT COUNT(*) FROM memory_vector_rows").fetchone()[0])

    def vector_documents(
        self, rowids: Sequence[int] | None
    ) -> Iterator[tuple[np.ndarray, list[tuple[str, str, str]], np.ndarray]]:
        """Batches of (vector row ids, (agent, memory type, encoded scope) of each, float32 vectors) for ``rowids``
        (None: every row), read chunk by chunk from vec0's own tables: a point read through vec0 costs ~0.2 ms, as
        much as reading the whole chunk of VECTOR_CHUNK_SIZE vectors it sits in."""
        table = self.vector_table
        chunks = "SELECT c.chunk_id, c.partition00, c.partition01, c.partition02, c.validity, c.rowids, v.vectors "
        # vec0 declares the vector table's key without a type: compared with the INTEGER chunk id it would take
        # numeric affinity, which keeps SQLite from its index and scanned the whole table per chunk (33 ms for
        # 1,000 rows at 1M memories); the unary + leaves the comparison without affinity, so the index is used
        chunks += f"FROM {table}_chunks c JOIN {table}_vector_chunks00 v ON v.rowid = +c.chunk_id"
        conditions, params = ["c.chunk_id > ?"], []
        wanted = None
        if rowids is not None:
            if not rowids:
                return
            wanted = np.asarray(sorted(set(rowids)), dtype=np.int64)
            conditions.append(
                f"c.chunk_id IN (SELECT DISTINCT chunk_id FROM {table}_rowids WHERE rowid IN "
                "(SELECT value FROM json_each(?)))"
            )
            params.append(json.dumps(wanted.tolist()))
        chunks += f" WHERE {' AND '.join(conditions)} ORDER BY c.chunk_id LIMIT {PAGE_CHUNKS}"
        last = -1
        while True:  # a page at a time, the side connection let go between pages: a rebuild reads every chunk
            with self._side_read() as db:
                rows = db.execute(chunks, [last, *params]).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            for _, agent, scope, memory_type, validity, ids, vectors in rows:
                ids = np.frombuffer(ids, dtype=np.int64)
                valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[: len(ids)] == 1
                if wanted is not None:
                    valid &= np.isin(ids, wanted)
                if valid.any():
                    matrix = np.frombuffer(vectors, dtype=np.float32).reshape(len(ids), -1)
                    kept = np.flatnonzero(valid)
                    yield ids[kept].astype(np.uint64), [(agent, memory_type, scope)] * len(kept), matrix[kept]

    # -- status -----------------------------------------------------------------------------------------------------

    def search_indexes(self) -> list[dict[str, Any]]:
        found = []
        if self.keyword_index is None:
            found.append({"engine": "fts5", "kind": "keyword", "note": "tantivy is not importable: SQLite FTS5 ranks"})
        else:
            found.append({"kind": "keyword", **self.keyword_index.status()})
        if self.vector_index is not None:
            found.append({"kind": "vector", **self.vector_index.status()})
        elif self.vector_error is None:
            found.append(
                {"engine": "sqlite-vec", "kind": "vector", "note": "usearch is not importable: vectors are scanned"}
            )
        return found

    def rebuild_search_indexes(self) -> list[dict[str, Any]]:
        for index in (self.keyword_index, self.vector_index):
            if index is not None:
                index.rebuild()
        return self.search_indexes()
