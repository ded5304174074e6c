"""What the pages show, computed from Audrey's records: a result's score as its parts, a memory's confidence over
time, the timeline's buckets. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any

from ..config import ConfidenceConfig
from ..models import Memory, RecallResult
from ..rules.confidence import memory_confidence

CURVE_POINTS = 60
PROJECTED_DAYS = 30


def score_parts(result: RecallResult, influence: float, cfg: ConfidenceConfig | None = None) -> dict[str, Any]:
    """How ``result``'s score was made: relevance x confidence (with ``RecallConfig.confidence_influence`` w below 1,
    relevance x (1 - w + w x confidence)), and the confidence's own parts, each with its weight (``cfg``'s), so the
    page shows how they add up to the confidence (``combined``)."""
    cfg = cfg or ConfidenceConfig()
    relevance = result.relevance if result.relevance is not None else result.similarity
    weight = 1 - influence + influence * result.confidence
    formula = f"{relevance:.3f} × {result.confidence:.3f}"
    if influence != 1.0:
        formula = f"{relevance:.3f} × (1 − {influence:g} + {influence:g} × {result.confidence:.3f})"
        formula += f" = {relevance:.3f} × {weight:.3f}"
    parts = result.breakdown
    weighted = [
        ("source", cfg.weight_source, parts.source),
        ("evidence", cfg.weight_evidence, parts.evidence),
        ("recency", cfg.weight_recency, parts.recency),
        ("retrieval", cfg.weight_retrieval, parts.retrieval),
    ]
    combined = " + ".join(f"{weight:.2f} × {name} {value:.2f}" for name, weight, value in weighted)
    if parts.capped:
        combined += f", capped at {cfg.model_generated_cap:.2f} (model-generated)"
    return {
        "relevance": relevance,
        "formula": formula,
        "score": result.score,
        "confidence": result.confidence,
        "parts": [(name, value) for name, _, value in weighted],
        "combined": combined,
        "capped": parts.capped,
    }


def as_known_at(memory: Memory, moment: datetime) -> Memory:
    """``memory`` as it stood at ``moment`` as far as its record tells: a reinforcement or retrieval recorded later
    had not happened yet (earlier ones than the last are not kept, so their effect shows from the start)."""
    reinforced = memory.last_reinforced_at
    reinforced = reinforced if reinforced is not None and reinforced <= moment else None
    retrieved = memory.last_retrieved_at is not None and memory.last_retrieved_at <= moment
    return replace(
        memory,
        last_reinforced_at=reinforced,
        last_retrieved_at=memory.last_retrieved_at if retrieved else None,
        retrieval_count=memory.retrieval_count if retrieved else 0,
    )


def confidence_curve(
    memory: Memory, now: datetime, cfg: ConfidenceConfig
) -> tuple[list[tuple[datetime, float]], list[tuple[datetime, float]], list[tuple[datetime, str]]]:
    """The memory's confidence from when it was stored until now, its projection ``PROJECTED_DAYS`` ahead without
    use (decay), and the moments that changed it (stored, last reinforced, last retrieved, replaced)."""
    start = memory.created_at
    known = [t for t in (memory.last_reinforced_at, memory.last_retrieved_at, memory.valid_until) if t is not None]
    now = max([now, *known])  # a store written with another clock may hold times ahead of this one
    span = max(now - start, timedelta(hours=1))
    past = [start + span * i / CURVE_POINTS for i in range(CURVE_POINTS + 1)]
    points = [(t, memory_confidence(as_known_at(memory, t), t, cfg).value) for t in past]
    ahead = [now + timedelta(days=PROJECTED_DAYS) * i / 10 for i in range(1, 11)]
    projected = [(t, memory_confidence(memory, t, cfg).value) for t in ahead]
    marks = [(start, "stored")]
    if memory.last_reinforced_at:
        marks.append((memory.last_reinforced_at, "reinforced"))
    if memory.last_retrieved_at:
        marks.append((memory.last_retrieved_at, "retrieved"))
    if memory.valid_until:
        marks.append((memory.valid_until, "replaced"))
    return points, projected, marks


def timeline_buckets(
    rows: Sequence[tuple[str, str, str, int]], by: str
) -> tuple[str, list[tuple[str, dict[str, int]]]]:
    """(day, type, state, count) rows summed per bucket (a day, a week or a month, whichever keeps the bars
    readable) and per ``by`` ("type" or "state"). Returns the bucket's name and the buckets in order."""
    if not rows:
        return "day", []
    first, last = date.fromisoformat(rows[0][0]), date.fromisoformat(rows[-1][0])
    days = (last - first).days + 1
    unit = "day" if days <= 62 else "week" if days <= 7 * 70 else "month"
    buckets: dict[str, dict[str, int]] = {}
    for day, memory_type, state, count in rows:
        label = _bucket(date.fromisoformat(day), unit)
        key = memory_type if by == "type" else state
        counts = buckets.setdefault(label, {})
        counts[key] = counts.get(key, 0) + count
    return unit, sorted(buckets.items())


def _bucket(day: date, unit: str) -> str:
    if unit == "day":
        return day.isoformat()
    if unit == "week":
        return (day - timedelta(days=day.weekday())).isoformat()
    return day.strftime("%Y-%m")
