"""Store maintenance every SQL backend shares: vector coverage and backfill, JSON-Lines-ready export / import,
re-embedding. Backends supply the table-level hooks at the top of :class:`SQLMaintenance`.

Re-embedding writes the new model's vectors into a second vector table; the store keeps answering from the active
one (named in ``audrey_config.vector_table``) until every vector is rewritten, then switches in one transaction.
Progress lives in the new table itself, so an interrupted re-embed resumes where it stopped.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ...errors import InvalidInputError, StorageError
from ...models import Memory
from ...rules.calibration import Baseline
from ...rules.inputs import check_json_value
from ..sqlite.connection import placeholders
from .migrations import RESULTS_TABLE, UNDO_TABLE
from .presence import presence
from .reads import SQLReads
from .rows import COLUMNS, TABLES, row_to_memory
from .writes import SQLWrites

# Tables a snapshot carries, in the order they must be restored.
EXPORTED_TABLES = (
    "episodes",
    "semantics",
    "procedures",
    "memory_tags",
    "causal_links",
    "contradictions",
    "consolidation_runs",
    UNDO_TABLE,
    RESULTS_TABLE,
    "claim_support",
    "audit_log",
)
Progress = Callable[[int], None]
SET_CONFIG = (
    "INSERT INTO audrey_config (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


def encode_vector(vector: np.ndarray) -> str:
    """A float32 vector as base64 text (exact and compact in JSON)."""
    return base64.b64encode(np.ascontiguousarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: Any, dimensions: int | None = None) -> np.ndarray:
    """The inverse of :func:`encode_vector`; :class:`InvalidInputError` for anything that is not base64 of
    ``dimensions`` finite little-endian float32 values."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"a vector is not valid base64: {exc}") from exc
    if len(raw) % 4 or (dimensions is not None and len(raw) != 4 * dimensions):
        raise InvalidInputError(f"a vector holds {len(raw)} bytes, not {dimensions or 'a whole number of'} float32s")
    vector = np.frombuffer(raw, dtype="<f4").astype(np.float32)
    if not np.isfinite(vector).all():
        raise InvalidInputError("a vector holds NaN or infinite values")
    return vector


class SQLMaintenance(SQLReads, SQLWrites):
    """Mixed into an SQL storage backend."""

    # -- coverage and backfill ----------------------------------------------------------------------------------

    def vector_coverage(self, agent: str | None = None) -> tuple[int, int]:
        """(memories with a vector, memories without one)."""
        scope, params = (" WHERE m.agent = ?", [agent]) if agent is not None else ("", [])
        with self._read() as db:
            total = with_vector = 0
            for table in TABLES.values():
                total += db.execute(f"SELECT COUNT(*) FROM {table} m{scope}", params).fetchone()[0]
                with_vector += db.execute(
                    f"SELECT COUNT(*) FROM {table} m{scope}{' AND' if scope else ' WHERE'} EXISTS "
                    "(SELECT 1 FROM memory_vector_rows r WHERE r.memory_id = m.id)",
                    params,
                ).fetchone()[0]
        return with_vector, total - with_vector

    def missing_vectors(self, limit: int) -> list[Memory]:
        """Memories that have no vector yet (oldest first)."""
        found: list[Memory] = []
        with self._read() as db:
            for memory_type, table in TABLES.items():
                rows = db.execute(
                    f"SELECT {', '.join(COLUMNS[memory_type])} FROM {table} m WHERE NOT EXISTS "
                    "(SELECT 1 FROM memory_vector_rows r WHERE r.memory_id = m.id) ORDER BY m.id LIMIT ?",
                    (limit - len(found),),
                ).fetchall()
                found.extend(row_to_memory(memory_type, row) for row in rows)
                if len(found) >= limit:
                    break
        return found

    def add_vectors(
        self, memories: Sequence[Memory], vectors: np.ndarray, chunks: Sequence[Sequence[tuple[int, int]]] | None = None
    ) -> None:
        """Give vector-less memories their vectors (backfill), in one transaction."""
        self._require_vectors()
        with self._write() as db:
            self._write_vectors(db, memories, vectors, chunks)

    # -- export / import ----------------------------------------------------------------------------------------

    def export_records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every row of every memory table, plus ("vector", {memory_id, chunk_index, vector}) records."""
        with self._read() as db:
            for table in EXPORTED_TABLES:
                cursor = db.execute(f"SELECT * FROM {table} ORDER BY 1")
                names = [d[0] for d in cursor.description]
                for row in cursor:
                    yield table, dict(zip(names, row))
            if self.vector_error is not None:
                return  # no vectors can be read; the snapshot holds the memories and a backfill restores vectors
            cursor = db.execute(
                f"SELECT r.memory_id, r.chunk_index, v.embedding, r.chunk_start, r.chunk_end FROM memory_vector_rows r "
                f"JOIN {self.vector_table} v ON v.rowid = r.rowid ORDER BY r.rowid"
            )
            for memory_id, chunk, blob, start, end in cursor:
                vector = self._to_array(blob)
                yield (
                    "vector",
                    {
                        "memory_id": memory_id,
                        "chunk_index": chunk,
                        "vector": encode_vector(vector),
                        "chunk_start": start,
                        "chunk_end": end,
                    },
                )

    def is_empty(self) -> bool:
        """True when no table holds a row."""
        with self._read() as db:
            return not any(db.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone() for t in EXPORTED_TABLES)

    def import_records(self, records: Iterable[tuple[str, dict[str, Any]]], progress: Progress | None = None) -> int:
        """Restore exported records into this (empty) store in one transaction; return how many were read."""
        if not self.is_empty():
            raise StorageError("this database already holds memories; import only into an empty database")
        count = 0
        vectors: list[tuple[str, int, np.ndarray, int | None, int | None]] = []
        links: list[tuple[Any, Any, str]] = []  # (supersedes, superseded_by, id): set once every episode is in
        with self._write() as db:
            known = {t: self._table_columns(db, t) for t in EXPORTED_TABLES}
            for table, row in records:
                count += 1
                if not isinstance(row, dict) or not all(isinstance(k, str) for k in row):
                    raise InvalidInputError(f"snapshot record {count} ({table!r}) is not an object of columns")
                if table == "vector":
                    vectors.append(_vector_record(row, count, self.dimensions))
                elif table in known:
                    unknown = set(row) - known[table]
                    if unknown:
                        raise StorageError(f"snapshot row for {table} has unknown columns {sorted(unknown)}")
                    check_json_value(f"snapshot record {count} ({table})", row)
                    if table == "episodes" and (row.get("supersedes") or row.get("superseded_by")):
                        # a correction may name an episode restored after it; the foreign keys hold at the end
                        links.append((row.get("supersedes"), row.get("superseded_by"), row["id"]))
                        row = {**row, "supersedes": None, "superseded_by": None}
                    db.execute(
                        f"INSERT INTO {table} ({', '.join(row)}) VALUES ({placeholders(list(row))})", list(row.values())
                    )
                else:
                    raise StorageError(f"snapshot names an unknown table {table!r}")
                if progress is not None:
                    progress(1)
            db.executemany("UPDATE episodes SET supersedes = ?, superseded_by = ? WHERE id = ?", links)
            imported = self.get_memories([r[0] for t in TABLES.values() for r in db.execute(f"SELECT id FROM {t}")])
            self._write_text(db, list(imported.values()))
            self._restore_vectors(db, vectors)
        return count

    def _restore_vectors(self, db: Any, vectors: list[tuple[str, int, np.ndarray, int | None, int | None]]) -> None:
        if not vectors:
            return
        self._require_vectors()
        memories = self.get_memories([v[0] for v in vectors])
        missing = sorted({v[0] for v in vectors} - set(memories))
        if missing:
            raise StorageError(f"snapshot has vectors for memories it does not hold: {missing[:5]}")
        dims = {len(v[2]) for v in vectors}
        if dims != {self.dimensions}:
            raise StorageError(f"snapshot vectors have {sorted(dims)} dimensions; this store has {self.dimensions}")
        rowids = self._next_rowids(db, "memory_vector_rows", len(vectors))
        rows = [(rowid, memories[memory_id]) for rowid, (memory_id, *_) in zip(rowids, vectors)]
        if any(vector[3] is not None for vector in vectors):
            presence(self, "chunks").saw()
        db.executemany(
            "INSERT INTO memory_vector_rows (rowid, memory_id, memory_type, chunk_index, chunk_start, chunk_end) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (rowid, m.id, m.memory_type, vectors[i][1], vectors[i][3], vectors[i][4])
                for i, (rowid, m) in enumerate(rows)
            ],
        )
        self._insert_vector_rows(db, self.vector_table, rows, np.vstack([v[2] for v in vectors]))

    # -- re-embedding -------------------------------------------------------------------------------------------

    def reembed_target(self) -> tuple[str, int, str] | None:
        """(model, dimensions, table) of a re-embed in progress, if any."""
        config = self.config()
        if "reembed_table" not in config:
            return None
        return config["reembed_model"], int(config["reembed_dimensions"]), config["reembed_table"]

    def begin_reembed(self, model_name: str, dimensions: int) -> str:
        """Start (or resume) re-embedding into a new vector table; return its name."""
        current = self.reembed_target()
        if current is not None:
            if current[:2] == (model_name, int(dimensions)):
                return current[2]
            raise StorageError(
                f"a re-embed to {current[0]!r} ({current[1]} dimensions) is in progress; finish it with that model "
                "or cancel it first"
            )
        self._require_vectors()
        if (model_name, int(dimensions)) == (self.model_name, self.dimensions):
            raise StorageError(f"the store already uses {model_name!r} ({dimensions} dimensions)")
        with self._write() as db:
            table = next_vector_table(self._vector_table_names(db))
            self._create_vector_table(db, table, dimensions)
            db.executemany(
                SET_CONFIG,
                [("reembed_model", model_name), ("reembed_dimensions", str(int(dimensions))), ("reembed_table", table)],
            )
        return table

    def cancel_reembed(self) -> None:
        """Abandon a re-embed in progress (its partial table is dropped)."""
        target = self.reembed_target()
        if target is None:
            return
        with self._write() as db:
            db.execute(f"DROP TABLE {target[2]}")
            db.execute(
                "DELETE FROM audrey_config WHERE key IN ('reembed_model', 'reembed_dimensions', 'reembed_table')"
            )

    def reembed_pending(self, limit: int) -> list[tuple[int, Memory, str]]:
        """Vector rows not yet rewritten into the new table: (rowid, memory, the text its vector embeds)."""
        target = self.reembed_target()
        if target is None:
            raise StorageError("no re-embed in progress")
        with self._read() as db:
            rows = db.execute(
                f"SELECT r.rowid, r.memory_id, r.chunk_start, r.chunk_end FROM memory_vector_rows r WHERE r.rowid "
                f"NOT IN (SELECT rowid FROM {target[2]}) ORDER BY r.rowid LIMIT ?",
                (limit,),
            ).fetchall()
        memories = self.get_memories([r[1] for r in rows])
        return [
            (rowid, memory, memory.content if start is None else memory.content[start:end])  # a chunk: its own text
            for rowid, memory_id, start, end in rows
            if (memory := memories.get(memory_id)) is not None
        ]

    def reembed_progress(self) -> tuple[int, int]:
        """(vectors rewritten, vectors in all)."""
        target = self.reembed_target()
        with self._read() as db:
            total = db.execute("SELECT COUNT(*) FROM memory_vector_rows").fetchone()[0]
            done = db.execute(f"SELECT COUNT(*) FROM {target[2]}").fetchone()[0] if target else 0
        return done, total

    def write_reembedded(self, rows: Sequence[tuple[int, Memory]], vectors: np.ndarray) -> None:
        """Store new-model vectors for these rows (one transaction)."""
        target = self.reembed_target()
        if target is None:
            raise StorageError("no re-embed in progress")
        with self._write() as db:
            self._insert_vector_rows(db, target[2], rows, vectors)

    def finish_reembed(self) -> None:
        """Switch to the new vectors and model in one transaction, once every vector is rewritten."""
        target = self.reembed_target()
        if target is None:
            raise StorageError("no re-embed in progress")
        done, total = self.reembed_progress()
        if done != total:
            raise StorageError(f"re-embed incomplete: {done} of {total} vectors rewritten; run it again to finish")
        model, dimensions, table = target
        with self._write() as db:
            db.execute(f"DROP TABLE {self.vector_table}")
            db.executemany(
                SET_CONFIG,
                [("embedding_model", model), ("embedding_dimensions", str(dimensions)), ("vector_table", table)],
            )
            db.execute(
                "DELETE FROM audrey_config WHERE key IN "
                "('reembed_model', 'reembed_dimensions', 'reembed_table', 'similarity_baseline')"
            )
        self.vector_table, self.model_name, self.dimensions = table, model, dimensions

    def similarity_baseline(self) -> Baseline | None:
        recorded = self.config().get("similarity_baseline")
        return Baseline.from_json(recorded) if recorded else None

    def record_similarity_baseline(self, baseline: Baseline) -> None:
        with self._write() as db:
            db.execute(SET_CONFIG, ("similarity_baseline", baseline.to_json()))


def next_vector_table(existing: Sequence[str]) -> str:
    """A fresh vector table name: memory_vectors_<n>, one past the highest in use."""
    number = 1 + max(
        [int(n[len("memory_vectors_") :]) for n in existing if n.startswith("memory_vectors_") and n[15:].isdigit()]
        or [1]
    )
    return f"memory_vectors_{number}"


def _vector_record(row: dict[str, Any], number: int, dimensions: int) -> tuple[Any, ...]:
    """(memory id, chunk index, vector, chunk start, chunk end) of a snapshot's vector record."""
    try:
        memory_id, index = row["memory_id"], row.get("chunk_index", 0)
        start, end = row.get("chunk_start"), row.get("chunk_end")
        if not isinstance(memory_id, str) or not all(isinstance(v, int) for v in (index, *filter(None, (start, end)))):
            raise InvalidInputError("memory_id must be a string and chunk positions integers")
        return memory_id, index, decode_vector(row["vector"], dimensions), start, end
    except (KeyError, InvalidInputError) as exc:
        raise InvalidInputError(f"snapshot record {number} (a vector) is damaged: {exc}") from exc


SNAPSHOT_VERSION = 2  # 2: an end marker with the record count closes the file


def snapshot_header(storage: Any) -> dict[str, Any]:
    """The first record of an export: what the snapshot is and which embedding model made its vectors."""
    return {
        "audrey_snapshot": SNAPSHOT_VERSION,
        "schema_version": storage.schema_version,
        "embedding_model": storage.model_name,
        "embedding_dimensions": storage.dimensions,
    }
