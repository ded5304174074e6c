"""Timestamps: always timezone-aware UTC, stored as fixed-width ISO 8601 text so they sort as strings."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

Clock = Callable[[], datetime]
SECONDS_PER_DAY = 86_400.0


def system_clock() -> datetime:
    """The current time in UTC."""
    return datetime.now(timezone.utc)


def to_iso(moment: datetime) -> str:
    """Format an aware datetime as UTC ISO 8601 with microseconds (fixed width, sortable)."""
    if moment.tzinfo is None:
        raise ValueError("naive datetime: Audrey needs timezone-aware datetimes (use timezone.utc)")
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def from_iso(text: str) -> datetime:
    """Parse a timestamp written by :func:`to_iso`."""
    return datetime.fromisoformat(text)


def days_between(earlier: datetime, later: datetime) -> float:
    """Elapsed days from ``earlier`` to ``later``, never negative (clock skew counts as zero)."""
    return max(0.0, (later - earlier).total_seconds() / SECONDS_PER_DAY)
