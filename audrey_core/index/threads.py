"""Background threads for index upkeep that are safe at interpreter exit."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path


def background(work: Callable[[], object], name: str) -> threading.Thread:
    """Start ``work`` on a thread the interpreter waits for at exit: a daemon thread inside usearch (which lets go
    of the GIL) when the interpreter shuts down is unwound through C++ and aborts the process."""
    thread = threading.Thread(target=work, name=name, daemon=False)
    thread.start()
    return thread


def exiting() -> bool:
    """Whether the interpreter is shutting down (work between slices should stop)."""
    return not threading.main_thread().is_alive()


def prefetch(paths: list[Path], stop: Callable[[], bool]) -> threading.Thread:
    """Read ``paths`` through once on a background thread, so the pages a mapped snapshot's first searches need
    are in the OS's cache rather than each fetched from disk inside a recall (at 1M rows, re-scoring from a cold
    float32 rows file put the first pass's p95 at 34 ms against 5.7 ms warm). Plain reads: safe to abandon at exit."""

    def read() -> None:
        buffer = bytearray(1 << 20)
        for path in paths:
            try:
                with open(path, "rb", buffering=0) as handle:
                    while not stop() and handle.readinto(buffer):
                        pass
            except OSError:  # replaced or deleted meanwhile: nothing to warm
                continue

    thread = threading.Thread(target=read, name="audrey-prefetch", daemon=True)
    thread.start()
    return thread
