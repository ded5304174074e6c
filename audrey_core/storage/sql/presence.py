"""Kinds of rows a store may hold none of: while it holds none, a read skips the statement that would find nothing
(on PostgreSQL a round trip and its planning each, ~0.5 ms of a recall).

* ``turns``: episodes with a session or a speaker (recall reads no turn windows without them);
* ``chunks``: vector rows of texts stored in chunks (recall reads no chunk spans without them; an index holds them
  apart, so asking costs nothing at any size).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, Literal

Kind = Literal["turns", "chunks"]

HELD: dict[Kind, str] = {  # one row, one column: true when the store holds any
    "turns": "SELECT EXISTS (SELECT 1 FROM episodes WHERE session IS NOT NULL) "
    "OR EXISTS (SELECT 1 FROM episodes WHERE speaker IS NOT NULL)",
    "chunks": "SELECT EXISTS (SELECT 1 FROM memory_vector_rows WHERE chunk_start IS NOT NULL)",
}

RECHECK_S = 1.0
"""how often a store not yet seen to hold a kind asks again: another process may write the first one"""


class Presence:
    """Whether a store holds any row of one kind. Asked of the database at most once a :data:`RECHECK_S` until seen;
    known at once when this process writes one (:meth:`saw`); never forgotten (once all are removed, the reads it
    guards run and find nothing, as before)."""

    __slots__ = ("checked", "seen", "sql")

    def __init__(self, sql: str) -> None:
        self.sql = sql
        self.seen = False
        self.checked = -math.inf

    def holds_any(self, read: Callable[[str], Any]) -> bool:
        now = time.monotonic()
        if not self.seen and now - self.checked >= RECHECK_S:
            self.seen, self.checked = bool(read(self.sql)), now
        return self.seen

    def saw(self) -> None:
        self.seen = True


def presence(store: object, kind: Kind) -> Presence:
    """``store``'s :class:`Presence` of ``kind``, made on first use (``dict.setdefault`` keeps one a store whichever
    thread asks first, so a :meth:`Presence.saw` is never lost)."""
    found: Presence = vars(store).setdefault(f"_presence_{kind}", Presence(HELD[kind]))
    return found
