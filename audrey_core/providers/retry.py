"""Retrying calls to remote providers (embeddings, LLMs) with exponential backoff and jitter."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


def backoff(attempt: int, base_delay: float, max_delay: float) -> float:
    """Seconds to wait after failed try ``attempt`` (from 0): exponential, capped, with 50-100% jitter."""
    return min(max_delay, base_delay * 2**attempt) * (0.5 + random.random() / 2)


def call_with_retries(
    call: Callable[[], T],
    *,
    retryable: tuple[type[BaseException], ...],
    attempts: int = 5,
    base_delay: float = 0.5,
    max_delay: float = 20.0,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``call``; on a ``retryable`` error wait base_delay * 2**n (+ jitter, capped) and try again.

    After ``attempts`` tries the last error propagates.
    """
    for attempt in range(attempts):
        try:
            return call()
        except retryable as exc:
            if attempt == attempts - 1:
                raise
            delay = backoff(attempt, base_delay, max_delay)
            log.info(
                "retrying after %s (attempt %d of %d, waiting %.2fs)", type(exc).__name__, attempt + 1, attempts, delay
            )
            sleep(delay)
    raise AssertionError("unreachable")  # pragma: no cover
