"""What an Audrey instance reads without changing its memory: its records (consolidation runs, contradictions,
causal links, memories by id, update chains), listings, vectors and counts, always within its tenant. The read-only
half of :class:`~audrey_core.audrey.Audrey`, which adds the lifecycle and every stage that writes."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .aio import stream_twin, twin
from .config import AudreyConfig
from .errors import ClosedError, InvalidInputError
from .models import CausalLink, ConsolidationRun, Contradiction, Introspection, Memory
from .providers.embedding import QueryCache
from .rules.confidence import ConfidenceBreakdown, memory_confidence
from .rules.inputs import check_ids_text, check_text
from .rules.ownership import Tenant
from .rules.recall_options import ListingFilters
from .stages import recall as recall_stage
from .stages import records
from .stages.context import StageContext
from .storage import Storage
from .timeutil import Clock

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11: editors list each filter with its type


class MemoryReading:
    """Reading an agent's memory within one tenant (set up by :class:`~audrey_core.audrey.Audrey`)."""

    _storage: Storage
    tenant: Tenant
    config: AudreyConfig
    clock: Clock
    _context: StageContext
    _queries: QueryCache
    _closed: bool = False

    @property
    def storage(self) -> Storage:
        """Deprecated: the store behind the instance, which is not bound to its tenant (it reads any agent's rows).
        Use the instance's own methods (``vectors``, ``get_many``, ``audit_log``, ``introspect``, ...); removed in
        the next minor version."""
        warnings.warn(
            "Audrey.storage is deprecated and will be removed in the next minor version: it is not bound to the "
            "instance's tenant; use the instance's methods (vectors, get_many, audit_log, introspect, ...)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._storage

    def audit_log(self) -> list[dict[str, Any]]:
        """The audit entries of this instance's agent, oldest first: forgets, expiries, updates, rollbacks, settled
        disputes (``action``, ``subject_id``, ``details``, ``created_at``). A scoped instance sees the entries about
        memories it holds."""
        self._check_open()
        return records.audit_log(self._context)

    def _check_open(self) -> None:
        if self._closed:
            raise ClosedError("this Audrey instance is closed; create a new one to keep using the memory")

    def consolidation_history(self) -> list[ConsolidationRun]:
        """This agent's consolidation runs, oldest first, with their status."""
        self._check_open()
        return records.consolidation_history(self._context)

    def consolidation_run(self, run_id: str) -> ConsolidationRun | None:
        """This agent's consolidation run ``run_id`` (None when there is none here), found by its id."""
        self._check_open()
        return records.consolidation_run(self._context, check_ids_text("consolidation_run", [run_id])[0])

    def contradictions(
        self, states: Sequence[str] | None = None, *, memory_id: str | None = None
    ) -> list[Contradiction]:
        """This agent's recorded contradictions (optionally only those in ``states``; with ``memory_id``, those it is
        a side of), oldest first."""
        self._check_open()
        side = None if memory_id is None else check_ids_text("contradictions", [memory_id])[0]
        return records.contradictions(self._context, states, memory_id=side)

    def contradiction(self, contradiction_id: str) -> Contradiction | None:
        """This agent's contradiction ``contradiction_id`` (None when there is none here), found by its id."""
        self._check_open()
        wanted = check_ids_text("contradiction", [contradiction_id])[0]
        found = records.contradictions(self._context, contradiction_id=wanted)
        return found[0] if found else None

    def causal_links(self, memory_id: str | None = None, *, involving: str | None = None) -> list[CausalLink]:
        """This agent's active causal links (those explaining ``memory_id`` when given; with ``involving``, those a
        memory takes part in as the principle, the cause or the effect)."""
        self._check_open()
        part = None if involving is None else check_ids_text("causal_links", [involving])[0]
        return records.causal_links(self._context, memory_id, involving=part)

    def get(self, memory_id: str) -> Memory | None:
        """This instance's memory with this id (any type), or ``None``: also when it belongs to another agent or
        lies outside this instance's scope."""
        self._check_open()
        return records.get_many(self._context, [memory_id], "get")[0]

    def get_many(self, ids: Sequence[str]) -> list[Memory | None]:
        """This instance's memories with these ids, in the same order (``None`` where there is none of its own)."""
        self._check_open()
        return records.get_many(self._context, ids)

    def update_chain(self, memory_id: str) -> list[Memory]:
        """A memory's history of updates, oldest first: what it replaced (directly or through earlier updates), the
        memory itself, and what replaced it since. Empty when this instance has no such memory."""
        self._check_open()
        return records.update_chain(self._context, memory_id)

    def chunks(self, memory_id: str) -> list[str]:
        """The parts of a long memory's text that were embedded apart, in order ([] for a text embedded whole)."""
        self._check_open()
        return records.chunks(self._context, memory_id)

    @property
    def location(self) -> str:
        """Where the memory is stored: a file path, ``:memory:``, or a PostgreSQL URL without its password."""
        return str(self._storage.path)

    def principles_citing(self, episode_id: str) -> list[Memory]:
        """The principles and procedures of this instance that count the episode ``episode_id`` as evidence."""
        self._check_open()
        return records.principles_citing(self._context, episode_id)

    def timeline(self) -> list[tuple[str, str, str, int]]:
        """How many of this instance's memories were stored each day: (``YYYY-MM-DD``, memory type, state, count),
        in day order (expired ones included until a sweep deletes them)."""
        self._check_open()
        return records.timeline(self._context)

    def embed_query(self, text: str) -> np.ndarray:
        """The embedding recall would use for ``text`` (cached)."""
        self._check_open()
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError("query must be a non-empty string")
        return self._queries.vector(check_text("query", text))

    def confidence(self, memory: Memory) -> ConfidenceBreakdown:
        """``memory``'s confidence now, with its parts."""
        return memory_confidence(memory, self.clock(), self.config.confidence)

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored embedding of each of this instance's memories among ``ids``."""
        self._check_open()
        return self._storage.get_vectors(check_ids_text("vectors", ids), owner=self.tenant)

    def list_memories(
        self,
        limit: int = 10,
        offset: int = 0,
        types: Sequence[str] | None = None,
        include_dormant: bool = False,
        **filters: Unpack[ListingFilters],
    ) -> list[Memory]:
        """This agent's memories without a query, newest first, with paging; same filters as :meth:`recall`."""
        self._check_open()
        arguments = {"types": types, "include_dormant": include_dormant, **filters}
        return recall_stage.list_memories(self._context, limit, offset, arguments)

    def iter_memories(
        self, types: Sequence[str] | None = None, include_dormant: bool = False, **filters: Unpack[ListingFilters]
    ) -> Iterator[Memory]:
        """Every memory of this instance matching :meth:`recall`'s filters, oldest first, read a page at a time."""
        self._check_open()
        return recall_stage.iter_memories(
            self._context, {"types": types, "include_dormant": include_dormant, **filters}
        )

    def scopes(self) -> list[tuple[str, ...]]:
        """Every scope at or below this instance's that holds at least one of its agent's memories, sorted."""
        self._check_open()
        return records.scopes(self._context)

    def agents(self) -> dict[str, int]:
        """Every agent with memories in this store and how many each has: like ``introspect(all_agents=True)``, an
        explicit crossing of tenants for operators (``audrey ui`` says which agents a store holds)."""
        self._check_open()
        return self._storage.agents()

    def introspect(self, all_agents: bool = False) -> Introspection:
        """Counts by type and state, contradictions, causal links, last consolidation, sources, embedding model: of
        this instance's memories (its agent, at or below its scope). ``all_agents=True`` counts the whole store, an
        explicit crossing of tenants for operators."""
        self._check_open()
        return records.introspect(self._context, all_agents)

    aconsolidation_history = twin(consolidation_history)
    acontradictions = twin(contradictions)
    acontradiction = twin(contradiction)
    aconsolidation_run = twin(consolidation_run)
    acausal_links = twin(causal_links)
    aget = twin(get)
    aget_many = twin(get_many)
    aupdate_chain = twin(update_chain)
    aprinciples_citing = twin(principles_citing)
    achunks = twin(chunks)
    atimeline = twin(timeline)
    alist_memories = twin(list_memories)
    aiter_memories = stream_twin(iter_memories)
    aembed_query = twin(embed_query)
    avectors = twin(vectors)
    ascopes = twin(scopes)
    aintrospect = twin(introspect)
    aaudit_log = twin(audit_log)
