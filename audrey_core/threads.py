"""Every thread Audrey starts, and how they all stop: at ``close()`` and at interpreter exit.

Why one registry: a daemon thread still inside usearch or tantivy (native code that lets go of the GIL) when the
interpreter finalises is unwound through C++ and aborts the process (``terminate called without an active
exception``, exit 134). So no thread here is a daemon: the interpreter waits for each at exit, and before it does,
:func:`_at_exit` (run by ``threading`` before it joins them, as ``concurrent.futures`` does) tells every owner to stop,
so none is left waiting for work that will never come. Work stops between slices (a validation batch, an insert
slice, a 16 MB read); what it did not do is in the database and is picked up by the next open.

Rules every thread follows: it is started by :func:`start` by an owner that joins it in its ``close()``
(:func:`join`, with a timeout, saying what it waited for); it checks :func:`stopping` between slices of work; every
wait it makes has a timeout.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

log = logging.getLogger(__name__)
JOIN_TIMEOUT_S = 60.0  # how long close() waits for one thread to finish its slice before giving up (and saying so)


class ReadersFirst:
    """Background work gives way to reads. A recall marks itself :meth:`reading`; background work calls
    :meth:`give_way` between its units (an episode validated): once it has worked ``turn`` seconds, it waits there
    while any read runs, at most ``patience`` seconds, so that it still progresses under a steady stream of reads
    (a share of about turn / (turn + patience) of the time). Why: in CPython one thread runs Python at a time, and a
    thread asking for the interpreter back waits up to the switch interval (5 ms) for the one holding it; a recall
    returns from the database and the search indexes many times, and beside a validation thread each return waited."""

    def __init__(self) -> None:
        self._reads = 0
        self._condition = threading.Condition()
        self._working_since = time.monotonic()

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._condition:
            self._reads += 1
        try:
            yield
        finally:
            with self._condition:
                self._reads -= 1
                if not self._reads:
                    self._condition.notify_all()

    def give_way(self, patience: float, turn: float = 0.0) -> None:
        """Once the caller has worked ``turn`` seconds since it last gave way, wait while a read runs, at most
        ``patience`` seconds."""
        if time.monotonic() - self._working_since < turn:
            return
        with self._condition:
            if self._reads:
                self._condition.wait_for(lambda: not self._reads, patience)
        self._working_since = time.monotonic()


class Stoppable(Protocol):
    def stop_for_exit(self) -> None:
        """Ask this owner's threads to stop after their current slice of work (without waiting for them)."""


_owners: weakref.WeakSet[Stoppable] = weakref.WeakSet()
_owners_lock = threading.Lock()
_stopping = threading.Event()


def start(work: Callable[[], object], name: str) -> threading.Thread:
    """Start ``work`` on a thread the interpreter waits for at exit (see the module's docstring)."""
    thread = threading.Thread(target=work, name=name, daemon=False)
    thread.start()
    return thread


def join(
    thread: threading.Thread | None, what: str, timeout: float | None = JOIN_TIMEOUT_S, quiet: bool = False
) -> bool:
    """Wait up to ``timeout`` seconds (None: as long as it runs) for ``thread`` (None, or the calling thread itself:
    nothing to wait for); False if it is still running, logged with ``what`` it was doing unless ``quiet``."""
    if thread is None or thread is threading.current_thread():
        return True
    thread.join(timeout)
    if thread.is_alive():
        if not quiet:
            log.warning("%s (thread %s) did not finish within %s s; left running", what, thread.name, timeout)
        return False
    return True


def stopping() -> bool:
    """Whether the interpreter is shutting down: background work should stop at its next slice."""
    return _stopping.is_set() or not threading.main_thread().is_alive()


def register(owner: Stoppable) -> None:
    """Have ``owner.stop_for_exit()`` called at interpreter exit (held weakly: a collected owner is forgotten)."""
    with _owners_lock:
        _owners.add(owner)


def unregister(owner: Stoppable) -> None:
    with _owners_lock:
        _owners.discard(owner)


def _at_exit() -> None:
    _stopping.set()
    with _owners_lock:
        owners = list(_owners)
    for owner in owners:
        try:
            owner.stop_for_exit()
        except Exception:  # one owner failing must not keep the others running
            log.exception("stopping %r at exit failed", owner)


threading._register_atexit(_at_exit)  # type: ignore[attr-defined]  # runs before the interpreter joins threads
