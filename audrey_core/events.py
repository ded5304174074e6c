"""Event names and a small dispatcher: ``brain.on("contradiction", handler)``.

A handler that raises never breaks the pipeline: the error is logged and reported as an ``error`` event.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from .errors import InvalidInputError

log = logging.getLogger("audrey_core.events")

EVENTS: tuple[str, ...] = (
    "encode",
    "forget",
    "reinforcement",
    "contradiction",
    "update",
    "reopen",
    "consolidation",
    "decay",
    "rollback",
    "error",
)
Handler = Callable[[dict[str, Any]], Any]


class EventBus:
    """Registers handlers per event name and calls them in registration order."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = {name: [] for name in EVENTS}
        self._lock = threading.Lock()

    def on(self, event: str, handler: Handler) -> Handler:
        """Call ``handler(payload)`` whenever ``event`` happens; returns the handler (usable as a decorator)."""
        self._check(event)
        if not callable(handler):
            raise InvalidInputError(f"handler for {event!r} must be callable, got {type(handler).__name__}")
        with self._lock:
            self._handlers[event].append(handler)
        return handler

    def off(self, event: str, handler: Handler | None = None) -> None:
        """Remove ``handler`` from ``event`` (or every handler of ``event`` when none is given)."""
        self._check(event)
        with self._lock:
            if handler is None:
                self._handlers[event].clear()
            elif handler in self._handlers[event]:
                self._handlers[event].remove(handler)

    def has_handlers(self, event: str) -> bool:
        """Whether anything listens to ``event`` (lets callers skip building payloads)."""
        return bool(self._handlers[event])

    def emit(self, event: str, payload: dict[str, Any]) -> None:
        """Call every handler of ``event``; isolate and report handler failures."""
        with self._lock:
            handlers = list(self._handlers[event])
        for handler in handlers:
            try:
                handler(payload)
            except Exception as exc:
                log.exception("Audrey %r event handler %r raised", event, handler)
                if event != "error":
                    self.emit("error", {"event": event, "handler": handler, "error": exc, "payload": payload})

    @staticmethod
    def _check(event: str) -> None:
        if event not in EVENTS:
            raise InvalidInputError(f"unknown event {event!r}; events are {', '.join(EVENTS)}")
