"""The SQLite + sqlite-vec backend: one file (or ``:memory:``), one connection, every write one transaction.

Why one vector table: all vectors live in a single vec0 table, ``memory_vectors``, with the memory type as a
discriminator (seed 003) and metadata columns for state, source and consolidated flag (seed 000 §2), and the agent
as a vec0 partition key. So:

* recall across episodic, semantic and procedural memories is one KNN scan, not three merged by hand;
* state, source and consolidated filters run inside the KNN scan (k counts only matching rows), tags through a
  ``rowid IN (subquery)`` constraint that sqlite-vec also applies during the scan;
* agent and memory type are partition keys: a query scans only its agent's vectors of the types it asks for, so
  another agent's volume costs it nothing and validation's search among semantic memories never scans episodes
  (sqlite-vec answers ``IN`` on a partition key with k rows per partition; :meth:`knn` merges them);
* a memory may own several vector rows (chunks of a long text) through ``memory_vector_rows``, which also indexes
  memory id -> vec0 rowid for state updates.

vec0 shadow tables are ordinary SQLite tables, so a memory row and its vector commit or roll back together.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ClosedError, EmbeddingMismatchError, StorageError
from ..models import Episode, Memory
from ..timeutil import from_iso, to_iso
from .base import MUTABLE_MEMORY_FIELDS, Storage, StoreCounts, VectorFilter, VectorHit
from .connection import connect, placeholders, sqlite_module
from .migrations import VECTOR_TABLE, migrate
from .rows import COLUMNS, TABLES, encode_value, memory_to_row, row_to_memory
from .sqlite_records import SQLiteRecords


class SQLiteStorage(SQLiteRecords, Storage):
    """Audrey's embedded store. Thread-safe: one connection guarded by a re-entrant lock."""

    def __init__(self, path: str | Path, *, model_name: str, dimensions: int) -> None:
        self.path = str(path)
        if self.path != ":memory:" and not self.path.startswith("file:"):
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._depth = 0  # nesting of write transactions on the thread holding the lock
        module = sqlite_module()
        self._db_error: type[BaseException] = module.Error
        self._conn: Any = connect(self.path, module=module)
        self._closed = False
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
                        [("embedding_model", model_name), ("embedding_dimensions", str(int(dimensions)))],
                    )
        except BaseException:
            self._conn.close()
            self._closed = True
            raise
        self.model_name = model_name
        self.dimensions = int(dimensions)

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

    @contextmanager
    def _read(self) -> Iterator[Any]:
        with self._lock:
            if self._closed:
                raise ClosedError("this Audrey store is closed; open a new Audrey instance")
            try:
                yield self._conn
            except (StorageError, ClosedError):
                raise
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

    # -- writes -----------------------------------------------------------------------------------------------

    def insert_memories(self, memories: Sequence[Memory], vectors: np.ndarray) -> None:
        if len(memories) != len(vectors):
            raise StorageError(f"{len(memories)} memories but {len(vectors)} vectors")
        if not memories:
            return
        matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        with self._write() as db:
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
            first_rowid = db.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM memory_vector_rows").fetchone()[0]
            rowids = range(first_rowid, first_rowid + len(memories))
            db.executemany(
                "INSERT INTO memory_vector_rows (rowid, memory_id, memory_type, chunk_index) VALUES (?, ?, ?, 0)",
                [(rowid, m.id, m.memory_type) for rowid, m in zip(rowids, memories)],
            )
            db.executemany(
                f"INSERT INTO {VECTOR_TABLE} (rowid, agent, embedding, memory_type, state, source, consolidated, "
                "memory_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        rowid,
                        m.agent,
                        matrix[i].tobytes(),
                        m.memory_type,
                        m.state,
                        m.source,
                        int(getattr(m, "consolidated", False)),
                        m.id,
                    )
                    for i, (rowid, m) in enumerate(zip(rowids, memories))
                ],
            )
            for memory in memories:
                if isinstance(memory, Episode) and memory.supersedes:
                    self._mark_superseded(db, memory.supersedes, memory.id)

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
        db.executemany(f"UPDATE {VECTOR_TABLE} SET state = ? WHERE rowid = ?", [(state, r[0]) for r in rowids])

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
                if vector_fields:
                    rowids = db.execute(
                        "SELECT rowid FROM memory_vector_rows WHERE memory_id = ?", (memory_id,)
                    ).fetchall()
                    assignments = ", ".join(f"{name} = ?" for name in vector_fields)
                    db.executemany(
                        f"UPDATE {VECTOR_TABLE} SET {assignments} WHERE rowid = ?",
                        [
                            (*(int(v) if isinstance(v, bool) else v for v in vector_fields.values()), r[0])
                            for r in rowids
                        ],
                    )

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

    def unconsolidated_episodes(self, agent: str, states: Sequence[str], up_to: str | None = None) -> list[Episode]:
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

    # -- reads ------------------------------------------------------------------------------------------------

    def knn(self, vector: np.ndarray, k: int, where: VectorFilter) -> list[VectorHit]:
        if k <= 0:
            return []
        query = np.ascontiguousarray(vector, dtype=np.float32).tobytes()
        sql = [f"SELECT memory_id, memory_type, distance FROM {VECTOR_TABLE} WHERE embedding MATCH ? AND k = ?"]
        params: list[Any] = [query, int(k)]
        if where.agent is not None:
            sql.append("AND agent = ?")
            params.append(where.agent)
        for column, values in (("memory_type", where.memory_types), ("state", where.states), ("source", where.sources)):
            if values is not None:
                if not values:
                    return []
                sql.append(f"AND {column} IN ({placeholders(values)})")
                params.extend(values)
        if where.consolidated is not None:
            sql.append("AND consolidated = ?")
            params.append(int(where.consolidated))
        if where.tags is not None:
            if not where.tags:
                return []
            sql.append(
                "AND rowid IN (SELECT r.rowid FROM memory_tags t "
                "JOIN memory_vector_rows r ON r.memory_id = t.memory_id "
                f"WHERE t.tag IN ({placeholders(where.tags)}))"
            )
            params.extend(where.tags)
        with self._read() as db:
            rows = db.execute(" ".join(sql), params).fetchall()
        rows.sort(key=lambda row: row[2])  # several partitions each return their own k nearest
        hits: dict[str, VectorHit] = {}
        for memory_id, memory_type, distance in rows:  # nearest first; keep a memory's best chunk
            if memory_id not in hits:
                hits[memory_id] = VectorHit(memory_id, memory_type, float(distance))
        return list(hits.values())[:k]

    def get_memories(self, ids: Iterable[str], memory_types: Mapping[str, str] | None = None) -> dict[str, Memory]:
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
                rows = db.execute(
                    f"SELECT {', '.join(columns)} FROM {TABLES[memory_type]} WHERE id IN ({placeholders(group)})",
                    group,
                ).fetchall()
                for row in rows:
                    found[row[0]] = row_to_memory(memory_type, row)
        return found

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        with self._read() as db:
            rows = db.execute(
                f"SELECT r.memory_id, v.embedding FROM memory_vector_rows r JOIN {VECTOR_TABLE} v ON v.rowid = r.rowid "
                f"WHERE r.chunk_index = 0 AND r.memory_id IN ({placeholders(ids)})",
                list(ids),
            ).fetchall()
        return {memory_id: np.frombuffer(blob, dtype=np.float32).copy() for memory_id, blob in rows}

    def supersedes_chain(self, episode_id: str) -> list[Episode]:
        columns = COLUMNS["episodic"]
        with self._read() as db:
            rows = db.execute(
                f"""WITH RECURSIVE chain(id, depth) AS (
                        SELECT supersedes, 1 FROM episodes WHERE id = ? AND supersedes IS NOT NULL
                        UNION ALL
                        SELECT e.supersedes, c.depth + 1 FROM episodes e JOIN chain c ON e.id = c.id
                        WHERE e.supersedes IS NOT NULL AND c.depth < 1000)
                    SELECT {", ".join("e." + c for c in columns)} FROM chain c JOIN episodes e ON e.id = c.id
                    ORDER BY c.depth""",
                (episode_id,),
            ).fetchall()
        return [row_to_memory("episodic", row) for row in rows]  # type: ignore[misc]

    def evidence_origins(self, memory_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        origins: dict[str, list[tuple[str, str]]] = {memory_id: [] for memory_id in memory_ids}
        if not memory_ids:
            return origins
        with self._read() as db:
            for table in ("semantics", "procedures"):
                rows = db.execute(
                    f"SELECT m.id, e.source, e.agent FROM {table} m, json_each(m.evidence_episode_ids) j "
                    f"JOIN episodes e ON e.id = j.value WHERE m.id IN ({placeholders(memory_ids)})",
                    list(memory_ids),
                ).fetchall()
                for memory_id, source, agent in rows:
                    origins[memory_id].append((source, agent))
        return origins

    def counts(self, agent: str | None) -> StoreCounts:
        scope, params = ("WHERE agent = ?", [agent]) if agent is not None else ("", [])
        with self._read() as db:
            states = {
                memory_type: dict(db.execute(f"SELECT state, COUNT(*) FROM {table} {scope} GROUP BY state", params))
                for memory_type, table in TABLES.items()
            }
            contradictions = dict(
                db.execute(f"SELECT state, COUNT(*) FROM contradictions {scope} GROUP BY state", params)
            )
            links = db.execute(f"SELECT COUNT(*) FROM causal_links {scope}", params).fetchone()[0]
            completed = "WHERE status = 'completed'" + (" AND agent = ?" if agent is not None else "")
            last = db.execute(f"SELECT MAX(completed_at) FROM consolidation_runs {completed}", params).fetchone()[0]
            sources = dict(db.execute(f"SELECT source, COUNT(*) FROM episodes {scope} GROUP BY source", params))
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


__all__ = ["SQLiteStorage"]
