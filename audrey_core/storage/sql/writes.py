"""Writes every SQL backend shares: memories with their tags, text rows and vector rows in one transaction,
deletion, state and field updates, retrieval stamps. Backends supply ``_index_text`` (their full-text index),
``_embedding_param`` (their vector column's type), ``_next_rowids`` and ``vector_error``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from ...errors import InvalidInputError, StorageError
from ...models import Episodic, Memory
from ...rules.ownership import Tenant
from ...timeutil import system_clock, to_iso
from ..base import MUTABLE_MEMORY_FIELDS
from ..sqlite.connection import placeholders
from .filters import decode_scope, encode_scope
from .migrations import FTS_TABLE
from .presence import presence
from .rows import COLUMNS, TABLES, encode_value, memory_to_row
from .turns import Place, SQLTurns, turn_place


class SQLWrites(SQLTurns):
    """Mixed into an SQL storage backend; uses its ``_write`` transaction."""

    def _write_text(self, db: Any, memories: Sequence[Memory]) -> None:
        """Full-text rows for new memories (the whole text, however many vector chunks it has); turns among them
        and their neighbours get their neighbours' words. A new turn's row is written once, with its words: written
        bare and given them after, each full-text row was indexed twice (a fifth of a chat load's writing)."""
        places = [place for m in memories if (place := turn_place(m)) is not None]
        contexts = self._refresh_turn_context(db, places, fresh={m.id for m in memories}) if places else {}
        ids = self._next_rowids(db, "memory_text_rows", len(memories))
        rows = [(rowid, m, contexts.get(m.id, "")) for rowid, m in zip(ids, memories)]
        db.executemany(
            "INSERT INTO memory_text_rows (rowid, memory_id, context) VALUES (?, ?, ?)",
            [(rowid, m.id, context or None) for rowid, m, context in rows],
        )
        self._index_text(db, rows)

    def _insert_vector_rows(self, db: Any, table: str, rows: Sequence[tuple[int, Memory]], matrix: np.ndarray) -> None:
        """Vector rows (row id, memory), row i's vector being ``matrix[i]``, with the columns recall filters on."""
        db.executemany(
            f"INSERT INTO {table} (rowid, agent, scope, memory_type, state, source, consolidated, memory_id, "
            "embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    rowid,
                    m.agent,
                    encode_scope(m.scope),
                    m.memory_type,
                    m.state,
                    m.source,
                    int(getattr(m, "consolidated", False)),
                    m.id,
                    self._embedding_param(np.ascontiguousarray(matrix[i], dtype=np.float32)),
                )
                for i, (rowid, m) in enumerate(rows)
            ],
        )

    def vector_search_error(self) -> str | None:
        return self.vector_error

    def _require_vectors(self) -> None:
        if self.vector_error is not None:
            raise StorageError(f"vector search is unavailable: {self.vector_error}")

    def insert_memories(
        self,
        memories: Sequence[Memory],
        vectors: np.ndarray | None,
        replace: bool = False,
        chunks: Sequence[Sequence[tuple[int, int]]] | None = None,
        owner: Tenant | None = None,
        queued_by: str | None = None,
    ) -> None:
        expected = len(memories) if chunks is None else sum(len(c) for c in chunks)
        if vectors is not None and expected != len(vectors):
            raise StorageError(f"{expected} vectors expected for {len(memories)} memories, got {len(vectors)}")
        if not memories:
            return
        with self._write() as db:
            if owner is not None:
                self._refuse_foreign_ids(db, [m.id for m in memories], owner)
            kept: dict[str, Place] = {}
            if replace:
                kept = self._places_of(db, [m.id for m in memories])
                self._delete(db, [m.id for m in memories])
            self._place_turns(db, memories, kept)
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
            if queued_by is not None:
                episodes = [m.id for m in memories if isinstance(m, Episodic)]
                self._queue_validation(db, episodes, queued_by, to_iso(system_clock()))

    def _queue_validation(self, db: Any, ids: Sequence[str], by: str, now: str) -> None:
        """The episodes wait for validation, claimed by ``by`` (see validation_queue.py)."""
        db.executemany(
            "INSERT INTO validation_queue (memory_id, claimed_by, claimed_at) VALUES (?, ?, ?)",
            [(memory_id, by, now) for memory_id in ids],
        )

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
        fresh = iter(self._next_rowids(db, "memory_vector_rows", sum(len(s) for s in spans)))
        rows, owned = [], []
        for memory, memory_spans in zip(memories, spans):
            whole = len(memory_spans) == 1
            for index, (start, end) in enumerate(memory_spans):
                rowid = next(fresh)
                rows.append(
                    (rowid, memory.id, memory.memory_type, index, None if whole else start, None if whole else end)
                )
                owned.append((rowid, memory))
        if any(row[4] is not None for row in rows):
            presence(self, "chunks").saw()
        db.executemany(
            "INSERT INTO memory_vector_rows (rowid, memory_id, memory_type, chunk_index, chunk_start, chunk_end) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        self._insert_vector_rows(db, self.vector_table, owned, matrix)

    def delete_memories(self, ids: Sequence[str], owner: Tenant | None = None) -> list[str]:
        if not ids:
            return []
        with self._write() as db:
            return self._delete(db, ids, owner)

    def _holders(self, db: Any, ids: Sequence[str]) -> list[tuple[str, str, tuple[str, ...]]]:
        """(id, agent, scope) of each stored memory among ``ids``."""
        marks = placeholders(ids)
        return [
            (row[0], row[1], decode_scope(row[2]))
            for table in TABLES.values()
            for row in db.execute(f"SELECT id, agent, scope FROM {table} WHERE id IN ({marks})", list(ids))
        ]

    def _refuse_foreign_ids(self, db: Any, ids: Sequence[str], owner: Tenant) -> None:
        """Ids are one namespace for the whole store: one that another tenant's memory holds cannot be taken over."""
        taken = sorted(i for i, agent, scope in self._holders(db, ids) if not owner.holds(agent, scope))
        if taken:
            raise InvalidInputError(f"memory ids {', '.join(taken)} cannot be used here; choose other ids")

    def _delete(self, db: Any, ids: Sequence[str], owner: Tenant | None = None) -> list[str]:
        ids = list(dict.fromkeys(ids))
        existing = [i for i, agent, scope in self._holders(db, ids) if owner is None or owner.holds(agent, scope)]
        if not existing:
            return []
        marks = placeholders(existing)
        places = self._places_of(db, existing)  # their neighbours' context loses their words
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
        db.execute(f"DELETE FROM validation_queue WHERE memory_id IN ({marks})", existing)
        db.execute(f"DELETE FROM claim_support WHERE memory_id IN ({marks}) OR episode_id IN ({marks})", existing * 2)
        db.execute(f"DELETE FROM claim_readings WHERE memory_id IN ({marks})", existing)
        # A memory replaced by a deleted one holds again; an episode correcting a deleted one corrects nothing.
        for table in TABLES.values():
            revived = db.execute(
                f"SELECT id, COALESCE(prior_state, 'active') FROM {table} WHERE superseded_by IN ({marks}) "
                f"AND id NOT IN ({marks})",
                existing * 2,
            ).fetchall()
            db.execute(
                f"UPDATE {table} SET superseded_by = NULL, valid_until = NULL WHERE superseded_by IN ({marks})",
                existing,
            )
            for memory_id, state in revived:
                db.execute(f"UPDATE {table} SET state = ?, prior_state = NULL WHERE id = ?", (state, memory_id))
                self._sync_vector_state(db, [memory_id], state)
        db.execute(f"UPDATE episodes SET supersedes = NULL WHERE supersedes IN ({marks})", existing)
        for table in TABLES.values():
            db.execute(f"DELETE FROM {table} WHERE id IN ({marks})", existing)
        self._refresh_turn_context(db, places.values())
        return existing

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
