"""Settling a contradiction by hand: a person (or an agent acting for one) says which claim holds, or that both do.
The claims are kept either way; the one set aside is disputed, the contradiction resolved, and the decision audited."""

from __future__ import annotations

from ..claims.apply import settle as apply_settlement
from ..errors import InvalidInputError, NotFoundError
from ..models import Contradiction
from ..rules.inputs import check_text
from ..states import TransitionError, contradiction_move
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
        contradiction_move("settle", found.state)  # whether it may be settled now
    except TransitionError as exc:
        raise InvalidInputError(f"contradiction {found.id} cannot be settled: {exc}") from None
    held = ctx.storage.get_memories(list(sides), owner=ctx.tenant)  # a side the tenant cannot see stays as it is
    losers = [side for side in sides if side != winner]
    apply_settlement(ctx, [found], winner, losers, "human", reason, only=set(held))
    return next(c for c in contradictions(ctx) if c.id == found.id)
