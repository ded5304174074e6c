"""Background threads for index upkeep that are safe at interpreter exit."""

from __future__ import annotations

import threading
from collections.abc import Callable


def background(work: Callable[[], object], name: str) -> threading.Thread:
    """Start ``work`` on a thread the interpreter waits for at exit: a daemon thread inside usearch (which lets go
    of the GIL) when the interpreter shuts down is unwound through C++ and aborts the process."""
    thread = threading.Thread(target=work, name=name, daemon=False)
    thread.start()
    return thread


def exiting() -> bool:
    """Whether the interpreter is shutting down (work between slices should stop)."""
    return not threading.main_thread().is_alive()
