"""What the memory holds, read and removed within the instance's tenant: memories by id, a memory's update chain,
contradictions, causal links, consolidation runs, scopes, introspection, and explicit forgetting. Another tenant's
records behave like missing ones."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..config import MEMORY_TYPES, STATES
from ..models import CausalLink, ConsolidationRun, Contradiction, Introspection, Memory
from ..rules.expiry import expired
from ..rules.inputs import check_ids_text
from ..storage import Storage, StoreCounts
from .context import StageContext


def get_many(ctx: StageContext, ids: Sequence[str], name: str = "get_many") -> list[Memory | None]:
    """The tenant's memories with these ids, in order (``None`` where it has none)."""
    ids = check_ids_text(name, ids)
    found = ctx.storage.get_memories(ids, owner=ctx.tenant)
    now = ctx.clock()
    return [None if i not in found or expired(found[i].expires_at, now) else found[i] for i in ids]


def update_chain(ctx: StageContext, memory_id: str) -> list[Memory]:
    """What the memory replaced (oldest first), the memory, and what replaced it since: the tenant's part."""
    (memory,) = get_many(ctx, [memory_id], "update_chain")
    if memory is None:
        return []
    chain = [*reversed(ctx.storage.supersedes_chain(memory.id)), memory]
    seen = {m.id for m in chain}
    while chain[-1].superseded_by and chain[-1].superseded_by not in seen:
        later = ctx.storage.get_memory(chain[-1].superseded_by, owner=ctx.tenant)
        if later is None:
            break
        chain.append(later)
        seen.add(later.id)
    return [m for m in chain if ctx.tenant.owns(m)]


def consolidation_history(ctx: StageContext) -> list[ConsolidationRun]:
    """The agent's runs, oldest first; for a scoped instance, those whose every episode and principle is its own."""
    runs = ctx.storage.find_records(ConsolidationRun, agent=ctx.agent)
    return [run for run in runs if run_within(ctx, run)] if ctx.scope else runs


SIDES = ("claim_a_id", "claim_b_id")
LINK_ROLES = ("memory_id", "cause_id", "effect_id")


def _in_any(ctx: StageContext, kind: type, where: dict[str, Any], columns: Sequence[str], value: str) -> list[Any]:
    """Records of ``kind`` matching ``where`` with ``value`` in any of ``columns`` (one read, each column on its
    index), oldest first, each once. A column ``where`` already fixes to another value matches nothing."""
    if any(where.get(column) == value for column in columns):  # every record ``where`` matches holds it
        return ctx.storage.find_records(kind, **where)
    open_columns = [column for column in columns if column not in where]
    return ctx.storage.find_records_in_any(kind, open_columns, [value], **where) if open_columns else []


def consolidation_run(ctx: StageContext, run_id: str) -> ConsolidationRun | None:
    """The agent's run ``run_id``, found by its id (None when it is another's or outside a scoped tenant)."""
    found = ctx.storage.find_records(ConsolidationRun, agent=ctx.agent, id=run_id)
    return found[0] if found and (not ctx.scope or run_within(ctx, found[0])) else None


def contradictions(
    ctx: StageContext,
    states: Sequence[str] | None = None,
    memory_id: str | None = None,
    contradiction_id: str | None = None,
) -> list[Contradiction]:
    """The agent's contradictions (of ``states``; with ``memory_id`` as one side; the one ``contradiction_id``),
    oldest first, both of whose claims the tenant holds. A side or an id is looked up on its index, not filtered
    from them all."""
    where: dict[str, Any] = {"agent": ctx.agent}
    if states is not None:
        where["state"] = list(states)
    if contradiction_id is not None:
        where["id"] = contradiction_id
    found = (
        ctx.storage.find_records(Contradiction, **where)
        if memory_id is None
        else _in_any(ctx, Contradiction, where, SIDES, memory_id)
    )
    if not ctx.scope:
        return found
    mine = ctx.storage.get_memories({i for c in found for i in (c.claim_a_id, c.claim_b_id)}, owner=ctx.tenant)
    return [c for c in found if c.claim_a_id in mine and c.claim_b_id in mine]


def causal_links(ctx: StageContext, memory_id: str | None = None, involving: str | None = None) -> list[CausalLink]:
    """The agent's active causal links (explaining ``memory_id``; or ``involving`` a memory as the principle, the
    cause or the effect) of the tenant's memories."""
    where: dict[str, Any] = {"agent": ctx.agent, "state": "active"}
    if memory_id is not None:
        where["memory_id"] = memory_id
    found = (
        ctx.storage.find_records(CausalLink, **where)
        if involving is None
        else _in_any(ctx, CausalLink, where, LINK_ROLES, involving)
    )
    if not ctx.scope:
        return found
    mine = ctx.storage.get_memories({link.memory_id for link in found}, owner=ctx.tenant)
    return [link for link in found if link.memory_id in mine]


def scopes(ctx: StageContext) -> list[tuple[str, ...]]:
    """Every scope at or below the tenant's that holds one of the agent's memories, sorted."""
    return [s for s in ctx.storage.scopes(ctx.agent, ctx.clock()) if ctx.tenant.contains(s)]


def audit_log(ctx: StageContext) -> list[dict[str, Any]]:
    """The agent's audit entries, oldest first; for a scoped tenant, those whose subject is one of its memories."""
    entries = ctx.storage.audit_entries(ctx.agent)
    if not ctx.scope:
        return entries
    subjects = {e["subject_id"] for e in entries if e.get("subject_id")}
    mine = set(ctx.storage.get_memories(subjects, owner=ctx.tenant))
    return [e for e in entries if e.get("subject_id") in mine]


def timeline(ctx: StageContext) -> list[tuple[str, str, str, int]]:
    """(day stored, memory type, state, count) of the tenant's memories, in day order."""
    return ctx.storage.timeline(ctx.agent, ctx.scope)


def chunks(ctx: StageContext, memory_id: str) -> list[str]:
    """The parts of the tenant's memory ``memory_id`` that were embedded apart (a long text), in order."""
    (memory,) = get_many(ctx, [memory_id], "chunks")
    if memory is None:
        return []
    return [memory.content[start:end] for start, end in ctx.storage.memory_chunks(memory.id)]


def principles_citing(ctx: StageContext, episode_id: str) -> list[Memory]:
    """The tenant's principles and procedures that count the tenant's episode ``episode_id`` as evidence."""
    (episode,) = get_many(ctx, [episode_id], "principles_citing")
    if episode is None:
        return []
    return [m for m in ctx.storage.principles_citing(episode.id) if ctx.tenant.owns(m)]


def forget(ctx: StageContext, ids: Sequence[str]) -> list[str]:
    """Delete the tenant's memories among ``ids`` for good, with an audit entry; return those that existed."""
    ids = check_ids_text("forget", ids)
    with ctx.storage.transaction():
        deleted = ctx.storage.delete_memories(ids, owner=ctx.tenant)
        if deleted:
            ctx.storage.audit(ctx.agent, "forget", None, {"ids": deleted}, ctx.clock())
    if deleted:
        ctx.emit("forget", {"memory_ids": deleted})
    return deleted


def introspect(ctx: StageContext, all_agents: bool = False) -> Introspection:
    """Counts of the tenant's memories and records (``all_agents``: of the whole store, for operators)."""
    if all_agents or not ctx.scope:
        return count_store(ctx.storage, None if all_agents else ctx.agent)
    states: dict[str, int] = {}
    for contradiction in contradictions(ctx):
        states[contradiction.state] = states.get(contradiction.state, 0) + 1
    completed = [r.completed_at for r in consolidation_history(ctx) if r.status == "completed" and r.completed_at]
    within = StoreCounts({}, states, len(causal_links(ctx)), max(completed, default=None), {})
    return count_store(ctx.storage, ctx.agent, ctx.scope, within)


def run_within(ctx: StageContext, run: ConsolidationRun) -> bool:
    """True when every episode a run read and every principle it made belongs to the context's tenant (always, for
    an instance without a scope: runs are per agent)."""
    if run.agent != ctx.agent:
        return False
    if not ctx.scope:
        return True
    ids = {*run.input_episode_ids, *run.output_memory_ids}
    found = ctx.storage.get_memories(ids)
    return all(ctx.tenant.owns(m) for m in found.values())


def count_store(
    storage: Storage, agent: str | None, scope: tuple[str, ...] = (), within: StoreCounts | None = None
) -> Introspection:
    """Counts for ``agent`` (every agent when ``None``), with the store's embedding model and dimensions. For a scoped
    instance, ``scope`` limits the memory counts and ``within`` supplies its own contradictions, links and last run."""
    raw = storage.counts(agent, scope)
    if within is not None:
        raw = replace(
            raw,
            contradictions=within.contradictions,
            causal_links=within.causal_links,
            last_consolidation=within.last_consolidation,
        )
    states = {t: {s: int(raw.states.get(t, {}).get(s, 0)) for s in STATES} for t in MEMORY_TYPES}
    return Introspection(
        counts={t: sum(states[t].values()) for t in MEMORY_TYPES},
        states=states,
        dormant=sum(states[t]["dormant"] for t in MEMORY_TYPES),
        superseded=sum(states[t]["superseded"] for t in MEMORY_TYPES),
        contradictions={s: int(n) for s, n in sorted(raw.contradictions.items())},
        causal_links=raw.causal_links,
        last_consolidation=raw.last_consolidation,
        source_type_diversity={s: int(n) for s, n in sorted(raw.episode_sources.items())},
        embedding_model=storage.model_name,
        embedding_dimensions=storage.dimensions,
        agent=agent,
        vector_search_error=storage.vector_search_error(),
        indexes=storage.search_indexes(),
        similarity_baseline=baseline.mean_cosine if (baseline := storage.similarity_baseline()) else None,
    )
