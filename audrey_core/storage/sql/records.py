"""SQL storage of the pipeline's records: contradictions, causal links, consolidation runs, support, audit."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from ...errors import StorageError
from ...ids import new_ulid
from ...models import ConsolidationRun
from ...timeutil import from_iso, to_iso
from ..sqlite.connection import placeholders
from .dialect import SQLDialect
from .migrations import RESULTS_TABLE, UNDO_TABLE
from .reads import batches
from .rows import RECORDS, TABLES, encode_value, from_row, to_row


class SQLRecords(SQLDialect):
    """Mixed into an SQL storage backend; uses its ``_read`` / ``_write`` transactions. Portable SQL only."""

    def _table(self, kind: type) -> tuple[str, tuple[str, ...]]:
        try:
            return RECORDS[kind]
        except KeyError:
            raise StorageError(f"no table stores {kind.__name__} records") from None

    def insert_records(self, records: Sequence[Any]) -> None:
        if not records:
            return
        with self._write() as db:
            for record in records:
                table, columns = self._table(type(record))
                db.execute(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders(columns)}) "
                    "ON CONFLICT DO NOTHING",
                    to_row(record, columns),
                )

    def update_record(self, kind: type, record_id: str, fields: Mapping[str, Any]) -> None:
        table, columns = self._table(kind)
        unknown = set(fields) - set(columns)
        if unknown or not fields:
            raise StorageError(f"cannot update {sorted(unknown) or 'no'} fields of {kind.__name__}")
        assignments = ", ".join(f"{name} = ?" for name in fields)
        values = [encode_value(name, v) for name, v in fields.items()]
        with self._write() as db:
            if db.execute(f"UPDATE {table} SET {assignments} WHERE id = ?", (*values, record_id)).rowcount != 1:
                raise StorageError(f"no {kind.__name__} with id {record_id}")

    def find_records(self, kind: type, **equal: Any) -> list[Any]:
        return self.find_records_in_any(kind, (), (), **equal)

    def find_records_in_any(self, kind: type, columns: Sequence[str], values: Iterable[Any], **equal: Any) -> list[Any]:
        table, known = self._table(kind)
        unknown = [name for name in (*columns, *equal) if name not in known]
        if unknown:
            raise StorageError(f"{kind.__name__} has no column {unknown[0]!r}")
        clauses: list[str] = []
        params: list[Any] = []
        values = list(values)
        if columns:
            if not values:
                return []
            sides = []
            for name in columns:
                among, encoded = self._one_of(name, [encode_value(name, v) for v in values])
                sides.append(among)
                params.extend(encoded)
            clauses.append(f"({' OR '.join(sides)})")
        for name, value in equal.items():
            if isinstance(value, (list, tuple, set, frozenset)):
                listed = list(value)
                if not listed:
                    return []
                among, encoded = self._one_of(name, [encode_value(name, v) for v in listed])
                clauses.append(among)
                params.extend(encoded)
            elif value is None:
                clauses.append(f"{name} IS NULL")
            else:
                clauses.append(f"{name} = ?")
                params.append(encode_value(name, value))
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        order = "started_at" if table == "consolidation_runs" else "created_at"
        with self._read() as db:
            rows = db.execute(f"SELECT {', '.join(known)} FROM {table} {where} ORDER BY {order}, id", params).fetchall()
        found = [from_row(kind, known, row) for row in rows]
        return self._with_results(found) if kind is ConsolidationRun else found

    def _with_results(self, runs: list[ConsolidationRun]) -> list[ConsolidationRun]:
        """Each run with the principles it made and the confidence changes it made, as recorded in its row (runs of
        schema 12) and then in its result rows."""
        if not runs:
            return runs
        among, params = self._one_of("run_id", [run.id for run in runs])
        made: dict[str, list[str]] = {}
        changed: dict[str, dict[str, float]] = {}
        with self._read() as db:
            rows = db.execute(
                f"SELECT run_id, memory_id, confidence_delta FROM {RESULTS_TABLE} WHERE {among} ORDER BY run_id, seq",
                params,
            ).fetchall()
        for run_id, memory_id, delta in rows:
            if delta is None:
                made.setdefault(run_id, []).append(memory_id)
            else:
                deltas = changed.setdefault(run_id, {})
                deltas[memory_id] = deltas.get(memory_id, 0.0) + float(delta)
        return [
            replace(
                run,
                output_memory_ids=(*run.output_memory_ids, *made.get(run.id, ())),
                confidence_deltas=_summed(run.confidence_deltas, changed.get(run.id, {})),
            )
            if run.id in made or run.id in changed
            else run
            for run in runs
        ]

    def record_run_result(self, run_id: str, memory_id: str, confidence_delta: float | None = None) -> None:
        """Record a principle a run made (no delta) or a change it made to one's confidence (joins the caller's
        transaction): one row, whatever the run's size."""
        with self._write() as db:
            db.execute(
                f"INSERT INTO {RESULTS_TABLE} (run_id, seq, memory_id, confidence_delta) VALUES (?, ?, ?, ?)",
                (run_id, _next_seq(db, RESULTS_TABLE, run_id), memory_id, confidence_delta),
            )

    def run_undo_log(self, run_id: str) -> list[dict[str, Any]]:
        """The prior values a consolidation run overwrote, for rollback, in the order they were recorded: what the
        run's ``undo_log`` column holds (logs written before schema 13), then its rows."""
        with self._read() as db:
            row = db.execute("SELECT undo_log FROM consolidation_runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                return []
            appended = db.execute(f"SELECT entry FROM {UNDO_TABLE} WHERE run_id = ? ORDER BY seq", (run_id,))
            return [*json.loads(row[0]), *(json.loads(entry) for (entry,) in appended.fetchall())]

    def append_undo(self, run_id: str, entries: Sequence[Mapping[str, Any]]) -> None:
        """Add what a run is about to overwrite to its undo log (joins the caller's transaction): new rows, whatever
        the log's length."""
        if not entries:
            return
        with self._write() as db:
            first = _next_seq(db, UNDO_TABLE, run_id)
            db.executemany(
                f"INSERT INTO {UNDO_TABLE} (run_id, seq, entry) VALUES (?, ?, ?)",
                [(run_id, first + i, json.dumps(dict(entry))) for i, entry in enumerate(entries)],
            )

    def add_claim_support(self, memory_id: str, episode_id: str, at: datetime) -> None:
        with self._write() as db:
            db.execute(
                "INSERT INTO claim_support (memory_id, episode_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (memory_id, episode_id, to_iso(at)),
            )

    def add_restatements(self, pairs: Sequence[tuple[str, str]], at: datetime) -> list[tuple[str, str]]:
        added = []
        for memory_id, episode_id in pairs:
            # One short transaction a pair: it locks one support key, then one episode row, so two processes
            # restating each other's episodes (each records both directions) can wait for one another but not
            # deadlock, as they did in one transaction for all pairs (PostgreSQL aborted one of them).
            with self._write() as db:
                recorded = db.execute(  # new against another process recording the same pair: it waits, then skips
                    "INSERT INTO claim_support (memory_id, episode_id, created_at) VALUES (?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (memory_id, episode_id, to_iso(at)),
                ).rowcount
                if recorded != 1:
                    continue
                counted = db.execute(
                    f"UPDATE {TABLES['episodic']} SET evidence_count = evidence_count + 1 WHERE id = ?", (memory_id,)
                ).rowcount
                if counted == 1:
                    added.append((memory_id, episode_id))
                else:  # the episode was forgotten meanwhile: no support for it
                    db.execute(
                        "DELETE FROM claim_support WHERE memory_id = ? AND episode_id = ?", (memory_id, episode_id)
                    )
        return added

    def claim_support(self, memory_id: str) -> list[str]:
        with self._read() as db:
            rows = db.execute(
                "SELECT episode_id FROM claim_support WHERE memory_id = ? ORDER BY created_at, episode_id", (memory_id,)
            ).fetchall()
        return [r[0] for r in rows]

    def readings(self, ids: Sequence[str], reader: str) -> dict[str, str | None]:
        found: dict[str, str | None] = {}
        with self._read() as db:
            for part in batches(list(dict.fromkeys(ids))):
                found.update(
                    db.execute(
                        f"SELECT memory_id, reading FROM claim_readings WHERE memory_id IN ({placeholders(part)}) "
                        "AND reader = ?",
                        [*part, reader],
                    ).fetchall()
                )
        return found

    def keep_readings(self, readings: Mapping[str, str | None], reader: str) -> None:
        with self._write() as db:
            for part in batches(list(readings)):
                held = db.execute(f"SELECT id FROM episodes WHERE id IN ({placeholders(part)})", part).fetchall()
                db.executemany(  # an episode forgotten meanwhile leaves no reading behind
                    "INSERT INTO claim_readings (memory_id, reader, reading) VALUES (?, ?, ?) "
                    "ON CONFLICT (memory_id) DO UPDATE SET reader = excluded.reader, reading = excluded.reading",
                    [(i, reader, readings[i]) for (i,) in held],
                )

    def audit(self, agent: str, action: str, subject_id: str | None, details: Mapping[str, Any], at: datetime) -> None:
        with self._write() as db:
            db.execute(
                "INSERT INTO audit_log (id, agent, action, subject_id, details, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (new_ulid(at), agent, action, subject_id, json.dumps(dict(details)), to_iso(at)),
            )

    def audit_entries(self, agent: str | None = None) -> list[dict[str, Any]]:
        scope, params = ("WHERE agent = ?", [agent]) if agent is not None else ("", [])
        with self._read() as db:
            rows = db.execute(
                f"SELECT id, agent, action, subject_id, details, created_at FROM audit_log {scope} ORDER BY id", params
            ).fetchall()
        return [
            {
                "id": r[0],
                "agent": r[1],
                "action": r[2],
                "subject_id": r[3],
                "details": json.loads(r[4]),
                "created_at": from_iso(r[5]),
            }
            for r in rows
        ]


def _next_seq(db: Any, table: str, run_id: str) -> int:
    """The place of the next row of the run ``run_id`` in ``table`` (one of its logs); the run must exist."""
    if db.execute("SELECT 1 FROM consolidation_runs WHERE id = ?", (run_id,)).fetchone() is None:
        raise StorageError(f"no consolidation run with id {run_id}")
    last = db.execute(f"SELECT MAX(seq) FROM {table} WHERE run_id = ?", (run_id,)).fetchone()[0]
    return 0 if last is None else int(last) + 1


def _summed(recorded: dict[str, float], added: dict[str, float]) -> dict[str, float]:
    """A run's confidence changes: those its row recorded plus those of its result rows, memory by memory."""
    return {key: recorded.get(key, 0.0) + added.get(key, 0.0) for key in {**recorded, **added}}
