"""Episodes waiting for validation, kept in the database so none is left unvalidated when a process exits or dies.

Why: validation runs on a background thread after encode returns. A process that exits (or is killed) with episodes
still queued in memory used to leave them unvalidated for good. Each episode is queued in its encode transaction,
claimed by the Audrey instance that encoded it (``claimed_by``, ``claimed_at``), and deleted once validated. At exit
an instance releases its claims; the next instance opened on the tenant takes every unclaimed episode, and any
claimed longer ago than ``stale_before`` (its process died without releasing them). A claim is taken again just
before the episodes are validated, and only where it is still this instance's or free: two processes never validate
one episode.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...rules.ownership import Tenant
from ..sqlite.connection import placeholders
from .dialect import SQLDialect
from .filters import scope_range


class SQLValidationQueue(SQLDialect):
    """Mixed into both stores (see :class:`~audrey_core.storage.base.Storage` for each method's contract)."""

    def claim_validation(self, ids: Sequence[str], by: str, now: str, stale_before: str) -> list[str]:
        if not ids:
            return []
        marks = placeholders(ids)
        with self._write() as db:
            claimed = db.execute(
                f"UPDATE validation_queue SET claimed_by = ?, claimed_at = ? WHERE memory_id IN ({marks}) "
                "AND (claimed_by = ? OR claimed_by IS NULL OR claimed_at < ?) RETURNING memory_id",
                [by, now, *ids, by, stale_before],
            ).fetchall()
        mine = {row[0] for row in claimed}
        return [memory_id for memory_id in ids if memory_id in mine]

    def claim_unvalidated(self, owner: Tenant, by: str, now: str, stale_before: str, limit: int) -> list[str]:
        conditions, params = ["e.agent = ?"], [owner.agent]
        if owner.scope:
            condition, bounds = scope_range("e.scope", owner.scope)
            conditions.append(condition)
            params += bounds
        with self._read() as db:  # most opens find none: no write transaction for them
            if (
                db.execute(
                    "SELECT 1 FROM validation_queue WHERE claimed_by IS NULL OR claimed_at < ? LIMIT 1", [stale_before]
                ).fetchone()
                is None
            ):
                return []
        with self._write() as db:
            db.execute(
                "UPDATE validation_queue SET claimed_by = ?, claimed_at = ? WHERE memory_id IN ("
                "SELECT q.memory_id FROM validation_queue q JOIN episodes e ON e.id = q.memory_id "
                f"WHERE (q.claimed_by IS NULL OR q.claimed_at < ?) AND {' AND '.join(conditions)} "
                "ORDER BY e.created_at LIMIT ?)",
                [by, now, stale_before, *params, int(limit)],
            )
            rows = db.execute(  # in the order they were encoded: a later statement updates an earlier one
                "SELECT q.memory_id FROM validation_queue q JOIN episodes e ON e.id = q.memory_id "
                "WHERE q.claimed_by = ? AND q.claimed_at = ? ORDER BY e.created_at, e.id",
                [by, now],
            ).fetchall()
        return [row[0] for row in rows]

    def finish_validation(self, ids: Sequence[str]) -> None:
        if ids:
            with self._write() as db:
                db.execute(f"DELETE FROM validation_queue WHERE memory_id IN ({placeholders(ids)})", list(ids))

    def release_validation(self, by: str) -> None:
        with self._write() as db:
            db.execute("UPDATE validation_queue SET claimed_by = NULL WHERE claimed_by = ?", [by])
