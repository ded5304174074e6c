"""The ``Audrey`` facade: wires config, storage and providers, and delegates each behaviour to its stage."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from .aio import collected, stream_twin, twin
from .config import STATES, AudreyConfig, ExpiryConfig
from .errors import InvalidInputError
from .events import EventBus, Handler
from .models import (
    ConsolidationRun,
    Contradiction,
    DecayReport,
    RecallResult,
)
from .providers.embedding import QueryCache, check_embedder
from .providers.llm import as_llm
from .providers.local import local_embedder
from .reading import MemoryReading
from .rules.arguments import EncodeRequest, check_instance, check_request, check_scope, requests_from_items
from .rules.inputs import check_text
from .rules.ownership import Tenant
from .stages import consolidate as consolidate_stage
from .stages import decay as decay_stage
from .stages import encode as encode_stage
from .stages import expiry as expiry_stage
from .stages import recall as recall_stage
from .stages import records
from .stages import rollback as rollback_stage
from .stages import settle as settle_stage
from .stages.background import Background
from .stages.context import StageContext
from .stages.outdated import retire_outdated_principles
from .storage import Storage, open_storage
from .timeutil import Clock, system_clock


class Audrey(MemoryReading):
    """A memory for one agent: encode observations, recall them by meaning, ranked by confidence.

    ``path`` is a SQLite file (created with its parent folder if missing) or ``":memory:"``. ``embedder`` defaults
    to the local all-MiniLM-L6-v2 model (through ONNX Runtime where it can run, else sentence-transformers; loaded on
    first use). ``llm`` (optional: an object with
    ``complete(messages)`` or a callable) judges contradictions and extracts principles; without one Audrey uses
    documented heuristics. ``scope`` confines the instance to one part of the agent's memory (e.g. one user's): it
    reads and changes only memories at or below that scope, and another tenant's memory behaves like a missing one.
    ``clock`` returns the current aware datetime; inject one to simulate time. Each new episode
    is validated on a background thread (``wait_for_idle()`` waits for it). Use as a context manager or call
    :meth:`close`; a process that ends without it stops the background work cleanly, and the next open of the store
    validates the episodes it did not reach.
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
        check_instance(path, agent, config, AudreyConfig)
        self.agent = agent
        # The part of the agent's memory this instance works in (e.g. one user's): new memories go there, and recall
        # searches it and the scopes below it unless told otherwise (scope=, scope_prefix=, scoped=).
        self.scope: tuple[str, ...] = check_scope(scope)
        # The ownership rule: this instance reads and changes only memories of its agent at or below its scope.
        self.tenant = Tenant(agent, self.scope)
        self.config = config or AudreyConfig()
        self.embedder = embedder if embedder is not None else local_embedder()
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
        parts = (self.storage, self.embedder, self.llm, self.config, self.clock, self.events, self.agent, self.scope)
        self._context = StageContext(*parts, queries=self._queries)
        self._consolidation_lock = threading.Lock()
        self._background = Background(self._context, self.consolidate)

    # -- lifecycle --------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Finish queued validation, then release the database. Safe to call twice; later use raises
        :class:`ClosedError`."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._background.close()
        self.storage.close()

    def wait_for_idle(self, timeout: float | None = None) -> bool:
        """Block until the work the writes so far started is done: every encoded episode validated, and the derived
        search indexes caught up with the database, with every new vector in the graph (after a bulk load the next
        recall then runs at full speed). False if ``timeout`` (seconds, None: no limit) ran out first."""
        until = None if timeout is None else time.monotonic() + timeout
        if not self._background.wait_for_idle(timeout):
            return False
        self._check_open()
        return self.storage.settle_indexes(None if until is None else max(0.0, until - time.monotonic()))

    def __enter__(self) -> Audrey:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        session: str | None = None,
        speaker: str | None = None,
        expires_at: datetime | None = None,
        ttl: float | timedelta | None = None,
    ) -> str:
        """Store one observation as an immutable episode and return its id (a ULID unless ``id`` is given).

        ``supersedes`` names an episode this one corrects (it is marked superseded, never edited).
        ``derived_from`` names memories this one was drawn from (an inference from recalled memories): its lineage,
        so that it can never count as independent evidence for them. ``scope`` places it on a path inside the
        agent's memory (e.g. ``("user", "alice")``); ``key`` is the caller's name for it there. ``event_time`` is when
        it happened, if not now (recall's ``time_range`` filters on it).

        A turn of a conversation names its ``session`` (any string naming the conversation) and its ``speaker``:
        turns of one session are numbered in the order they are stored, and recall reads each with its neighbours
        (the reply "Yes, it was great!" is found by the question it answers) and favours the speaker a question names.

        ``ttl`` (seconds, or a ``timedelta``) or ``expires_at`` (a timezone-aware datetime) makes it expire: from
        then on no recall, listing or ``get`` returns it, and :meth:`sweep_expired` deletes it (explicit intent,
        unlike decay). :meth:`refresh_expiry` restarts a ``ttl``.
        """
        request = check_request(
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
            session,
            speaker,
            expires_at,
            ttl,
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
        requests = requests_from_items(items, self.scope)
        return self._encode(requests, replace=replace, vectors=vectors) if requests else []

    def _encode(self, requests: Sequence[EncodeRequest], replace: bool = False, vectors: Any = None) -> list[str]:
        self._check_open()
        ids = encode_stage.encode(self._context, requests, replace, vectors)
        self._background.encoded(ids)
        return ids

    # -- recall -----------------------------------------------------------------------------------------------

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
        """Memories relevant to ``query``, best first by relevance x confidence, one at a time (:meth:`recall` takes
        the same arguments and returns a list). Only what the consumer takes is reinforced.

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

        Time in the query is read against the clock (``parse_time=False`` turns it off): a calendar date, month or
        year filters ("on 9 May 2023"), a relative one favours ("last week", "in June", "before she moved"), "the
        first time" / "lately" favour the earliest / latest. ``time_range=(start, end)`` filters explicitly.
        ``order="time"`` returns the chosen memories oldest first; ``spread=True`` (or ``"auto"``, for questions
        asking for several things) spreads them over conversations. Conversation turns are read with their
        neighbours, and the speaker a question names is favoured (see :meth:`encode`). ``reinforce=False`` looks
        without touching: nothing returned is reinforced (a dashboard, a debugger).
        """
        given = {"min_confidence": min_confidence, "types": types, "tags": tags, "sources": sources}
        given |= {"include_dormant": include_dormant, "include_provenance": include_provenance}
        query_vector = filters.pop("query_vector", None)
        checked = recall_stage.options(self._context, limit, given | filters)
        self._check_open()
        return recall_stage.recall(self._context, query, checked, query_vector)

    recall = collected(
        recall_stream, "Memories relevant to ``query``, best first by relevance x confidence, as a list."
    )

    def recall_by_vector(
        self, vector: Sequence[float] | np.ndarray, limit: int = 10, **options: Any
    ) -> list[RecallResult]:
        """:meth:`recall` for a query vector you already have (same options)."""
        self._check_open()
        return list(
            recall_stage.recall_by_vector(self._context, vector, recall_stage.options(self._context, limit, options))
        )

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

    def settle_contradiction(self, contradiction_id: str, winner: str | None, reason: str = "") -> Contradiction:
        """Decide a contradiction by hand: ``winner`` (one of its two claims) stays active and the other becomes
        disputed; ``winner=None`` says both hold. Both claims are kept; the decision is audited and recorded in the
        contradiction's ``resolution["settled"]``."""
        self._check_open()
        return settle_stage.settle(self._context, contradiction_id, winner, reason)

    def sweep_expired(self) -> list[str]:
        """Delete this instance's memories whose ``ttl`` / ``expires_at`` has passed (reads hide them already); an
        audit entry records each page deleted. Returns their ids."""
        self._check_open()
        return expiry_stage.sweep(self._context)

    def start_expiry_sweeper(self, interval_seconds: float) -> None:
        """Sweep expired memories every ``interval_seconds`` on a background thread until :meth:`close` or
        :meth:`stop_expiry_sweeper` (``ExpiryConfig.sweep_interval_seconds`` starts one at open)."""
        self._check_open()
        ExpiryConfig(sweep_interval_seconds=interval_seconds)  # the same check as the configuration's
        self._background.start_sweeper(float(interval_seconds))

    def stop_expiry_sweeper(self, timeout: float = 60.0) -> bool:
        """Stop the scheduled sweeps (a sweep under way finishes); False if it still ran after ``timeout`` s."""
        return self._background.stop_sweeper(timeout)

    def refresh_expiry(self, ids: Sequence[str]) -> list[str]:
        """Restart the ``ttl`` of this instance's live memories among ``ids`` (LangGraph's refresh on read); return
        the ids refreshed. Expired memories, and those with a fixed ``expires_at``, are left as they are."""
        self._check_open()
        return expiry_stage.refresh(self._context, ids)

    def forget_all(self, **filters: Any) -> list[str]:
        """Forget every memory of this instance matching :meth:`recall`'s filters, in every state unless ``states``
        says otherwise (e.g. ``forget_all(scope=("user", "alice"))``); return their ids. Expired memories the
        filters cannot see any more are swept first."""
        self.sweep_expired()
        filters.setdefault("states", list(STATES))
        ids = [memory.id for memory in self.iter_memories(**filters)]
        return [forgotten for start in range(0, len(ids), 1000) for forgotten in self.forget(ids[start : start + 1000])]

    def forget(self, ids: Sequence[str]) -> list[str]:
        """Delete memories for good (explicit forgetting, unlike decay); return the ids that existed.

        Only this instance's memories are deleted (its agent's, at or below its scope): another tenant's id is
        treated as missing. An audit entry records what was forgotten."""
        self._check_open()
        return records.forget(self._context, ids)

    # -- async twins: each runs its method in a worker thread, with the method's signature ----------------------

    aencode = twin(encode)
    aencode_batch = twin(encode_batch)
    arecall = twin(recall)
    arecall_stream = stream_twin(recall_stream)
    arecall_by_vector = twin(recall_by_vector)
    aconsolidate = twin(consolidate)
    adecay = twin(decay)
    arollback = twin(rollback)
    aforget = twin(forget)
    aforget_all = twin(forget_all)
    asweep_expired = twin(sweep_expired)
    asettle_contradiction = twin(settle_contradiction)
    arefresh_expiry = twin(refresh_expiry)
    await_for_idle = twin(wait_for_idle)
    aclose = twin(close)

    async def __aenter__(self) -> Audrey:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        path = getattr(self.storage, "path", "?")
        scope = f", scope={self.scope!r}" if self.scope else ""
        return f"Audrey(path={path!r}, agent={self.agent!r}{scope}, embedder={self.embedder!r})"
