"""The readings of stored statements (:mod:`.parse`), kept with their episodes as derived data.

Validation reads each new statement once and stores its reading; a statement already stored is not parsed again
when it is a neighbour of another, and recall, in a process that has not loaded the parser, still reads the
statements it found as validation read them. The database stays the truth: a reading is rebuilt from the text by a
parse whenever it is missing or was made by another reader (:func:`~.parse.reader`), and goes with its episode.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Episodic, Memory
from ..storage import Storage
from .parse import (
    from_json,
    is_read,
    is_statement,
    known,
    parser_available,
    parser_installed,
    read,
    read_many,
    reader,
    to_json,
)


def statements_read(storage: Storage, memories: Sequence[Memory]) -> None:
    """Make the readings of the statements among ``memories`` known: those stored, and the rest parsed in one
    batch and stored (nothing without a parser)."""
    episodes = _statements(memories)
    if not episodes or not parser_available():
        return
    stored = _known_from(storage, episodes)
    unread = [e for e in episodes if e.id not in stored]
    read_many([e.content for e in unread])
    storage.keep_readings({e.id: to_json(read(e.content)) for e in unread}, reader())


def stored_readings_known(storage: Storage, memories: Sequence[Memory]) -> None:
    """Make the stored readings of the statements among ``memories`` known, parsing nothing (recall never waits
    for the parser to load); the store is asked only for those not known here already."""
    episodes = [e for e in _statements(memories) if not is_read(e.content)]
    if episodes and parser_installed():
        _known_from(storage, episodes)


def _statements(memories: Sequence[Memory]) -> list[Episodic]:
    unique = {m.id: m for m in memories}
    return [m for m in unique.values() if isinstance(m, Episodic) and is_statement(m.content)]


def _known_from(storage: Storage, episodes: Sequence[Episodic]) -> set[str]:
    """Take the stored readings of ``episodes``; return the ids that had one."""
    stored = storage.readings([e.id for e in episodes], reader())
    for episode in episodes:
        if episode.id in stored:
            known(episode.content, from_json(stored[episode.id]))
    return set(stored)


__all__ = ["statements_read", "stored_readings_known"]
