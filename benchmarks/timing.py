"""Timing helpers every benchmark shares."""

from __future__ import annotations

import time

import numpy as np


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def timings_ms(call, items, warm: int = 0) -> list[float]:
    """Milliseconds of ``call(item)`` for each item, after ``warm`` untimed calls on the first items."""
    for item in items[:warm]:
        call(item)
    times = []
    for item in items:
        start = time.perf_counter()
        call(item)
        times.append((time.perf_counter() - start) * 1000)
    return times
