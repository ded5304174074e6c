"""Catching an index up once for a batch of searches instead of before each one."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import IndexNotReady

log = logging.getLogger(__name__)


def check_not_building(index: Any, name: str) -> None:
    """Raise :class:`IndexNotReady` while ``index`` (the ``name`` index) is rebuilt in the background, and once the
    reason a background rebuild failed (a ``RuntimeError``: the caller backs off a while, then tries again)."""
    if index.building():
        raise IndexNotReady(f"the {name} index is being rebuilt in the background")
    if index._build_error is not None:
        error, index._build_error = index._build_error, None
        raise RuntimeError(f"the {name} index could not be rebuilt: {error}")


def caught_up_by(index: Any, until: float) -> bool:
    """Catch ``index`` up with the database, waiting for a rebuild in the background if one runs (or starts), until
    the monotonic time ``until``; whether it is caught up. For ``wait_for_idle``: a failure is logged, not raised
    (the index is a cache: searches go to the database meanwhile)."""
    while not index.closed:
        try:
            index.ensure_fresh()
            return True
        except IndexNotReady:  # a rebuild runs (or just started): wait for it to end, then try again
            left = None if until == float("inf") else until - time.monotonic()
            if (left is not None and left <= 0) or not index.wait_for_build(left):
                return False
        except (RuntimeError, OSError) as exc:
            log.warning("%s not caught up: %s", type(index).__name__, exc)
            return False
    return False


class CatchUpOnce:
    """Owned by an index, whose ``catch_up`` applies its change log. Inside :meth:`caught_up_once`,
    :meth:`ensure_fresh` reads the log on this thread's first call only. Why: reading the log's head costs a query
    (~30 us, and the GIL) per search; validation makes two or three searches per episode, for batches of hundreds,
    and need not see rows committed while it runs (an episode encoded meanwhile is validated later, against these)."""

    def __init__(self, catch_up: Callable[[], None]) -> None:
        self._catch_up = catch_up
        self._scopes = threading.local()  # per thread: depth (scopes entered), done (caught up in the outermost one)
        self._batches = 0  # outermost scopes under way, on every thread
        self._batches_lock = threading.Lock()  # a leaf: guards the count only

    def ensure_fresh(self) -> None:
        """Apply every logged change not in the index yet; inside :meth:`caught_up_once`, on this thread's first
        call only."""
        inside = self.in_a_batch()
        if inside and self._scopes.done:
            return
        self._catch_up()
        if inside:
            self._scopes.done = True

    def in_a_batch(self) -> bool:
        """Whether this thread is inside :meth:`caught_up_once` (running a validation batch)."""
        return getattr(self._scopes, "depth", 0) > 0

    def batches_under_way(self) -> bool:
        """Whether some thread is inside :meth:`caught_up_once` (a validation batch is running)."""
        return self._batches > 0

    @contextmanager
    def caught_up_once(self) -> Iterator[None]:
        scopes = self._scopes
        depth = getattr(scopes, "depth", 0)
        if depth == 0:
            scopes.done = False
            with self._batches_lock:
                self._batches += 1
        scopes.depth = depth + 1
        try:
            yield
        finally:
            scopes.depth = depth
            if depth == 0:
                with self._batches_lock:
                    self._batches -= 1
