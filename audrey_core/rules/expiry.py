"""Expiry: a time to live the caller gives a memory ("forget this after a week"). Unlike decay, which only puts a
memory to sleep, an expired memory is gone at once for every read and deleted by the next sweep. Pure."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from ..errors import InvalidInputError
from .inputs import check_moment

MAX_TTL_S = 100 * 365.25 * 86400.0  # a century: anything longer is a mistake in the unit (minutes given as ms...)


def check_ttl(ttl: Any, name: str = "ttl") -> float | None:
    """A time to live in seconds (a positive number or a ``timedelta``), or None."""
    if ttl is None:
        return None
    if isinstance(ttl, timedelta):
        ttl = ttl.total_seconds()
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not math.isfinite(ttl):
        raise InvalidInputError(f"{name} must be a number of seconds or a timedelta, got {ttl!r}")
    if not 0 < ttl <= MAX_TTL_S:
        raise InvalidInputError(f"{name} must be more than 0 seconds and at most a century, got {ttl!r}")
    return float(ttl)


def check_expiry(expires_at: Any, ttl: Any) -> tuple[datetime | None, float | None]:
    """encode's ``expires_at=`` (a timezone-aware datetime) and ``ttl=`` (seconds or a timedelta), at most one."""
    if expires_at is not None and ttl is not None:
        raise InvalidInputError("pass expires_at= or ttl=, not both")
    return check_moment("expires_at", expires_at), check_ttl(ttl)


def expiry(now: datetime, expires_at: datetime | None, ttl_seconds: float | None) -> datetime | None:
    """When a memory stored (or refreshed) ``now`` expires."""
    if ttl_seconds is not None:
        return now + timedelta(seconds=ttl_seconds)
    return expires_at


def expired(expires_at: datetime | None, now: datetime) -> bool:
    """Whether a memory expiring at ``expires_at`` is gone at ``now`` (an expiry is the first moment it is gone)."""
    return expires_at is not None and expires_at <= now
