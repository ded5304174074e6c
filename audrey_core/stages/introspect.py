"""INTROSPECT: what the memory holds, by type, state, contradiction state and source."""

from __future__ import annotations

from dataclasses import replace

from ..config import MEMORY_TYPES, STATES
from ..models import Introspection
from ..storage import Storage, StoreCounts


def introspect(
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
    )
