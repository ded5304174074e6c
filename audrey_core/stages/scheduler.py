"""Work on a schedule: consolidation every ``interval_seconds`` and/or after ``episode_trigger`` new episodes; the
expiry sweep every ``sweep_interval_seconds``."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from .. import threads

log = logging.getLogger(__name__)


class Schedule:
    """Calls ``run()`` on a thread of :mod:`audrey_core.threads` (named ``name``) when the interval passes or enough
    episodes arrived since the last run. Closing (or the interpreter exiting) lets a run in progress finish."""

    def __init__(
        self,
        run: Callable[[], object],
        interval: float | None,
        episode_trigger: int | None = None,
        name: str = "audrey-consolidation",
    ) -> None:
        self._run = run
        self._name = name
        self._interval = interval
        self._trigger = episode_trigger
        self._new_episodes = 0
        self._closing = False
        self._condition = threading.Condition()
        self.runs = 0
        self._thread = threads.start(self._loop, name)
        threads.register(self)

    def note_episodes(self, count: int) -> None:
        """Count newly encoded episodes; wakes the thread when the trigger is reached."""
        with self._condition:
            self._new_episodes += count
            if self._trigger is not None and self._new_episodes >= self._trigger:
                self._condition.notify_all()

    def stop_for_exit(self) -> None:
        with self._condition:
            self._closing = True
            self._condition.notify_all()

    def close(self, timeout: float = threads.JOIN_TIMEOUT_S) -> bool:
        """Stop; a run in progress finishes first (False if it was still running after ``timeout`` seconds)."""
        self.stop_for_exit()
        threads.unregister(self)
        return threads.join(self._thread, f"a scheduled run of {self._name}", timeout)

    def _due(self) -> bool:
        return self._closing or (self._trigger is not None and self._new_episodes >= self._trigger)

    def _loop(self) -> None:
        while True:
            with self._condition:
                self._condition.wait_for(self._due, self._interval)
                if self._closing:
                    return
                self._new_episodes = 0
            try:
                self._run()
                self.runs += 1
            except Exception:  # reported by run() itself; the schedule goes on
                log.exception("scheduled %s failed", self._name)
