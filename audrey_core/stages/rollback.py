"""ROLLBACK: unwind one consolidation run (seed 002, Rollback Strategy).

The run's principles become ``rolled_back`` (kept for the audit trail, out of recall), its episodes become
unconsolidated again, the memories it reinforced or disputed get their prior values back, the contradictions and
causal links it created are closed, and an audit entry records it all. Runs are never deleted.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import InvalidInputError, NotFoundError
from ..models import CausalLink, ConsolidationRun, Contradiction
from ..states import contradiction_movable, contradiction_move, memory_move, movable
from .context import StageContext
from .records import run_within
from .undo import restored_fields


def rollback(ctx: StageContext, run_id: str) -> ConsolidationRun:
    """Unwind ``run_id``; raise :class:`NotFoundError` for an unknown run, :class:`InvalidInputError` for one
    already rolled back or still running."""
    found = ctx.storage.find_records(ConsolidationRun, id=run_id)
    if not found or not run_within(ctx, found[0]):
        raise NotFoundError(f"no consolidation run {run_id!r} for agent {ctx.agent!r}; see consolidation_history()")
    run = found[0]
    if run.status == "rolled_back":
        raise InvalidInputError(f"consolidation run {run_id} is already rolled back")
    if run.status == "running":
        raise InvalidInputError(f"consolidation run {run_id} is still running; wait for it to finish or fail")
    now = ctx.clock()
    undo = ctx.storage.run_undo_log(run_id)
    outputs = [m.id for m in ctx.storage.get_memories(run.output_memory_ids).values()]
    contradictions = [
        c
        for c in ctx.storage.find_records(Contradiction, consolidation_run_id=run_id)
        if c.state in contradiction_movable("close")
    ]
    links = ctx.storage.find_records(CausalLink, consolidation_run_id=run_id)
    with ctx.storage.transaction():
        for entry in reversed(undo):
            if entry["op"] == "unconsolidate":
                ctx.storage.update_memories({i: {"consolidated": False} for i in entry["episode_ids"]})
            elif entry["op"] == "restore":
                ctx.storage.update_memories({entry["memory_id"]: restored_fields(entry)})
        held = ctx.storage.get_memories(outputs)
        ctx.storage.set_states(
            {i: memory_move("roll_back") for i in outputs if i in held and held[i].state in movable("roll_back")}
        )
        for contradiction in contradictions:
            closed = f"rollback of {run_id}"
            resolution = replace(contradiction.resolution, closed_by=closed) if contradiction.resolution else None
            fields = {"state": contradiction_move("close", contradiction.state), "resolved_at": now}
            ctx.storage.update_record(Contradiction, contradiction.id, {**fields, "resolution": resolution})
        for link in links:
            ctx.storage.update_record(CausalLink, link.id, {"state": "rolled_back"})
        ctx.storage.update_record(ConsolidationRun, run_id, {"status": "rolled_back"})
        details = {
            "outputs": outputs,
            "contradictions_closed": [c.id for c in contradictions],
            "links_closed": [link.id for link in links],
            "undo_entries": len(undo),
        }
        ctx.storage.audit(ctx.agent, "rollback", run_id, details, now)
    ctx.emit("rollback", {"run_id": run_id, **details})
    return ctx.storage.find_records(ConsolidationRun, id=run_id)[0]
