"""Conversation turns in an SQL store: each new turn's place in its session, the neighbours' words its text row holds
for the full-text indexes (kept current as turns arrive and are forgotten, in the same transaction), and a turn's
neighbours for recall. A turn's session and neighbours never cross agents or scopes."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from ...index_settings import KEYWORD_CONTEXT_TURNS
from ...models import Episodic, Memory
from ...rules.turns import affected, window_text
from ..base import TurnWindow
from ..sqlite.connection import placeholders
from .dialect import SQLDialect
from .filters import encode_scope
from .presence import presence

Place = tuple[str, str, str, int]  # (agent, encoded scope, session, turn)
# Turn {n} is in the window of turn {c}: the same session, agent and scope, up to ? places before and ? after.
WINDOW = (
    "{n}.agent = {c}.agent AND {n}.session = {c}.session AND {n}.scope = {c}.scope "
    "AND {n}.turn BETWEEN {c}.turn - ? AND {c}.turn + ? AND {n}.id <> {c}.id"
)


def turn_place(memory: Memory) -> Place | None:
    """Where a memory was said, if it is a turn with a place."""
    if isinstance(memory, Episodic) and memory.session is not None and memory.turn is not None:
        return memory.agent, encode_scope(memory.scope), memory.session, memory.turn
    return None


class SQLTurns(SQLDialect):
    """Mixed into the SQL writes; uses the caller's transaction (``db``) for every write."""

    @abstractmethod
    def _index_context(self, db: Any, rows: Sequence[tuple[int, str, str]]) -> None:
        """Give (text row id, content, neighbours' words) rows their new context in the dialect's full-text index."""

    def _places_of(self, db: Any, ids: Sequence[str]) -> dict[str, Place]:
        """The place of each turn among ``ids``."""
        if not ids:
            return {}
        rows = db.execute(
            f"SELECT id, agent, scope, session, turn FROM episodes WHERE id IN ({placeholders(ids)}) "
            "AND session IS NOT NULL AND turn IS NOT NULL",
            list(ids),
        ).fetchall()
        return {memory_id: (agent, scope, session, int(turn)) for memory_id, agent, scope, session, turn in rows}

    def _place_turns(self, db: Any, memories: Sequence[Memory], kept: Mapping[str, Place]) -> None:
        """Give each new turn (an episode with a session and no place yet) the next place in its session, in batch
        order; a turn replacing one of the same session (``kept``: the replaced ids' places) keeps its place."""
        last: dict[tuple[str, str, str], int] = {}
        if any(isinstance(m, Episodic) and (m.session or m.speaker) for m in memories):
            presence(self, "turns").saw()
        for memory in memories:
            if not isinstance(memory, Episodic) or memory.session is None or memory.turn is not None:
                continue
            key = (memory.agent, encode_scope(memory.scope), memory.session)
            old = kept.get(memory.id)
            if old is not None and old[:3] == key:
                memory.turn = old[3]
                continue
            if key not in last:
                row = db.execute(
                    "SELECT MAX(turn) FROM episodes WHERE agent = ? AND session = ? AND scope = ?",
                    [key[0], key[2], key[1]],
                ).fetchone()
                last[key] = -1 if row[0] is None else int(row[0])
            last[key] = max(last[key], max((p[3] for p in kept.values() if p[:3] == key), default=-1)) + 1
            memory.turn = last[key]

    def _refresh_turn_context(self, db: Any, places: Iterable[Place], fresh: Collection[str] = ()) -> dict[str, str]:
        """Recompute the neighbours' words of every turn whose window holds one of ``places`` (turns just added or
        removed there), and hand the changed ones to the full-text index. ``fresh``: new memories whose text rows
        are not written yet; their words are returned (id -> words), for the caller to write with the row."""
        before, after = KEYWORD_CONTEXT_TURNS
        sessions: dict[tuple[str, str, str], set[int]] = {}
        for agent, scope, session, turn in places:
            sessions.setdefault((agent, scope, session), set()).add(turn)
        changed: list[tuple[int, str, str]] = []
        words: dict[str, str] = {}
        for (agent, scope, session), turns in sessions.items():
            targets = affected(turns, before, after)
            low, high = min(targets) - before, max(targets) + after
            rows = db.execute(
                "SELECT e.id, e.turn, e.content, t.rowid, t.context FROM episodes e LEFT JOIN memory_text_rows t "
                "ON t.memory_id = e.id WHERE e.agent = ? AND e.session = ? AND e.scope = ? AND e.turn BETWEEN ? AND ? "
                "ORDER BY e.turn, e.id",
                [agent, session, scope, low, high],
            ).fetchall()
            contents: dict[int, list[str]] = {}
            for _, turn, content, _, _ in rows:
                contents.setdefault(int(turn), []).append(content)
            for memory_id, turn, content, rowid, old in rows:
                if int(turn) not in targets:
                    continue
                new = window_text(contents, int(turn), before, after)
                if memory_id in fresh:
                    words[memory_id] = new
                elif rowid is not None and new != (old or ""):
                    changed.append((int(rowid), content, new))
        if changed:
            db.executemany("UPDATE memory_text_rows SET context = ? WHERE rowid = ?", [(c, r) for r, _, c in changed])
            self._index_context(db, changed)
        return words

    def turn_windows(self, ids: Sequence[str], before: int, after: int) -> dict[str, TurnWindow]:
        """For each episode among ``ids`` that has a speaker or is a turn: its speaker and the ids of the turns up to
        ``before`` places before it and ``after`` after it in its session (same agent and scope), in session order."""
        if not ids or not presence(self, "turns").holds_any(self._read_value):
            return {}
        found: dict[str, TurnWindow] = {}
        among, params = self._one_of("c.id", ids)
        with self._read() as db:
            rows = db.execute(
                f"SELECT c.id, c.speaker, n.id FROM episodes c LEFT JOIN episodes n ON {WINDOW.format(c='c', n='n')} "
                f"WHERE {among} "
                "AND (c.session IS NOT NULL OR c.speaker IS NOT NULL) ORDER BY c.id, n.turn, n.id",
                [int(before), int(after), *params],
            ).fetchall()
        for memory_id, speaker, neighbour in rows:
            window = found.setdefault(memory_id, TurnWindow(speaker, []))
            if neighbour is not None:
                window.neighbours.append(neighbour)
        return found
