"""A background worker thread that processes submitted items in batches (used for validation after encode)."""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from .. import threads

T = TypeVar("T")
log = logging.getLogger(__name__)


class BatchWorker(Generic[T]):
    """Runs ``process(batch)`` on a thread of :mod:`audrey_core.threads` for items given to :meth:`submit`.

    ``process`` must not raise; if it does, ``on_error`` is called and the worker carries on. :meth:`wait_for_idle`
    blocks until everything submitted so far is processed; :meth:`close` processes what is queued, then stops. At
    interpreter exit the worker stops after the batch under way (:meth:`stop_for_exit`): the items left are dropped,
    so the caller must keep its own record of them (validation's is in the database), and ``on_exit()`` runs on the
    worker's thread as it ends.
    """

    def __init__(
        self,
        name: str,
        process: Callable[[Sequence[T]], None],
        *,
        batch_size: int = 32,
        on_error: Callable[[BaseException], None] | None = None,
        on_exit: Callable[[], None] | None = None,
    ) -> None:
        self._process = process
        self._batch_size = batch_size
        self._on_error = on_error
        self._on_exit = on_exit
        self._queue: deque[T] = deque()
        self._pending = 0  # submitted and not yet processed (or dropped)
        self._condition = threading.Condition()
        self._closing = False  # close(): drain the queue, then stop
        self._abandon = False  # exit: stop after the batch under way
        self._thread = threads.start(self._run, name)
        threads.register(self)

    def submit(self, items: Sequence[T]) -> None:
        """Queue items for processing; returns at once. After exit began they are dropped (see the class)."""
        if not items:
            return
        with self._condition:
            if self._closing and not self._abandon:
                raise RuntimeError("worker is closed")
            if self._abandon:
                return
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

    def close(self, timeout: float | None = None) -> bool:
        """Process what is queued, then stop the thread; False if it was still running after ``timeout`` seconds
        (None: as long as the queue takes)."""
        with self._condition:
            self._closing = True
            self._condition.notify_all()
        threads.unregister(self)
        if threading.current_thread() is self._thread:
            return True
        if timeout is not None:
            return threads.join(self._thread, f"processing the queue of {self._pending} items", timeout)
        while not threads.join(self._thread, f"processing the queue ({self._pending} items left)", quiet=True):
            log.info("%s: %d items left to process before closing", self._thread.name, self._pending)
        return True

    def stop_for_exit(self) -> None:
        with self._condition:
            self._closing = self._abandon = True
            self._pending -= len(self._queue)
            self._queue.clear()
            self._condition.notify_all()

    def _run(self) -> None:
        while True:
            with self._condition:
                self._condition.wait_for(lambda: self._queue or self._closing)
                if not self._queue:
                    break  # closing and drained (or abandoned at exit)
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
        if self._abandon and self._on_exit is not None:
            try:
                self._on_exit()
            except Exception:
                log.exception("exit handler of %s failed", self._thread.name)
