"""DECAY: unused memories fade and fall dormant; nothing is ever deleted (seed 002 step 5).

A memory goes dormant when its *retention*, confidence x recency, drops below ``dormant_threshold``. (The seed
applies the threshold to confidence alone, but with its default weights confidence never falls below
w_s * 0.40 = 0.12, so nothing would ever fade; scaling by recency makes "unused" mean what it says.) Dormant memories
keep their previous state in ``prior_state``, are found with ``include_dormant=True``, and wake when retrieved.
"""

from __future__ import annotations

from ..models import DecayReport
from ..rules.confidence import memory_confidence
from ..states import memory_move, movable
from .context import StageContext

DECAYING_STATES = movable("fall_asleep")


def retention(confidence: float, recency: float) -> float:
    """How strongly a memory is held: its confidence scaled by its recency."""
    return confidence * recency


def decay(ctx: StageContext) -> DecayReport:
    """Recompute every live memory's retention at ``ctx.clock()`` and put the faded ones to sleep."""
    now = ctx.clock()
    threshold = ctx.config.decay.dormant_threshold
    examined = 0
    asleep: list[str] = []
    tenant = ctx.tenant
    for memory in ctx.storage.iter_memories(ctx.agent, DECAYING_STATES):
        if not tenant.owns(memory):
            continue
        examined += 1
        breakdown = memory_confidence(memory, now, ctx.config.confidence)
        if retention(breakdown.value, breakdown.recency) < threshold:
            asleep.append(memory.id)
    ctx.storage.set_states(dict.fromkeys(asleep, memory_move("fall_asleep")))
    report = DecayReport(examined=examined, dormant_ids=tuple(asleep), threshold=threshold, at=now)
    ctx.emit("decay", {"report": report})
    return report
