"""Catching an index up once for a batch of searches instead of before each one."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager


class CatchUpOnce:
    """Per thread: inside :meth:`scope`, an index's ``ensure_fresh`` reads the change log on the first search only.
    Why: reading the log's head costs a query (~30 us, and the GIL) per search; validation makes two or three
    searches per episode, for batches of hundreds, and need not see rows committed while it runs (an episode encoded
    meanwhile is validated later, against these)."""

    def __init__(self) -> None:
        self._local = threading.local()

    @contextmanager
    def scope(self) -> Iterator[None]:
        depth = getattr(self._local, "depth", 0)
        if depth == 0:
            self._local.done = False
        self._local.depth = depth + 1
        try:
            yield
        finally:
            self._local.depth = depth

    def done(self) -> bool:
        """Whether this thread is inside a scope whose index is caught up already."""
        return getattr(self._local, "depth", 0) > 0 and self._local.done

    def mark(self) -> None:
        """The index is caught up: the rest of this thread's scope need not look again."""
        if getattr(self._local, "depth", 0) > 0:
            self._local.done = True


class CatchesUpOnce:
    """Mixed into an index whose ``_ensure_fresh`` catches it up from the change log."""

    _once: CatchUpOnce

    def ensure_fresh(self) -> None:
        """Apply every logged change not in the index yet; inside :meth:`caught_up_once`, on this thread's first
        call only."""
        if self._once.done():
            return
        self._ensure_fresh()  # type: ignore[attr-defined]
        self._once.mark()

    def caught_up_once(self) -> AbstractContextManager[None]:
        return self._once.scope()
