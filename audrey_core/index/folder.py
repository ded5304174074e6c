"""An index folder beside the database: its state file (written atomically) and one writer at a time across
processes (an OS lock the kernel releases when its holder dies)."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

try:
    import fcntl
except ImportError:  # Windows: writers are serialised within a process only
    fcntl = None  # type: ignore[assignment]


WRITER_WAIT_S = 600.0  # a rebuild by another process at 1M rows takes minutes; after this the caller gives up


class IndexLockTimeout(TimeoutError):
    """The folder's writer lock was not free in time (or the waiter was told to stop)."""


class IndexFolder:
    """``path`` is None for an index kept in memory (a ``:memory:`` store): the state lives in this object. The
    folder is made by the first writer (:meth:`writer_lock`), not here: a store opens where it cannot be written."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._state: dict[str, Any] = {}
        self._lock = threading.Lock()

    def read_state(self) -> dict[str, Any]:
        if self.path is None:
            return dict(self._state)
        try:
            state = json.loads((self.path / "state.json").read_text())
        except (OSError, ValueError):
            return {}  # missing or damaged: the index is rebuilt
        return state if isinstance(state, dict) else {}

    def next_generation(self) -> str:
        """The name of the next generation of files ("g1", "g2", ...) after the one the state file names (the caller
        holds the writer lock)."""
        number = int(str(self.read_state().get("generation") or "g0").lstrip("g") or 0) + 1
        return f"g{number}"

    def write_state(self, state: dict[str, Any]) -> None:
        if self.path is None:
            self._state = dict(state)
            return
        temporary = self.path / f"state.json.{os.getpid()}.tmp"
        temporary.write_text(json.dumps(state))
        os.replace(temporary, self.path / "state.json")  # readers see the old state or the new one, never half

    @contextmanager
    def writer_lock(self, timeout: float = WRITER_WAIT_S, stop: Callable[[], bool] = lambda: False) -> Iterator[None]:
        """Be the one writer of this folder (across threads and processes). Waits up to ``timeout`` seconds, and no
        longer once ``stop()`` is true; then raises :class:`IndexLockTimeout` (the index is a cache: the caller
        skips or defers its write)."""
        deadline = time.monotonic() + timeout
        if not self._lock.acquire(timeout=timeout):
            raise IndexLockTimeout(f"another thread held the writer lock of {self.path} for {timeout:.0f} s")
        try:
            if self.path is None:
                yield
                return
            if fcntl is None:
                self.path.mkdir(parents=True, exist_ok=True)
                yield
                return
            with self._locked_file(deadline, stop):
                yield  # closing the file releases the lock
        finally:
            self._lock.release()

    def _locked_file(self, deadline: float, stop: Callable[[], bool]) -> BinaryIO:
        """The lock file now in the folder, locked. The folder may be deleted under a running store (and made again
        by another process): a lock on a file no longer there excludes no one, so it is taken again on the new one.
        Polled (flock cannot time out): every 10 ms, until ``deadline`` or ``stop()``."""
        assert self.path is not None and fcntl is not None
        lock_file = self.path / "writer.lock"
        while True:
            self.path.mkdir(parents=True, exist_ok=True)
            handle = open(lock_file, "a+b")  # noqa: SIM115 (the caller closes it)
            while True:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if stop() or time.monotonic() >= deadline:
                        handle.close()
                        raise IndexLockTimeout(f"another process holds {lock_file}") from None
                    time.sleep(0.01)
            try:
                if os.fstat(handle.fileno()).st_ino == lock_file.stat().st_ino:
                    return handle
            except FileNotFoundError:
                pass
            handle.close()

    def size_on_disk(self) -> int:
        if self.path is None:
            return 0
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())
