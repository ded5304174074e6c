"""A background worker thread that processes submitted items in batches (used for validation after encode)."""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


class BatchWorker(Generic[T]):
    """Runs ``process(batch)`` on a daemon thread for items given to :meth:`submit`.

    ``process`` must not raise; if it does, ``on_error`` is called and the worker carries on. :meth:`wait_for_idle`
    blocks until everything submitted so far is processed; :meth:`close` processes what is queued, then stops.
    """

    def __init__(
        self,
        name: str,
        process: Callable[[Sequence[T]], None],
        *,
        batch_size: int = 32,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self._process = process
        self._batch_size = batch_size
        self._on_error = on_error
        self._queue: deque[T] = deque()
        self._pending = 0  # submitted and not yet processed
        self._condition = threading.Condition()
        self._closing = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, items: Sequence[T]) -> None:
        """Queue items for processing; returns at once."""
        if not items:
            return
        with self._condition:
            if self._closing:
                raise RuntimeError("worker is closed")
            self._queue.extend(items)
            self._pending += len(items)
            self._condition.notify_all()

    def wait_for_idle(self, timeout: float | None = None) -> bool:
        """Block until every submitted item is processed; False if ``timeout`` ran out first."""
        if threading.current_thread() is self._thread:
            return self._pending == 0  # called from inside process(): waiting would deadlock
        with self._condition:
            return self._condition.wait_for(lambda: self._pending == 0, timeout)

    @property
    def pending(self) -> int:
        """Items submitted but not yet processed."""
        return self._pending

    def close(self, timeout: float | None = None) -> None:
        """Process what is queued, then stop the thread."""
        with self._condition:
            self._closing = True
            self._condition.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._condition:
                self._condition.wait_for(lambda: self._queue or self._closing)
                if not self._queue:
                    return  # closing and drained
                batch = [self._queue.popleft() for _ in range(min(self._batch_size, len(self._queue)))]
            try:
                self._process(batch)
            except BaseException as exc:  # the worker must survive anything process() lets through
                log.exception("background %s failed on a batch of %d", self._thread.name, len(batch))
                if self._on_error is not None:
                    try:
                        self._on_error(exc)
                    except Exception:
                        log.exception("error handler of %s failed", self._thread.name)
            finally:
                with self._condition:
                    self._pending -= len(batch)
                    self._condition.notify_all()
