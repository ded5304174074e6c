"""One lesson of experience for issue 46: the same failure met three times in other words, from three sources."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lesson:
    """``reports``: (source, text) of each time the lesson was met, in other words; ``negative``: another failure of
    the same tool or service, a different lesson that must never join this one's principle; ``task``: what the agent
    says it is about to do before the next attempt, without naming the failure."""

    key: str
    reports: tuple[tuple[str, str], ...]
    negative: tuple[str, str]
    task: str


OBSERVED, TOOL, USER = "direct-observation", "tool-result", "told-by-user"
