"""The ``Audrey`` facade: wires config, storage and providers, and delegates each behaviour to its stage."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .aio import AsyncTwins
from .config import AudreyConfig
from .errors import ClosedError, ConfigurationError, InvalidInputError
from .events import EventBus, Handler
from .models import (
    CausalLink,
    ConsolidationRun,
    Contradiction,
    DecayReport,
    Introspection,
    Memory,
    RecallResult,
)
from .providers.embedding import QueryCache, SentenceTransformerEmbedder, check_embedder, count_tokens, to_matrix
from .providers.llm import as_llm
from .rules.confidence import ConfidenceBreakdown
from .rules.inputs import check_ids_text, check_int, check_text
from .rules.keywords import query_terms
from .rules.ownership import Tenant
from .stages import consolidate as consolidate_stage
from .stages import decay as decay_stage
from .stages import encode as encode_stage
from .stages import recall as recall_stage
from .stages import rollback as rollback_stage
from .stages.context import StageContext
from .stages.introspect import introspect
from .stages.outdated import retire_outdated_principles
from .stages.scheduler import ConsolidationScheduler
from .stages.validate import validate_episodes
from .stages.worker import BatchWorker
from .storage import Storage, StoreCounts, open_storage
from .timeutil import Clock, system_clock

T = TypeVar("T")
_END = object()
RECALL_FILTERS = frozenset(
    {"states", "filter", "scope", "scope_prefix", "scoped", "mode", "time_range", "as_of", "include_superseded"}
)
SCOPE_FILTERS = ("scope", "scope_prefix", "scoped")


class Audrey(AsyncTwins):
    """A memory for one agent: encode observations, recall them by meaning, ranked by confidence.

    ``path`` is a SQLite file (created with its parent folder if missing) or ``":memory:"``. ``embedder`` defaults
    to the local all-MiniLM-L6-v2 model (loaded on first use). ``llm`` (optional: an object with
    ``complete(messages)`` or a callable) judges contradictions and extracts principles; without one Audrey uses
    documented heuristics. ``scope`` confines the instance to one part of the agent's memory (e.g. one user's): it
    reads and changes only memories at or below that scope, and another tenant's memory behaves like a missing one.
    ``clock`` returns the current aware datetime; inject one to simulate time. Each new episode
    is validated on a background thread (``wait_for_idle()`` waits for it). Use as a context manager or call
    :meth:`close`.
    """

    def __init__(
        self,
        path: str | Path = ":memory:",
        agent: str = "default",
        embedder: Any = None,
        llm: Any = None,
        config: AudreyConfig | None = None,
        *,
        clock: Clock | None = None,
        scope: Sequence[str] | None = None,
    ) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidInputError(f"path must be a file path, ':memory:' or a postgresql:// URL, got {path!r}")
        if not isinstance(agent, str) or not agent.strip():
            raise InvalidInputError(f"agent must be a non-empty string, got {agent!r}")
        check_text("agent", agent)
        if config is not None and not isinstance(config, AudreyConfig):
            raise ConfigurationError(f"config must be an AudreyConfig, got {type(config).__name__}")
        self.agent = agent
        # The part of the agent's memory this instance works in (e.g. one user's): new memories go there, and recall
        # searches it and the scopes below it unless told otherwise (scope=, scope_prefix=, scoped=).
        self.scope: tuple[str, ...] = encode_stage.check_scope(scope)
        # The ownership rule: this instance reads and changes only memories of its agent at or below its scope.
        self.tenant = Tenant(agent, self.scope)
        self.config = config or AudreyConfig()
        self.embedder = embedder if embedder is not None else SentenceTransformerEmbedder()
        check_embedder(self.embedder)
        self.llm = as_llm(llm)
        self.clock: Clock = clock or system_clock
        self.events = EventBus()
        self.storage: Storage = open_storage(
            path, model_name=self.embedder.model_name, dimensions=self.embedder.dimensions
        )
        self._queries = QueryCache(self.embedder, self.config.recall.query_cache_size)
        self._closed = False
        self._close_lock = threading.Lock()
        self._context = StageContext(
            self.storage, self.embedder, self.llm, self.config, self.clock, self.events, self.agent, self.scope
        )
        self._validator: BatchWorker[str] | None = None
        if self.config.validation.background:
            self._validator = BatchWorker(
                "audrey-validation",
                lambda ids: validate_episodes(self._context, ids),
                batch_size=self.config.validation.batch_size,
            )
        self._consolidation_lock = threading.Lock()
        self._scheduler: ConsolidationScheduler | None = None
        schedule = self.config.consolidation
        if schedule.interval_seconds is not None or schedule.episode_trigger is not None:
            self._scheduler = ConsolidationScheduler(
                self._scheduled_consolidation, schedule.interval_seconds, schedule.episode_trigger
            )

    # -- lifecycle --------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Finish queued validation, then release the database. Safe to call twice; later use raises
        :class:`ClosedError`."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        if self._scheduler is not None:
            self._scheduler.close()
        if self._validator is not None:
            self._validator.close()
        self.storage.close()

    def wait_for_idle(self, timeout: float | None = None) -> bool:
        """Block until every encoded episode has been validated; False if ``timeout`` (seconds) ran out first."""
        return self._validator.wait_for_idle(timeout) if self._validator is not None else True

    def __enter__(self) -> Audrey:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise ClosedError("this Audrey instance is closed; create a new one to keep using the memory")

    def on(self, event: str, handler: Handler) -> Handler:
        """Call ``handler(payload)`` when ``event`` happens (see :data:`audrey_core.events.EVENTS`)."""
        return self.events.on(event, handler)

    def off(self, event: str, handler: Handler | None = None) -> None:
        """Stop calling ``handler`` (or every handler) for ``event``."""
        self.events.off(event, handler)

    # -- encode -----------------------------------------------------------------------------------------------

    def encode(
        self,
        content: str,
        source: str = "direct-observation",
        salience: float = 0.5,
        tags: Sequence[str] | None = None,
        causal: dict[str, str] | None = None,
        supersedes: str | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        derived_from: Sequence[str] | None = None,
        id: str | None = None,
        scope: Sequence[str] | None = None,
        key: str | None = None,
        event_time: datetime | None = None,
    ) -> str:
        """Store one observation as an immutable episode and return its id (a ULID unless ``id`` is given).

        ``supersedes`` names an episode this one corrects (it is marked superseded, never edited).
        ``derived_from`` names memories this one was drawn from (an inference from recalled memories): its lineage,
        so that it can never count as independent evidence for them. ``scope`` places it on a path inside the
        agent's memory (e.g. ``("user", "alice")``); ``key`` is the caller's name for it there. ``event_time`` is when
        it happened, if not now (recall's ``time_range`` filters on it).
        """
        request = encode_stage.check_request(
            content,
            source,
            salience,
            tags,
            causal,
            supersedes,
            metadata,
            derived_from,
            id,
            self.scope if scope is None else scope,
            key,
            event_time,
        )
        return self._encode([request])[0]

    def encode_batch(
        self, items: Sequence[dict[str, Any] | str], *, replace: bool = False, vectors: Any = None
    ) -> list[str]:
        """Store many observations with one embedding call (per provider batch limit) and one transaction.

        Each item is a dict with ``content`` and any of encode's keyword arguments, or a plain string. If any item is
        invalid nothing is stored. With ``replace``, an item whose ``id`` already exists replaces that memory.
        ``vectors`` (one per item, made by this store's embedding model) are stored instead of embedding the texts.
        """
        if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
            raise InvalidInputError("encode_batch takes a list of dicts (or strings)")
        requests = [encode_stage.request_from_item(self._in_scope(item), i) for i, item in enumerate(items)]
        return self._encode(requests, replace=replace, vectors=vectors) if requests else []

    def _in_scope(self, item: Any) -> Any:
        """An encode_batch item placed in the instance's scope unless it names its own (``None`` names none)."""
        if not self.scope:
            return item
        if isinstance(item, str):
            return {"content": item, "scope": self.scope}
        if isinstance(item, dict) and item.get("scope") is None:
            return {**item, "scope": self.scope}
        return item

    def _scoped(self, filters: dict[str, Any]) -> dict[str, Any]:
        """Recall and listing filters, always inside the instance's scope. A scope the caller names must lie in it;
        ``None`` (or ``scoped=False``) means the argument was not given, never "every scope"."""
        named = {k: v for k, v in filters.items() if k not in SCOPE_FILTERS or v not in (None, False)}
        for name in ("scope", "scope_prefix"):
            if name in named:
                self.tenant.require_scope(encode_stage.check_scope(named[name]), name)
        if self.scope and "scope" not in named:
            prefix = encode_stage.check_scope(named.get("scope_prefix"))
            named["scope_prefix"] = prefix if len(prefix) > len(self.scope) else self.scope
        return named

    def _encode(
        self, requests: Sequence[encode_stage.EncodeRequest], replace: bool = False, vectors: Any = None
    ) -> list[str]:
        self._check_open()
        episodes = encode_stage.encode_episodes(
            self.storage,
            self.embedder,
            requests,
            tenant=self.tenant,
            now=self.clock(),
            confidence=self.config.confidence,
            replace=replace,
            vectors=vectors,
        )
        if self.events.has_handlers("encode"):
            for episode in episodes:
                self.events.emit("encode", {"episode": episode})
        ids = [e.id for e in episodes]
        if self._validator is not None:
            self._validator.submit(ids)
        else:
            validate_episodes(self._context, ids)
        if self._scheduler is not None:
            self._scheduler.note_episodes(len(ids))
        return ids

    # -- recall -----------------------------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        limit: int = 10,
        min_confidence: float = 0.0,
        types: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        sources: Sequence[str] | None = None,
        include_dormant: bool = False,
        include_provenance: bool = False,
        **filters: Any,
    ) -> list[RecallResult]:
        """Memories relevant to ``query``, best first by relevance x confidence.

        Filters run inside the vector search: ``types`` (episodic / semantic / procedural), ``tags`` (any of),
        ``sources``, ``states`` (default active, disputed, context_dependent; ``include_dormant`` adds dormant),
        ``filter`` (metadata, see :mod:`audrey_core.rules.filters`), ``scope`` (exactly) or ``scope_prefix`` (a scope
        and everything below it), both inside the instance's scope (``None`` means not given), ``scoped=True`` (anything
        but the root scope). ``token_budget=N`` stops before the returned contents would exceed N tokens (the
        embedder's tokenizer, or about 4 characters per token).

        Recall answers what is true now: a memory an update replaced is left out (``include_superseded=True`` shows
        it, with ``superseded_by`` and ``valid_until``; ``include_provenance`` says what each result replaced).
        ``as_of=datetime`` answers what was believed true then. A result that is one side of an open contradiction
        carries the other sides in ``counterclaims``. Semantic and procedural memories returned are reinforced,
        except the agent's own unsupported inferences.
        """
        return list(
            self.recall_stream(
                query, limit, min_confidence, types, tags, sources, include_dormant, include_provenance, **filters
            )
        )

    def recall_stream(
        self,
        query: str,
        limit: int = 10,
        min_confidence: float = 0.0,
        types: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        sources: Sequence[str] | None = None,
        include_dormant: bool = False,
        include_provenance: bool = False,
        **filters: Any,
    ) -> Iterator[RecallResult]:
        """Like :meth:`recall`, yielding one result at a time; only what the consumer takes is reinforced."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("query must be a non-empty string")
        check_text("query", query)
        budget = _check_budget(filters.pop("token_budget", None))
        given_vector = filters.pop("query_vector", None)
        unknown = set(filters) - RECALL_FILTERS
        if unknown:
            raise InvalidInputError(f"unknown recall options {sorted(unknown)}; filters are {sorted(RECALL_FILTERS)}")
        options = recall_stage.check_options(
            agent=self.agent,
            limit=limit,
            min_confidence=min_confidence,
            types=types,
            tags=tags,
            sources=sources,
            include_dormant=include_dormant,
            include_provenance=include_provenance,
            **self._scoped(filters),
        )
        self._check_open()
        if options.mode == "keyword" or (
            options.mode == "hybrid" and self.storage.vector_search_error() is not None
        ):  # no query vector needed
            vector = None
        elif given_vector is not None:  # the caller embedded the query already
            vector = to_matrix([given_vector], 1, self.embedder.dimensions, "query_vector")[0]
        else:
            vector = self._queries.vector(query)
        return self._stream(vector, options, budget, query_terms(query))

    def recall_by_vector(
        self, vector: Sequence[float] | np.ndarray, limit: int = 10, **options: Any
    ) -> list[RecallResult]:
        """:meth:`recall` for a query vector you already have (same options)."""
        self._check_open()
        matrix = to_matrix([vector], 1, self.embedder.dimensions, "query vector")
        budget = _check_budget(options.pop("token_budget", None))
        checked = recall_stage.check_options(agent=self.agent, limit=limit, **self._scoped(options))
        if checked.mode == "keyword":
            raise InvalidInputError("keyword recall needs a text query; use recall(query, mode='keyword')")
        return list(self._stream(matrix[0], checked, budget))

    def _stream(
        self,
        vector: np.ndarray | None,
        options: recall_stage.RecallOptions,
        budget: int | None = None,
        terms: Sequence[str] = (),
    ) -> Iterator[RecallResult]:
        now = self.clock()
        ranked = recall_stage.rank(
            self.storage,
            vector,
            options,
            now=now,
            confidence_cfg=self.config.confidence,
            recall_cfg=self.config.recall,
            terms=terms,
        )
        return self._yield_ranked(ranked, options.include_provenance, now, budget)

    def _yield_ranked(
        self, ranked: list[recall_stage.Ranked], with_provenance: bool, now: Any, budget: int | None = None
    ) -> Iterator[RecallResult]:
        taken: list[Memory] = []
        spent = 0
        against = recall_stage.counterclaims(self.storage, [item.memory for item in ranked], self.tenant)
        try:
            for item in ranked:
                if budget is not None:
                    spent += count_tokens(self.embedder, item.memory.content)
                    if spent > budget:
                        return  # stop before the budget is exceeded
                prov = recall_stage.provenance(self.storage, item.memory, self.tenant) if with_provenance else None
                taken.append(item.memory)
                yield recall_stage.to_result(item, prov, against.get(item.memory.id, ()))
        finally:
            if taken and not self._closed:
                reinforced = recall_stage.reinforce_retrieved(self.storage, taken, self.agent, now)
                if reinforced and self.events.has_handlers("reinforcement"):
                    self.events.emit("reinforcement", {"kind": "retrieval", "memory_ids": reinforced})

    # -- the sleep cycle -----------------------------------------------------------------------------------------

    def consolidate(self, progress: Callable[[int, int], None] | None = None) -> ConsolidationRun:
        """Consolidate unconsolidated episodes into principles (resuming an interrupted run first). First, a
        principle most of whose evidence episodes were updated is superseded by the newest update.

        Waits for pending validation so it works on settled knowledge. Raises if a step fails; the run is then
        marked failed and the next call resumes it.
        """
        self._check_open()
        self.wait_for_idle()
        with self._consolidation_lock, self.storage.consolidation_lock(self.agent):
            retire_outdated_principles(self._context)
            return consolidate_stage.consolidate(self._context, progress)

    def _scheduled_consolidation(self) -> None:
        if self._closed:
            return
        try:
            self.consolidate()
        except Exception as exc:
            self.events.emit("error", {"event": "consolidation", "error": exc})
            raise

    def decay(self) -> DecayReport:
        """Put memories whose retention (confidence x recency) fell below the threshold to sleep (dormant)."""
        self._check_open()
        return decay_stage.decay(self._context)

    def rollback(self, run_id: str) -> ConsolidationRun:
        """Unwind a consolidation run: its principles become rolled_back, its episodes unconsolidated."""
        self._check_open()
        if not isinstance(run_id, str):
            raise InvalidInputError(f"run_id must be a consolidation run's id (a string), got {run_id!r}")
        check_text("run_id", run_id)
        with self._consolidation_lock:
            return rollback_stage.rollback(self._context, run_id)

    def consolidation_history(self) -> list[ConsolidationRun]:
        """This agent's consolidation runs, oldest first, with their status."""
        self._check_open()
        return self._runs_within(self.storage.find_records(ConsolidationRun, agent=self.agent))

    def _runs_within(self, runs: list[ConsolidationRun]) -> list[ConsolidationRun]:
        """The runs a scoped instance may see: those whose every episode and principle is its own."""
        if not self.scope:
            return runs
        return [run for run in runs if consolidate_stage.run_within(self._context, run)]

    def contradictions(self, states: Sequence[str] | None = None) -> list[Contradiction]:
        """This agent's recorded contradictions (optionally only those in ``states``), oldest first."""
        self._check_open()
        where: dict[str, Any] = {"agent": self.agent}
        if states is not None:
            where["state"] = list(states)
        found = self.storage.find_records(Contradiction, **where)
        if not self.scope:
            return found
        mine = self.storage.get_memories({i for c in found for i in (c.claim_a_id, c.claim_b_id)}, owner=self.tenant)
        return [c for c in found if c.claim_a_id in mine and c.claim_b_id in mine]

    def causal_links(self, memory_id: str | None = None) -> list[CausalLink]:
        """This agent's active causal links (those explaining ``memory_id`` when given)."""
        self._check_open()
        where: dict[str, Any] = {"agent": self.agent, "state": "active"}
        if memory_id is not None:
            where["memory_id"] = memory_id
        found = self.storage.find_records(CausalLink, **where)
        if not self.scope:
            return found
        mine = self.storage.get_memories({link.memory_id for link in found}, owner=self.tenant)
        return [link for link in found if link.memory_id in mine]

    # -- reading ----------------------------------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory | None:
        """This instance's memory with this id (any type), or ``None``: also when it belongs to another agent or
        lies outside this instance's scope."""
        self._check_open()
        (memory_id,) = check_ids_text("get", [memory_id])
        return self.storage.get_memory(memory_id, owner=self.tenant)

    def get_many(self, ids: Sequence[str]) -> list[Memory | None]:
        """This instance's memories with these ids, in the same order (``None`` where there is none of its own)."""
        self._check_open()
        ids = check_ids_text("get_many", ids)
        found = self.storage.get_memories(ids, owner=self.tenant)
        return [found.get(i) for i in ids]

    def update_chain(self, memory_id: str) -> list[Memory]:
        """A memory's history of updates, oldest first: what it replaced (directly or through earlier updates), the
        memory itself, and what replaced it since. Empty when this instance has no such memory."""
        self._check_open()
        (memory_id,) = check_ids_text("update_chain", [memory_id])
        memory = self.storage.get_memory(memory_id, owner=self.tenant)
        if memory is None:
            return []
        chain = [*reversed(self.storage.supersedes_chain(memory.id)), memory]
        seen = {m.id for m in chain}
        while chain[-1].superseded_by and chain[-1].superseded_by not in seen:
            later = self.storage.get_memory(chain[-1].superseded_by, owner=self.tenant)
            if later is None:
                break
            chain.append(later)
            seen.add(later.id)
        return [m for m in chain if self.tenant.owns(m)]

    def embed_query(self, text: str) -> np.ndarray:
        """The embedding recall would use for ``text`` (cached)."""
        self._check_open()
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError("query must be a non-empty string")
        return self._queries.vector(check_text("query", text))

    def confidence(self, memory: Memory) -> ConfidenceBreakdown:
        """``memory``'s confidence now, with its parts."""
        return recall_stage.memory_confidence(memory, self.clock(), self.config.confidence)

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored embedding of each of this instance's memories among ``ids``."""
        self._check_open()
        return self.storage.get_vectors(check_ids_text("vectors", ids), owner=self.tenant)

    def list_memories(
        self,
        limit: int = 10,
        offset: int = 0,
        types: Sequence[str] | None = None,
        include_dormant: bool = False,
        **filters: Any,
    ) -> list[Memory]:
        """This agent's memories without a query, newest first, with paging; same filters as :meth:`recall`."""
        self._check_open()
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidInputError(f"offset must be a non-negative int, got {offset!r}")
        check_int("offset", offset)
        unknown = set(filters) - RECALL_FILTERS - {"tags", "sources"}
        if unknown:
            raise InvalidInputError(f"unknown options {sorted(unknown)}")
        options = recall_stage.check_options(
            agent=self.agent, limit=limit, types=types, include_dormant=include_dormant, **self._scoped(filters)
        )
        return self.storage.list_memories(options.where, options.limit, offset)

    def scopes(self) -> list[tuple[str, ...]]:
        """Every scope at or below this instance's that holds at least one of its agent's memories, sorted."""
        self._check_open()
        return [s for s in self.storage.scopes(self.agent) if self.tenant.contains(s)]

    def forget(self, ids: Sequence[str]) -> list[str]:
        """Delete memories for good (explicit forgetting, unlike decay); return the ids that existed.

        Only this instance's memories are deleted (its agent's, at or below its scope): another tenant's id is
        treated as missing. An audit entry records what was forgotten."""
        self._check_open()
        ids = check_ids_text("forget", ids)
        with self.storage.transaction():
            deleted = self.storage.delete_memories(ids, owner=self.tenant)
            if deleted:
                self.storage.audit(self.agent, "forget", None, {"ids": deleted}, self.clock())
        if deleted:
            self._context.emit("forget", {"memory_ids": deleted})
        return deleted

    def introspect(self, all_agents: bool = False) -> Introspection:
        """Counts by type and state, contradictions, causal links, last consolidation, sources, embedding model: of
        this instance's memories (its agent, at or below its scope). ``all_agents=True`` counts the whole store, an
        explicit crossing of tenants for operators."""
        self._check_open()
        if all_agents or not self.scope:
            return introspect(self.storage, None if all_agents else self.agent)
        contradictions: dict[str, int] = {}
        for contradiction in self.contradictions():
            contradictions[contradiction.state] = contradictions.get(contradiction.state, 0) + 1
        completed = [r.completed_at for r in self.consolidation_history() if r.status == "completed" and r.completed_at]
        within = StoreCounts({}, contradictions, len(self.causal_links()), max(completed, default=None), {})
        return introspect(self.storage, self.agent, self.scope, within)

    def __repr__(self) -> str:
        path = getattr(self.storage, "path", "?")
        scope = f", scope={self.scope!r}" if self.scope else ""
        return f"Audrey(path={path!r}, agent={self.agent!r}{scope}, embedder={self.embedder!r})"


def _check_budget(budget: Any) -> int | None:
    if budget is None:
        return None
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InvalidInputError(f"token_budget must be a positive int, got {budget!r}")
    return budget
