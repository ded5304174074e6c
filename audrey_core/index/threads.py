"""Index upkeep's threads: started and stopped through :mod:`audrey_core.threads` (never daemons), at a lower
priority, and the read-ahead of a store's files."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Collection
from pathlib import Path

from ..threads import start as background
from ..threads import stopping as exiting

__all__ = ["background", "exiting", "lower_priority", "prefetch"]


def prefetch(paths: list[Path], stop: Callable[[], bool], touch: Collection[Path] = ()) -> threading.Thread:
    """Read ``paths`` through once on a background thread, so the pages the first searches need are in the OS's
    cache rather than each fetched from disk inside a recall (at 1M rows, re-scoring from a cold float32 rows file put
    the first pass's p95 at 34 ms against 5.7 ms warm). A file is spliced to /dev/null where the OS can
    (``sendfile``): pages already cached cost almost nothing, so the read-ahead takes little CPU from the first
    catch-up and recalls after opening a warm store. Files in ``touch`` are copied through memory instead, so the CPU
    has touched every page before a search does: a graph walk touches its file's pages at random, and on the machine
    we measure on (a Firecracker VM) pages that came from disk without the CPU touching them made a fresh process's
    first pass of walks take up to twice as long as the next pass (see README)."""

    def read() -> None:
        for path in paths:
            try:
                _read_through(path, lambda: stop() or exiting(), splice=path not in touch)
            except OSError:  # replaced or deleted meanwhile: nothing to warm
                continue

    return background(read, "audrey-prefetch")


def _read_through(path: Path, stop: Callable[[], bool], splice: bool = True, chunk: int = 1 << 24) -> None:
    offset = 0
    with open(path, "rb", buffering=0) as handle:
        if splice:
            try:
                with open(os.devnull, "wb", buffering=0) as sink:
                    while not stop() and (sent := os.sendfile(sink.fileno(), handle.fileno(), offset, chunk)):
                        offset += sent
                    return
            except (AttributeError, OSError):  # no sendfile here (or not to this sink): read the rest instead
                handle.seek(offset)
        buffer = bytearray(1 << 20)
        while not stop() and handle.readinto(buffer):
            pass


def lower_priority(niceness: int = 10) -> None:
    """Let the calling thread (and the threads it starts: usearch's insert workers) run only on the CPU the
    foreground leaves (Linux: a thread's niceness is its own). Index upkeep can wait; encode and validation should
    not wait for it on a busy machine."""
    if not sys.platform.startswith("linux"):  # elsewhere the id may name a process, not this thread
        return
    with contextlib.suppress(OSError):  # not allowed: run at the usual priority
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
