"""Expiry the caller asked for: sweeping expired memories away (deleted for good, audit-logged, like forget) and
restarting a memory's time to live when it is read (LangGraph's refresh on read). Reads hide an expired memory at
once (:mod:`audrey_core.stages.recall`, :mod:`audrey_core.stages.records`); the sweep only frees its rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..config import STATES
from ..rules.expiry import expired, expiry
from ..rules.inputs import check_ids_text
from .context import StageContext
from .recall import options

SWEEP_PAGE = 1000  # expired memories deleted per transaction


def sweep(ctx: StageContext) -> list[str]:
    """Delete the tenant's memories that have expired by now, a page per transaction; return their ids."""
    now = ctx.clock()
    checked = options(ctx, SWEEP_PAGE, {"states": list(STATES)}, what="options")  # the tenant's, in any state
    where = replace(checked.where, alive_at=None, expired_by=now)
    swept: list[str] = []
    while True:
        ids = [m.id for m in ctx.storage.list_memories(where, SWEEP_PAGE, 0, newest_first=False)]
        if not ids:
            break
        with ctx.storage.transaction():
            deleted = ctx.storage.delete_memories(ids, owner=ctx.tenant)
            if deleted:
                ctx.storage.audit(ctx.agent, "expire", None, {"ids": deleted, "at": now.isoformat()}, now)
        if deleted:
            ctx.emit("forget", {"memory_ids": deleted, "expired": True})
        swept.extend(deleted)
        if len(deleted) < len(ids):
            break  # the rest went meanwhile (another process swept or forgot them)
    return swept


def refresh(ctx: StageContext, ids: Sequence[str]) -> list[str]:
    """Restart the time to live of the tenant's live memories among ``ids`` that were given one (``ttl=``); return
    the ids refreshed. An expired memory stays expired, and one given a fixed ``expires_at`` keeps it."""
    ids = check_ids_text("refresh_expiry", ids)
    now = ctx.clock()
    found = ctx.storage.get_memories(ids, owner=ctx.tenant)
    live = [m for m in found.values() if m.ttl_seconds is not None and not expired(m.expires_at, now)]
    if live:
        ctx.storage.update_memories({m.id: {"expires_at": expiry(now, None, m.ttl_seconds)} for m in live})
    return [m.id for m in live]
