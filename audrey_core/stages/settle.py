"""Settling a contradiction by hand: a person (or an agent acting for one) says which claim holds, or that both do.
The claims are kept either way; the one set aside is disputed, the contradiction resolved, and the decision audited."""

from __future__ import annotations

from dataclasses import replace

from ..errors import InvalidInputError, NotFoundError
from ..models import Contradiction, Resolution, Settlement
from ..rules.inputs import check_text
from ..states import MemoryEvent, TransitionError, contradiction_move, memory_move, movable
from .context import StageContext
from .records import contradictions


def settle(ctx: StageContext, contradiction_id: str, winner: str | None, reason: str = "") -> Contradiction:
    """Resolve the tenant's contradiction ``contradiction_id``: ``winner`` (one of its two claims) stays active and the
    other is disputed; ``winner=None`` keeps both active. Returns the contradiction as it now is."""
    if not isinstance(contradiction_id, str) or not contradiction_id:
        raise InvalidInputError(f"contradiction_id must be a contradiction's id, got {contradiction_id!r}")
    if not isinstance(reason, str):
        raise InvalidInputError(f"reason must be a string, got {reason!r}")
    check_text("reason", reason)
    found = next((c for c in contradictions(ctx) if c.id == contradiction_id), None)
    if found is None:
        raise NotFoundError(f"no contradiction {contradiction_id} for this instance")
    sides = (found.claim_a_id, found.claim_b_id)
    if winner is not None and winner not in sides:
        raise InvalidInputError(f"winner must be one of the contradiction's claims {list(sides)} (or None for both)")
    try:
        state = contradiction_move("settle", found.state)
    except TransitionError as exc:
        raise InvalidInputError(f"contradiction {found.id} cannot be settled: {exc}") from None
    now = ctx.clock()
    events: dict[str, MemoryEvent] = {side: "hold" if winner in (None, side) else "set_aside" for side in sides}
    settled = Settlement(method="human", winner=winner, both_hold=winner is None, reason=reason, at=now)
    earlier = found.resolution or Resolution(relation="contradicts", method="human")
    resolution = replace(earlier, settled=settled, winner=winner)
    decided = {"method": "human", "winner": winner, "both_hold": winner is None, "reason": reason}
    with ctx.storage.transaction():
        held = ctx.storage.get_memories(list(sides), owner=ctx.tenant)
        ctx.storage.update_memories(
            {
                side: {"state": memory_move(event)}
                for side, event in events.items()
                if side in held and held[side].state in movable(event)  # a superseded or sleeping side stays so
            }
        )
        ctx.storage.update_record(
            Contradiction, found.id, {"state": state, "resolution": resolution, "resolved_at": now}
        )
        ctx.storage.audit(ctx.agent, "settle", found.id, decided, now)
    ctx.emit("contradiction", {"contradiction": found, "settled": decided})
    return next(c for c in contradictions(ctx) if c.id == found.id)
