"""Distractors for the lessons of issue 46: routine notes of the same engineering domain (deploys, reviews, drills,
dashboards) about the same kinds of services, a few hundred of them, from rotating sources. None is a failure, so
none belongs to a lesson's principle."""

from __future__ import annotations

from .case import OBSERVED, TOOL, USER

SERVICES = (
    "the billing service", "the search API", "the mobile app", "the admin site", "the data pipeline",
    "the auth service", "the notification worker", "the reporting job", "the web frontend", "the payments gateway",
    "the image resizer", "the export service", "the partner feed importer", "the recommendation model",
    "the status page",
)  # fmt: skip
EVENTS = (
    "was deployed to staging without issues", "passed all integration tests on the first run",
    "had its minor dependencies updated", "got a new dashboard for request latency",
    "was reviewed by two engineers before the release", "moved to the platform team's ownership",
    "has an updated on-call runbook", "now writes its logs as JSON", "was load tested at twice the usual traffic",
    "has a new alert on its error rate", "finished its quarterly access review", "had its config loading refactored",
    "has documentation for setting it up locally", "passed the weekly backup restore drill",
    "had its old feature flags cleaned up", "shipped a small fix to its settings page",
    "had its slowest query rewritten after profiling", "added tracing to its outgoing requests",
    "rotated its credentials on schedule", "had a flaky test moved to quarantine",
)  # fmt: skip
SOURCES = (OBSERVED, TOOL, USER)


def distractors() -> list[tuple[str, str]]:
    """(source, text) of every service and routine event: 300 notes, the same every time."""
    notes = []
    for i, service in enumerate(SERVICES):
        for j, event in enumerate(EVENTS):
            text = f"{service[0].upper()}{service[1:]} {event}."
            notes.append((SOURCES[(i + j) % len(SOURCES)], text))
    return notes
