"""SQLite specifics of store maintenance: vec0 vector tables, FTS-free column listing, the vector layout upgrade."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..sql.maintenance import SQLMaintenance, next_vector_table
from .schema import has_scope_partitions, vector_table_sql


class SQLiteMaintenance(SQLMaintenance):
    """Mixed into :class:`SQLiteStorage`."""

    def _to_array(self, stored: Any) -> np.ndarray:
        return np.frombuffer(stored, dtype=np.float32)

    def _fetch_vectors(self, db: Any, sql: str, params: Sequence[Any]) -> list[Any]:
        return list(db.execute(sql, params).fetchall())  # sqlite-vec's float32 blobs

    def _table_columns(self, db: Any, table: str) -> set[str]:
        return {c[1] for c in db.execute(f"PRAGMA table_info({table})")}

    def _vector_table_names(self, db: Any) -> list[str]:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'memory_vectors*'")
        return [r[0] for r in rows]

    def _create_vector_table(self, db: Any, table: str, dimensions: int) -> None:
        db.execute(vector_table_sql(table, dimensions))

    def upgrade_vector_layout(self) -> None:
        """Rebuild vector tables made before scopes became vec0 partitions (one transaction per table; rowids and
        every column kept), so a scoped recall scans only its scope in old stores too."""
        with self._write() as db:
            for key in ("vector_table", "reembed_table"):
                row = db.execute("SELECT value FROM audrey_config WHERE key = ?", (key,)).fetchone()
                if row is None:
                    continue
                create = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (row[0],)).fetchone()
                if create is None or has_scope_partitions(create[0]):
                    continue
                dimensions = int(re.search(r"float\[(\d+)\]", create[0]).group(1))  # type: ignore[union-attr]
                table = next_vector_table(self._vector_table_names(db))
                self._create_vector_table(db, table, dimensions)
                db.execute(
                    f"INSERT INTO {table} (rowid, agent, scope, embedding, memory_type, state, source, consolidated, "
                    "memory_id) SELECT rowid, agent, scope, embedding, memory_type, state, source, consolidated, "
                    f"memory_id FROM {row[0]}"
                )
                db.execute(f"DROP TABLE {row[0]}")
                db.execute("UPDATE audrey_config SET value = ? WHERE key = ?", (table, key))
                if key == "vector_table":
                    self.vector_table = table
