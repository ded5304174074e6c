"""ENCODE: check an observation, embed it, store it as an immutable episode (seed 002, pipeline step 1)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..claims.apply import supersede_at_encode
from ..config import ConfidenceConfig
from ..errors import InvalidInputError, NotFoundError
from ..ids import new_ulid
from ..models import Episodic
from ..providers.embedding import chunk_spans, embed_texts, to_matrix
from ..rules.arguments import EncodeRequest
from ..rules.expiry import expiry
from ..rules.ownership import Tenant
from ..rules.typed_claims import claim_from_key
from ..storage import Storage
from .context import StageContext


def check_references(storage: Storage, requests: Sequence[EncodeRequest], tenant: Tenant) -> None:
    """Each request's scope lies in the tenant's; ``derived_from`` names the tenant's stored memories or others of the
    batch (a reply and the message it answers, stored together); each ``supersedes`` an existing, not yet superseded
    episode of the tenant, at most once per batch. Another tenant's memory is reported exactly like a missing one."""
    for request in requests:
        tenant.require_scope(request.scope)
    lineage = {i for r in requests for i in r.derived_from} - {r.id for r in requests if r.id is not None}
    if lineage:
        missing = sorted(lineage - set(storage.get_memories(lineage, owner=tenant)))
        if missing:
            raise NotFoundError(f"derived_from names {', '.join(missing)}, which are not stored memories")
    targets = [r.supersedes for r in requests if r.supersedes]
    if not targets:
        return
    seen: set[str] = set()
    for target in targets:
        if target in seen:
            raise InvalidInputError(f"episode {target} is superseded twice in one batch")
        seen.add(target)
    found = storage.get_memories(targets, owner=tenant)
    for target in targets:
        episode = found.get(target)
        if episode is None:
            raise NotFoundError(f"supersedes names {target}, which is not a stored memory")
        if not isinstance(episode, Episodic):
            raise InvalidInputError(f"supersedes must name an episode; {target} is a {episode.memory_type} memory")
        if episode.superseded_by:
            raise InvalidInputError(
                f"episode {target} is already superseded by {episode.superseded_by}; supersede that one instead"
            )


def embedded_episodes(
    storage: Storage,
    embedder: Any,
    requests: Sequence[EncodeRequest],
    *,
    tenant: Tenant,
    now: datetime,
    confidence: ConfidenceConfig,
    replace: bool = False,
    vectors: Any = None,
) -> tuple[list[Episodic], Any, list[list[tuple[int, int]]]]:
    """The checked requests as episodes, with their vectors (one embedding call per provider batch) and the span of
    each vector in its text.

    Caller-chosen ids must be new unless ``replace``, which swaps out the stored memory of that id. ``vectors``
    (one per request, from the same embedding model) skips the embedding call."""
    check_references(storage, requests, tenant)
    check_ids(storage, requests, replace, tenant)
    if vectors is None:
        spans = [chunk_spans(embedder, r.content) for r in requests]  # long texts: one vector per chunk
        vectors = embed_texts(embedder, [r.content[a:b] for r, s in zip(requests, spans) for a, b in s])
    else:
        spans = [[(0, len(r.content))] for r in requests]
        vectors = to_matrix(vectors, len(requests), embedder.dimensions, f"vectors given for {embedder.model_name}")
    episodes = [
        Episodic(
            id=r.id or new_ulid(now),
            agent=tenant.agent,
            scope=r.scope,
            key=r.key,
            content=r.content,
            source=r.source,
            source_reliability=confidence.source_reliability[r.source],
            salience=r.salience,
            tags=r.tags,
            metadata=r.metadata,
            created_at=now,
            causal_trigger=r.causal_trigger,
            causal_consequence=r.causal_consequence,
            supersedes=r.supersedes,
            derived_from=r.derived_from,
            event_time=r.event_time,
            session=r.session,
            speaker=r.speaker,
            embedding_model=embedder.model_name,
            expires_at=expiry(now, r.expires_at, r.ttl_seconds),
            ttl_seconds=r.ttl_seconds,
            claim=claim_from_key(r.key, r.content),
        )
        for r in requests
    ]
    return episodes, vectors, [list(s) for s in spans]


def encode(
    ctx: StageContext,
    requests: Sequence[EncodeRequest],
    replace: bool = False,
    vectors: Any = None,
    queued: bool = True,
) -> list[str]:
    """Store the checked requests as the tenant's episodes, waiting for this instance to validate them (unless not
    ``queued``), and what their ``supersedes=`` and claim keys replace, in one transaction; announce each; return
    their ids."""
    episodes, vectors, spans = embedded_episodes(
        ctx.storage,
        ctx.embedder,
        requests,
        tenant=ctx.tenant,
        now=ctx.clock(),
        confidence=ctx.config.confidence,
        replace=replace,
        vectors=vectors,
    )
    with ctx.storage.transaction():
        ctx.storage.insert_memories(
            episodes,
            vectors,
            replace=replace,
            chunks=spans,
            owner=ctx.tenant,
            queued_by=ctx.instance if queued else None,
        )
        updates = supersede_at_encode(ctx, episodes)
    if ctx.events.has_handlers("encode"):
        for episode in episodes:
            ctx.events.emit("encode", {"episode": episode})
    for update in updates:  # announced once the transaction that wrote them committed
        ctx.emit("update", update)
    return [e.id for e in episodes]


def check_ids(storage: Storage, requests: Sequence[EncodeRequest], replace: bool, tenant: Tenant) -> None:
    """Caller-chosen ids are unique in the batch, and new unless replacing one of the tenant's own memories (an id
    another tenant holds is refused by the store, inside the write)."""
    chosen = [r.id for r in requests if r.id is not None]
    if len(chosen) != len(set(chosen)):
        raise InvalidInputError("the same id appears twice in one batch")
    if chosen and not replace:
        taken = sorted(storage.get_memories(chosen, owner=tenant))
        if taken:
            raise InvalidInputError(f"memory ids already exist: {', '.join(taken)}; pass replace=True to replace them")
