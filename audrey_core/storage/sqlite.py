"""The SQLite + sqlite-vec backend: one file (or ``:memory:``), one connection, every write one transaction.

Why one vector table: all vectors live in a single vec0 table (named in ``audrey_config.vector_table``) with the
memory type as a discriminator (seed 003), metadata columns for type, state, source and consolidated flag (seed 000
§2), and agent and scope as vec0 partition keys. So:

* recall across episodic, semantic and procedural memories is one KNN scan, not three merged by hand;
* type, state, source and consolidated filters run inside the KNN scan (k counts only matching rows), tags through a
  ``rowid IN (subquery)`` constraint that sqlite-vec also applies during the scan;
* agent and scope are partition keys: a query scans only its agent's vectors, and a scoped query only its scope's
  (a scope prefix is a range over the partition key, exact by construction of the encoding), so another tenant's
  volume costs it nothing (sqlite-vec answers a partition constraint matching several partitions with k rows per
  partition; :meth:`knn` merges them);
* a memory may own several vector rows (chunks of a long text) through ``memory_vector_rows``, which also indexes
  memory id -> vec0 rowid for state updates.

vec0 shadow tables are ordinary SQLite tables, so a memory row and its vector commit or roll back together.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ClosedError, EmbeddingMismatchError, StorageError
from ..models import Episode, Memory
from ..timeutil import to_iso
from .base import MUTABLE_MEMORY_FIELDS, Storage
from .connection import connect, load_sqlite_vec, placeholders, sqlite_module
from .migrations import FTS_TABLE, VECTOR_TABLE, migrate, vector_table_sql
from .rows import COLUMNS, TABLES, encode_value, memory_to_row
from .sql_filters import encode_scope, scope_tokens
from .sqlite_maintenance import SQLiteMaintenance
from .sqlite_reads import SQLiteReads
from .sqlite_records import SQLiteRecords


class SQLiteStorage(SQLiteMaintenance, SQLiteReads, SQLiteRecords, Storage):
    """Audrey's embedded store. Thread-safe: one connection guarded by a re-entrant lock."""

    def __init__(self, path: str | Path, *, model_name: str, dimensions: int) -> None:
        self.path = str(path)
        if self.path != ":memory:" and not self.path.startswith("file:"):
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._depth = 0  # nesting of write transactions on the thread holding the lock
        module = sqlite_module()
        self._db_error: type[BaseException] = module.Error
        self._conn: Any = connect(self.path, module=module, vectors=False)
        self.vector_error: str | None = None  # why vector search is unavailable, if it is
        try:
            load_sqlite_vec(self._conn)
        except StorageError as exc:
            self.vector_error = str(exc)
            warnings.warn(
                f"Audrey is running without vector search: {exc}. It recalls by keyword only and stores memories "
                "without vectors; once sqlite-vec loads, run `audrey backfill` to embed them.",
                RuntimeWarning,
                stacklevel=2,
            )
        self._closed = False
        self._holder: int | None = None  # the thread inside _read(), if any
        self._side: Any = None  # a second connection for reads that may run beside the main one (file stores)
        self._side_lock = threading.Lock()
        self._term_counts: dict[str, tuple[int, int]] = {}  # term -> (memories containing it, store size then)
        try:
            stored = self._stored_embedding()
            if stored is not None and stored != (model_name, int(dimensions)):
                raise EmbeddingMismatchError(
                    f"{self.path} was built with embedding model {stored[0]!r} ({stored[1]} dimensions) but was "
                    f"opened with {model_name!r} ({dimensions} dimensions); open it with the original embedder "
                    "or re-embed the store into a new file"
                )
            migrate(self._conn, int(dimensions))
            if stored is None:
                with self._write() as db:
                    db.executemany(
                        "INSERT INTO audrey_config (key, value) VALUES (?, ?)",
                        [
                            ("embedding_model", model_name),
                            ("embedding_dimensions", str(int(dimensions))),
                            ("vector_table", VECTOR_TABLE),
                        ],
                    )
            self.vector_table = self._conn.execute(
                "SELECT value FROM audrey_config WHERE key = 'vector_table'"
            ).fetchone()[0]
            if self.vector_error is None:
                with self._write() as db:
                    db.execute(vector_table_sql(self.vector_table, int(dimensions)))
                self.upgrade_vector_layout()
        except BaseException:
            self._conn.close()
            self._closed = True
            raise
        self.model_name = model_name
        self.dimensions = int(dimensions)
        if self.path != ":memory:" and not self.path.startswith("file:"):
            self._side = connect(self.path, module=module, vectors=self.vector_error is None)

    # -- plumbing ---------------------------------------------------------------------------------------------

    def _stored_embedding(self) -> tuple[str, int] | None:
        has_config = self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audrey_config'"
        ).fetchone()
        if not has_config:
            return None
        values = dict(self._conn.execute("SELECT key, value FROM audrey_config").fetchall())
        if "embedding_model" not in values:
            return None
        return values["embedding_model"], int(values["embedding_dimensions"])

    def held_by_this_thread(self) -> bool:
        """True while the calling thread is inside a read or write of this store (e.g. a transaction)."""
        return self._holder == threading.get_ident()

    @contextmanager
    def _read(self) -> Iterator[Any]:
        with self._lock:
            if self._closed:
                raise ClosedError("this Audrey store is closed; open a new Audrey instance")
            outer, self._holder = self._holder, threading.get_ident()
            try:
                yield self._conn
            except (StorageError, ClosedError):
                raise
            except self._db_error as exc:
                raise StorageError(f"SQLite error on {self.path}: {exc}") from exc
            finally:
                self._holder = outer

    @contextmanager
    def _side_read(self) -> Iterator[Any]:
        """The side connection when there is one (so a keyword search can run while the main connection scans
        vectors), else the main connection. It sees committed data only."""
        if self._side is None:
            with self._read() as db:
                yield db
            return
        with self._side_lock:
            if self._closed:
                raise ClosedError("this Audrey store is closed; open a new Audrey instance")
            try:
                yield self._side
            except self._db_error as exc:
                raise StorageError(f"SQLite error on {self.path}: {exc}") from exc

    @contextmanager
    def _write(self) -> Iterator[Any]:
        with self._read() as db:
            if self._depth:  # already inside a transaction on this thread: join it
                self._depth += 1
                try:
                    yield db
                finally:
                    self._depth -= 1
                return
            db.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield db
            except BaseException:
                self._depth = 0
                db.execute("ROLLBACK")
                raise
            self._depth = 0
            db.execute("COMMIT")

    def transaction(self) -> Any:
        return self._write()

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()
                if self._side is not None:
                    with self._side_lock:
                        self._side.close()

    # -- writes -----------------------------------------------------------------------------------------------

    def insert_memories(
        self,
        memories: Sequence[Memory],
        vectors: np.ndarray | None,
        replace: bool = False,
        chunks: Sequence[Sequence[tuple[int, int]]] | None = None,
    ) -> None:
        expected = len(memories) if chunks is None else sum(len(c) for c in chunks)
        if vectors is not None and expected != len(vectors):
            raise StorageError(f"{expected} vectors expected for {len(memories)} memories, got {len(vectors)}")
        if not memories:
            return
        with self._write() as db:
            if replace:
                self._delete(db, [m.id for m in memories])
            for memory_type in TABLES:
                rows = [memory_to_row(m) for m in memories if m.memory_type == memory_type]
                if rows:
                    columns = COLUMNS[memory_type]
                    db.executemany(
                        f"INSERT INTO {TABLES[memory_type]} ({', '.join(columns)}) VALUES ({placeholders(columns)})",
                        rows,
                    )
            db.executemany(
                "INSERT INTO memory_tags (tag, memory_id) VALUES (?, ?)",
                [(tag, m.id) for m in memories for tag in dict.fromkeys(m.tags)],
            )
            self._write_text(db, memories)
            if vectors is not None:
                self._write_vectors(db, memories, vectors, chunks)
            for memory in memories:
                if isinstance(memory, Episode) and memory.supersedes:
                    self._mark_superseded(db, memory.supersedes, memory.id)

    @staticmethod
    def _write_text(db: Any, memories: Sequence[Memory]) -> None:
        """Full-text rows for new memories (the whole text, however many vector chunks it has)."""
        first = db.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM memory_text_rows").fetchone()[0]
        db.executemany(
            "INSERT INTO memory_text_rows (rowid, memory_id) VALUES (?, ?)",
            [(first + i, m.id) for i, m in enumerate(memories)],
        )
        db.executemany(
            f"INSERT INTO {FTS_TABLE} (rowid, content, scopes) VALUES (?, ?, ?)",
            [(first + i, m.content, scope_tokens(m.scope)) for i, m in enumerate(memories)],
        )

    def vector_search_error(self) -> str | None:
        return self.vector_error

    def _require_vectors(self) -> None:
        if self.vector_error is not None:
            raise StorageError(f"vector search is unavailable: {self.vector_error}")

    def _write_vectors(
        self,
        db: Any,
        memories: Sequence[Memory],
        vectors: np.ndarray,
        chunks: Sequence[Sequence[tuple[int, int]]] | None = None,
    ) -> None:
        """Vector rows for memories that have none yet (one per chunk span, or one each), in the active vector
        table; without sqlite-vec the memories stay vector-less (a later backfill embeds them)."""
        if self.vector_error is not None:
            return
        matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        spans = chunks if chunks is not None else [[(0, len(m.content))] for m in memories]
        rowid = db.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM memory_vector_rows").fetchone()[0]
        rows, owned = [], []
        for memory, memory_spans in zip(memories, spans):
            whole = len(memory_spans) == 1
            for index, (start, end) in enumerate(memory_spans):
                rows.append(
                    (rowid, memory.id, memory.memory_type, index, None if whole else start, None if whole else end)
                )
                owned.append((rowid, memory))
                rowid += 1
        db.executemany(
            "INSERT INTO memory_vector_rows (rowid, memory_id, memory_type, chunk_index, chunk_start, chunk_end) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        self._insert_vector_rows(db, self.vector_table, owned, matrix)

    @staticmethod
    def _insert_vector_rows(db: Any, table: str, rows: Sequence[tuple[int, Memory]], matrix: np.ndarray) -> None:
        db.executemany(
            f"INSERT INTO {table} (rowid, agent, embedding, memory_type, state, source, consolidated, scope, "
            "memory_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    rowid,
                    m.agent,
                    np.ascontiguousarray(matrix[i], dtype=np.float32).tobytes(),
                    m.memory_type,
                    m.state,
                    m.source,
                    int(getattr(m, "consolidated", False)),
                    encode_scope(m.scope),
                    m.id,
                )
                for i, (rowid, m) in enumerate(rows)
            ],
        )

    def delete_memories(self, ids: Sequence[str]) -> list[str]:
        if not ids:
            return []
        with self._write() as db:
            return self._delete(db, ids)

    def _delete(self, db: Any, ids: Sequence[str]) -> list[str]:
        ids = list(dict.fromkeys(ids))
        marks = placeholders(ids)
        existing = [
            row[0]
            for table in TABLES.values()
            for row in db.execute(f"SELECT id FROM {table} WHERE id IN ({marks})", ids)
        ]
        if not existing:
            return []
        marks = placeholders(existing)
        rowids = db.execute(f"SELECT rowid FROM memory_vector_rows WHERE memory_id IN ({marks})", existing).fetchall()
        if self.vector_error is None:
            db.executemany(
                f"DELETE FROM {self.vector_table} WHERE rowid = ?", rowids
            )  # one by one: see _sync_vector_state
        db.execute(f"DELETE FROM memory_vector_rows WHERE memory_id IN ({marks})", existing)
        db.execute(
            f"DELETE FROM {FTS_TABLE} WHERE rowid IN (SELECT rowid FROM memory_text_rows WHERE memory_id IN ({marks}))",
            existing,
        )
        db.execute(f"DELETE FROM memory_text_rows WHERE memory_id IN ({marks})", existing)
        db.execute(f"DELETE FROM memory_tags WHERE memory_id IN ({marks})", existing)
        db.execute(f"DELETE FROM claim_support WHERE memory_id IN ({marks}) OR episode_id IN ({marks})", existing * 2)
        # An episode corrected by a deleted one is no longer superseded; one correcting a deleted one corrects nothing.
        revived = db.execute(
            f"SELECT id, COALESCE(prior_state, 'active') FROM episodes WHERE superseded_by IN ({marks}) "
            f"AND id NOT IN ({marks})",
            existing * 2,
        ).fetchall()
        db.execute(f"UPDATE episodes SET superseded_by = NULL WHERE superseded_by IN ({marks})", existing)
        db.execute(f"UPDATE episodes SET supersedes = NULL WHERE supersedes IN ({marks})", existing)
        for memory_id, state in revived:
            db.execute("UPDATE episodes SET state = ?, prior_state = NULL WHERE id = ?", (state, memory_id))
            self._sync_vector_state(db, [memory_id], state)
        for table in TABLES.values():
            db.execute(f"DELETE FROM {table} WHERE id IN ({marks})", existing)
        return existing

    def _mark_superseded(self, db: Any, old_id: str, new_id: str) -> None:
        updated = db.execute(
            "UPDATE episodes SET superseded_by = ?, prior_state = state, state = 'superseded' "
            "WHERE id = ? AND superseded_by IS NULL",
            (new_id, old_id),
        ).rowcount
        if updated != 1:
            raise StorageError(f"episode {old_id} does not exist or is already superseded")
        self._sync_vector_state(db, [old_id], "superseded")

    def _sync_vector_state(self, db: Any, ids: Sequence[str], state: str) -> None:
        # sqlite-vec (0.1.9) rejects multi-row UPDATEs on a partitioned vec0 table, so update row by row.
        rowids = db.execute(
            f"SELECT rowid FROM memory_vector_rows WHERE memory_id IN ({placeholders(ids)})", list(ids)
        ).fetchall()
        if self.vector_error is None:
            db.executemany(f"UPDATE {self.vector_table} SET state = ? WHERE rowid = ?", [(state, r[0]) for r in rowids])

    def update_memories(self, changes: Mapping[str, Mapping[str, Any]]) -> None:
        if not changes:
            return
        for fields in changes.values():
            unknown = set(fields) - MUTABLE_MEMORY_FIELDS
            if unknown:
                raise StorageError(f"memory fields {sorted(unknown)} cannot be changed")
        ids = list(changes)
        with self._write() as db:
            types = dict(
                db.execute(
                    "SELECT memory_id, memory_type FROM memory_vector_rows "
                    f"WHERE chunk_index = 0 AND memory_id IN ({placeholders(ids)})",
                    ids,
                ).fetchall()
            )
            for memory_id, fields in changes.items():
                if memory_id not in types:
                    raise StorageError(f"no memory with id {memory_id}")
                table = TABLES[types[memory_id]]
                values = dict(fields)
                if "state" in values and "prior_state" not in values:
                    old = db.execute(f"SELECT state FROM {table} WHERE id = ?", (memory_id,)).fetchone()[0]
                    if old != values["state"]:
                        values["prior_state"] = old
                assignments = ", ".join(f"{name} = ?" for name in values)
                db.execute(
                    f"UPDATE {table} SET {assignments} WHERE id = ?",
                    (*(encode_value(name, v) for name, v in values.items()), memory_id),
                )
                vector_fields = {k: v for k, v in values.items() if k in ("state", "consolidated")}
                if vector_fields and self.vector_error is None:
                    rowids = db.execute(
                        "SELECT rowid FROM memory_vector_rows WHERE memory_id = ?", (memory_id,)
                    ).fetchall()
                    assignments = ", ".join(f"{name} = ?" for name in vector_fields)
                    db.executemany(
                        f"UPDATE {self.vector_table} SET {assignments} WHERE rowid = ?",
                        [
                            (*(int(v) if isinstance(v, bool) else v for v in vector_fields.values()), r[0])
                            for r in rowids
                        ],
                    )

    def record_retrievals(self, ids: Sequence[str], at: datetime) -> None:
        if not ids:
            return
        stamp = to_iso(at)
        with self._write() as db:
            for table in TABLES.values():
                db.execute(
                    f"UPDATE {table} SET retrieval_count = retrieval_count + 1, last_retrieved_at = ?, "
                    f"last_reinforced_at = ? WHERE id IN ({placeholders(ids)})",
                    (stamp, stamp, *ids),
                )


def read_store_info(path: str | Path) -> dict[str, str] | None:
    """A store's configuration (embedding model, dimensions, ...) without opening it for writing; None if the file
    holds no Audrey store."""
    if not Path(path).is_file():
        return None
    module = sqlite_module()
    connection = module.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    try:
        return dict(connection.execute("SELECT key, value FROM audrey_config").fetchall())
    except module.Error:
        return None
    finally:
        connection.close()


__all__ = ["SQLiteStorage", "read_store_info"]
