"""The ``Audrey`` facade: wires config, storage and providers, and delegates each behaviour to its stage."""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .aio import collected, stream_twin, twin
from .claims.parse import say_once_without_parser
from .config import AudreyConfig, MemoryType, Source
from .errors import InvalidInputError
from .events import EventBus, Handler
from .models import (
    ConsolidationRun,
    DecayReport,
    RecallResult,
)
from .providers.embedding import QueryCache, check_embedder
from .providers.llm import as_llm
from .providers.local import local_embedder
from .rules.arguments import EncodeRequest, check_instance, check_request, check_scope, requests_from_items
from .rules.inputs import check_text
from .rules.ownership import Tenant
from .rules.recall_options import RecallArguments, RecallMode, RecallOrder, Spread
from .stages import consolidate as consolidate_stage
from .stages import decay as decay_stage
from .stages import encode as encode_stage
from .stages import recall as recall_stage
from .stages import rollback as rollback_stage
from .stages.background import Background
from .stages.context import StageContext
from .stages.outdated import retire_outdated_principles
from .states import MemoryState
from .storage import Storage, open_storage
from .timeutil import Clock, system_clock
from .upkeep import MemoryUpkeep

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11: editors list each option with its type

log = logging.getLogger(__name__)
SCHEDULED_WAIT_S = 60.0  # how long a scheduled consolidation waits for validation to settle before skipping


class Audrey(MemoryUpkeep):
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
        if self.llm is None and self.config.validation.offline_rules:
            say_once_without_parser()
        self.clock: Clock = clock or system_clock
        self.events = EventBus()
        self._storage: Storage = open_storage(
            path,
            model_name=self.embedder.model_name,
            dimensions=self.embedder.dimensions,
            index=self.config.index,
            pool_size=self.config.postgres.pool_size,
            replica_url=self.config.postgres.replica_url,
        )
        self._queries = QueryCache(self.embedder, self.config.recall.query_cache_size)
        self._closed = False
        self._close_lock = threading.Lock()
        parts = (self._storage, self.embedder, self.llm, self.config, self.clock, self.events, self.agent, self.scope)
        self._context = StageContext(*parts, queries=self._queries)
        self._consolidation_lock = threading.Lock()
        self._background = Background(self._context, self._scheduled_consolidation)
        # a recall hands the principles it returned to a worker to reinforce (see StageContext.retrievals)
        self._context = dataclasses.replace(self._context, retrievals=self._background.retrieved)

    # -- lifecycle --------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Finish queued validation, then release the database. Safe to call twice; later use raises
        :class:`ClosedError`."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._background.close()
        self._storage.close()

    def wait_for_idle(self, timeout: float | None = None) -> bool:
        """Block until the work the writes and recalls so far started is done: every encoded episode validated, the
        principles recalls returned reinforced, and the derived search indexes caught up with the database, with
        every new vector in the graph (after a bulk load the next recall then runs at full speed) and the graph's
        snapshot saved if it lacked them (so the next process does not insert them again). False if ``timeout``
        (seconds, None: no limit) ran out first."""
        until = None if timeout is None else time.monotonic() + timeout
        if not self._background.wait_for_idle(timeout):
            return False
        self._check_open()
        return self._storage.settle_indexes(None if until is None else max(0.0, until - time.monotonic()))

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
        agent's memory (e.g. ``("user", "alice")``); ``key`` is a claim key, the caller's name for the fact there
        (``"user.home_city"``): a later episode with the same key in the same scope replaces it (it is superseded, as
        with ``supersedes=``; one stated about an earlier time is superseded by the next newer one). ``event_time``
        is when it happened, if not now (recall's ``time_range`` filters on it).

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
        *,
        min_confidence: float = 0.0,
        min_similarity: float | None = None,
        types: Sequence[MemoryType] | None = None,
        tags: Sequence[str] | None = None,
        sources: Sequence[Source] | None = None,
        include_dormant: bool = False,
        include_provenance: bool = False,
        states: Sequence[MemoryState] | None = None,
        filter: Mapping[str, Any] | None = None,
        scope: Sequence[str] | None = None,
        scope_prefix: Sequence[str] | None = None,
        scoped: bool = False,
        mode: RecallMode = "hybrid",
        token_budget: int | None = None,
        time_range: tuple[datetime | None, datetime | None] | None = None,
        as_of: datetime | None = None,
        include_superseded: bool = False,
        order: RecallOrder = "relevance",
        parse_time: bool = True,
        spread: Spread = False,
        reinforce: bool = True,
        query_vector: Sequence[float] | np.ndarray | None = None,
    ) -> Iterator[RecallResult]:
        """Memories relevant to ``query``, best first by relevance x confidence, one at a time (:meth:`recall` takes
        the same arguments and returns a list). Only what the consumer takes is reinforced.

        Recall answers what is true now: a memory an update replaced is left out, and a result that is one side of an
        open contradiction carries the other sides in ``counterclaims``. Semantic and procedural memories returned are
        reinforced, except the agent's own unsupported inferences. Time in the query is read against the clock: a
        calendar date, month or year filters ("on 9 May 2023"), a relative one favours ("last week", "before she
        moved"), "the first time" / "lately" favour the earliest / latest. Conversation turns are read with their
        neighbours, and the speaker a question names is favoured (see :meth:`encode`). Every filter runs inside the
        searches, not after them.

        Args:
            query: What to look for, in words.
            limit: How many results at most (a positive int).
            min_confidence: Leave out memories whose confidence is below this (0 to 1).
            min_similarity: A relevance floor: leave out memories whose cosine to the query (a conversation turn's,
                in its context) is below this, whatever words they share, as an agent's prompt wants unrelated
                memories kept out (0.2 suits all-MiniLM-L6-v2, where unrelated sentences meet at about 0.06; a floor
                keeps its place under another model, see :mod:`audrey_core.rules.calibration`). Not in keyword mode.
            types: Only these memory types: ``episodic``, ``semantic``, ``procedural``.
            tags: Only memories carrying at least one of these tags.
            sources: Only memories from these sources (``told-by-user``, ``tool-result``, ...).
            include_dormant: Add dormant (faded) memories to the default states.
            include_provenance: Give each result its ``provenance``: its evidence, what it replaced, its lineage.
            states: Only memories in these states (default: active, disputed, context_dependent).
            filter: A metadata filter: ``{"team": "payments"}``, operators ``$eq $ne $gt $gte $lt $lte $in $nin``,
                combined with ``$and`` / ``$or`` (see :mod:`audrey_core.rules.filters`).
            scope: Only memories of exactly this scope, inside the instance's (``None``: not given).
            scope_prefix: Only memories of this scope and the scopes below it, inside the instance's.
            scoped: Only memories below the root scope.
            mode: ``"hybrid"`` (keywords and meaning), ``"vector"`` or ``"keyword"``.
            token_budget: Stop before the returned contents would exceed this many tokens (the embedder's tokenizer,
                or about 4 characters a token).
            time_range: ``(start, end)``, aware datetimes or ``None``: only memories whose event time (else the time
                they were stored) lies within.
            as_of: An aware datetime: what was believed true then (memories stored by then and valid then,
                superseded ones included).
            include_superseded: Add memories an update replaced, with ``superseded_by`` and ``valid_until``.
            order: ``"relevance"``, or ``"time"``: the chosen memories oldest first.
            parse_time: Read time in the query (``False``: take its words only).
            spread: ``True`` spreads the results over conversations; ``"auto"`` does for questions asking for
                several things.
            reinforce: ``False`` looks without touching: nothing returned is reinforced (a dashboard, a debugger).
            query_vector: The query's embedding, when you have it (the embedder's dimensions); skips embedding.

        Raises:
            InvalidInputError: an argument is out of range or of the wrong kind (nothing is searched).
        """
        given: dict[str, Any] = {"min_confidence": min_confidence, "types": types, "tags": tags, "sources": sources}
        given["min_similarity"] = min_similarity
        given |= {"include_dormant": include_dormant, "include_provenance": include_provenance, "states": states}
        given |= {"filter": filter, "scope": scope, "scope_prefix": scope_prefix, "scoped": scoped, "mode": mode}
        given |= {"token_budget": token_budget, "time_range": time_range, "as_of": as_of, "order": order}
        given |= {"include_superseded": include_superseded, "parse_time": parse_time, "spread": spread}
        given["reinforce"] = reinforce
        checked = recall_stage.options(self._context, limit, given)
        self._check_open()
        return recall_stage.recall(self._context, query, checked, query_vector)

    recall = collected(
        recall_stream, "Memories relevant to ``query``, best first by relevance x confidence, as a list."
    )

    def recall_by_vector(
        self, vector: Sequence[float] | np.ndarray, limit: int = 10, **options: Unpack[RecallArguments]
    ) -> list[RecallResult]:
        """:meth:`recall` for a query vector you already have (the same options, but ``mode`` may not be
        ``"keyword"``)."""
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
        return self._consolidate_now(progress)

    def _consolidate_now(self, progress: Callable[[int, int], None] | None = None) -> ConsolidationRun:
        with self._consolidation_lock, self._storage.consolidation_lock(self.agent):
            retire_outdated_principles(self._context)
            return consolidate_stage.consolidate(self._context, progress)

    def _scheduled_consolidation(self) -> ConsolidationRun | None:
        """The schedule's run (ConsolidationConfig): once validation has settled, waiting at most
        ``SCHEDULED_WAIT_S``; while writes keep it busy longer the round is skipped (the next one tries again), where
        an unbounded wait held the schedule's thread for as long as the writes went on."""
        self._check_open()
        if not self.wait_for_idle(SCHEDULED_WAIT_S):
            log.info("scheduled consolidation skipped: validation still busy after %.0f s", SCHEDULED_WAIT_S)
            return None
        return self._consolidate_now()

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

    # -- async twins: each runs its method in a worker thread, with the method's signature ----------------------

    aencode = twin(encode)
    aencode_batch = twin(encode_batch)
    arecall = twin(recall)
    arecall_stream = stream_twin(recall_stream)
    arecall_by_vector = twin(recall_by_vector)
    aconsolidate = twin(consolidate)
    adecay = twin(decay)
    arollback = twin(rollback)
    await_for_idle = twin(wait_for_idle)
    aclose = twin(close)

    async def __aenter__(self) -> Audrey:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        path = getattr(self._storage, "path", "?")
        scope = f", scope={self.scope!r}" if self.scope else ""
        return f"Audrey(path={path!r}, agent={self.agent!r}{scope}, embedder={self.embedder!r})"
