"""The narrow interface every storage backend implements. Stages talk to this, never to SQL."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ..index_settings import RECALL_SEARCH_THREADS, IndexConfig
from ..models import CausalLink, ConsolidationRun, Contradiction, Episodic, Memory
from ..rules.calibration import Baseline
from ..rules.ownership import Tenant
from ..rules.recall_options import VectorFilter as VectorFilter  # re-exported: the storage-facing filter
from ..rules.turns import context_similarities, cosines

# Fields of a stored memory that the pipeline may change (content, source and ids never change: episodes are immutable).
MUTABLE_MEMORY_FIELDS = frozenset(
    {
        "state",
        "prior_state",
        "evidence_count",
        "challenge_count",
        "evidence_episode_ids",
        "last_reinforced_at",
        "conditions",
        "consolidated",
        "source_type_diversity",
        "success_count",
        "failure_count",
        "superseded_by",
        "valid_until",
        "expires_at",
        "claim",  # what an episode states, typed: an LLM reads it during validation
    }
)


@dataclass(frozen=True, slots=True)
class VectorHit:
    """One KNN result: the memory and its cosine distance to the query (similarity = 1 - distance)."""

    memory_id: str
    memory_type: str
    distance: float
    vector_row: int | None = None  # which of the memory's vectors (chunks) was nearest

    @property
    def similarity(self) -> float:
        """Cosine similarity, in [-1, 1]."""
        return 1.0 - self.distance


@dataclass(frozen=True, slots=True)
class TurnWindow:
    """Who said an episode, and (for a conversation turn) the ids of the turns around it in its session, in order."""

    speaker: str | None
    neighbours: list[str]


@dataclass(frozen=True)
class TurnRelevance:
    """What the vectors say of recall's candidates beyond the search's own cosines: who said each turn among them
    (``speakers``: the episodes with a speaker or a session), the cosine to the query of the candidates asked about
    (``cosines``), and each turn's cosine in its context (``in_context``:
    :func:`~audrey_core.rules.turns.context_similarities`, for the turns with neighbours and a vector)."""

    speakers: dict[str, str | None]
    cosines: dict[str, float]
    in_context: dict[str, float]


@dataclass(frozen=True, slots=True)
class KeywordHit:
    """One keyword-search result: the memory and its BM25 score (higher is better)."""

    memory_id: str
    memory_type: str
    score: float


@dataclass(frozen=True)
class Candidates:
    """What recall ranks: the memories nearest the query vector and those best matching its words, each list best
    first (one of them empty in vector or keyword mode)."""

    vector: list[VectorHit]
    keyword: list[KeywordHit]

    def joined(self, other: Candidates) -> Candidates:
        """These and ``other``'s (one search run again, e.g. inside a favoured span): each memory once per list."""
        seen_vector = {hit.memory_id for hit in self.vector}
        seen_keyword = {hit.memory_id for hit in self.keyword}
        vector = [*self.vector, *(hit for hit in other.vector if hit.memory_id not in seen_vector)]
        keyword = [*self.keyword, *(hit for hit in other.keyword if hit.memory_id not in seen_keyword)]
        return Candidates(sorted(vector, key=lambda h: h.distance), sorted(keyword, key=lambda h: -h.score))


@dataclass(frozen=True)
class StoreCounts:
    """Raw counts behind ``Audrey.introspect()``."""

    states: dict[str, dict[str, int]]
    contradictions: dict[str, int]
    causal_links: int
    last_consolidation: datetime | None
    episode_sources: dict[str, int]


_PROCESS_LOCKS: dict[tuple[str, str], threading.Lock] = {}
_PROCESS_LOCKS_GUARD = threading.Lock()


def _process_lock(store: str, agent: str) -> AbstractContextManager[Any]:
    with _PROCESS_LOCKS_GUARD:
        return _PROCESS_LOCKS.setdefault((store, agent), threading.Lock())


_SEARCHES = ThreadPoolExecutor(max_workers=RECALL_SEARCH_THREADS, thread_name_prefix="audrey-recall")


def with_margin(k: int) -> int:
    """Candidates ranked for ``k`` results before the filters are checked in the database (states, tags, ...): a few
    more, for the filters to drop without a second round. Every candidate costs a row to confirm (4x k cost 0.9 ms
    of a 3.4 ms hybrid recall at 10k on SQLite); the vector graph's breadth (its expansion) does not depend on this
    count, only on its size."""
    return k + max(8, k // 4)


class Storage(ABC):
    """What Audrey's stages need from a backend. Each write method is one transaction."""

    model_name: str
    dimensions: int
    index_config: IndexConfig  # the search settings this store was opened with (AudreyConfig.index)

    @abstractmethod
    def insert_memories(
        self,
        memories: Sequence[Memory],
        vectors: np.ndarray | None,
        replace: bool = False,
        chunks: Sequence[Sequence[tuple[int, int]]] | None = None,
        owner: Tenant | None = None,
        queued_by: str | None = None,
    ) -> None:
        """Store memories with their vectors in one transaction. Without ``chunks`` row i of ``vectors`` belongs to
        ``memories[i]``; with them, memory i owns one vector per (start, end) span, rows in order. With
        ``queued_by`` (an instance id), each episode also waits for validation, claimed by that instance.

        What an episode's ``supersedes`` or claim key replaces is the caller's to write
        (:mod:`audrey_core.claims.apply`), in the same transaction. With ``replace``, a stored memory with the same
        id is deleted first (in the same transaction); with an ``owner``, an id held by a memory that owner does not
        own is refused (:class:`InvalidInputError`) and nothing is written.
        """

    @abstractmethod
    def delete_memories(self, ids: Sequence[str], owner: Tenant | None = None) -> list[str]:
        """Delete memories, their vectors and tags for good (explicit forgetting); return the ids that existed
        (and, with an ``owner``, belonged to it: others are left alone, as if missing).

        Episodes that a deleted episode superseded get their previous state back."""

    @abstractmethod
    def list_memories(
        self, where: VectorFilter, limit: int, offset: int = 0, newest_first: bool = True
    ) -> list[Memory]:
        """Memories matching ``where`` (no vector involved), by creation time, with paging."""

    @abstractmethod
    def scopes(self, agent: str | None, alive_at: datetime | None = None) -> list[tuple[str, ...]]:
        """Every distinct scope holding at least one memory of ``agent`` (not expired at ``alive_at``, when given),
        sorted."""

    @abstractmethod
    def knn(self, vector: np.ndarray, k: int, where: VectorFilter) -> list[VectorHit]:
        """The ``k`` nearest memories to ``vector`` that satisfy ``where``, nearest first, one hit per memory."""

    def knn_many(self, vectors: np.ndarray, k: int, where: VectorFilter) -> list[list[VectorHit]]:
        """:meth:`knn` for each row of ``vectors`` with one filter (a validation batch's episodes of one scope); a
        store that can search them together overrides this. Meant for each vector's few nearest: a store may walk
        its graph less widely than for :meth:`knn` (validation's neighbours, ``k`` of 7 or less)."""
        return [self.knn(vector, k, where) for vector in vectors]

    @abstractmethod
    def keyword_search(self, terms: Sequence[str], k: int, where: VectorFilter) -> list[KeywordHit]:
        """The ``k`` memories best matching any of ``terms`` by full-text rank, with ``where`` applied."""

    def candidates(self, vector: np.ndarray | None, terms: Sequence[str], k: int, where: VectorFilter) -> Candidates:
        """Recall's candidates in one call: the ``k`` nearest ``vector`` (none without one) and the ``k`` best matches
        of ``terms`` (none without any), both with ``where`` applied. The two searches are independent reads; where
        :meth:`overlap_searches` says it pays, and this thread holds no transaction, they run side by side."""
        if vector is None or not terms:
            vector_hits = self.knn(vector, k, where) if vector is not None else []
            return Candidates(vector_hits, self.keyword_search(terms, k, where) if terms else [])
        if not self.overlap_searches() or self.held_by_this_thread():  # inside a transaction work stays here
            return Candidates(self.knn(vector, k, where), self.keyword_search(terms, k, where))
        pending = _SEARCHES.submit(self._alongside(self.knn), vector, k, where)
        keyword_hits = self.keyword_search(terms, k, where)
        return Candidates(pending.result(), keyword_hits)

    @abstractmethod
    def get_memories(
        self, ids: Iterable[str], memory_types: Mapping[str, str] | None = None, owner: Tenant | None = None
    ) -> dict[str, Memory]:
        """The memories with these ids (missing ids, and with an ``owner`` those it does not own, are absent from the
        result). ``memory_types`` is a hint."""

    @abstractmethod
    def chunk_spans(self, vector_rows: Sequence[int]) -> dict[int, tuple[int, int]]:
        """The (start, end) span of each vector row that covers part of its memory's text (whole-text rows omitted).
        A store not yet seen to hold any text in chunks answers without a read, asking again at most once a second
        (another process's first chunked text can go unseen that long: its results show no chunk until then)."""

    @abstractmethod
    def get_vectors(self, ids: Sequence[str], owner: Tenant | None = None) -> dict[str, np.ndarray]:
        """The stored vector of each memory (its first chunk's vector); with an ``owner``, of its memories only."""

    @abstractmethod
    def similarity_baseline(self) -> Baseline | None:
        """The baseline recorded for the store's embedding model (:mod:`..rules.calibration`), if any."""

    @abstractmethod
    def record_similarity_baseline(self, baseline: Baseline) -> None:
        """Record ``baseline`` with the store (a re-embed's switch to another model removes it)."""

    @abstractmethod
    def span_memories(self, where: VectorFilter, limit: int) -> dict[str, str] | None:
        """The memories matching ``where`` in its ``time_range`` (id -> memory type); None when more than ``limit``."""

    @abstractmethod
    def span_size(self, where: VectorFilter, limit: int) -> int:
        """At most how many memories lie in ``where``'s time range, counted up to ``limit`` + 1 (0: none)."""

    @abstractmethod
    def turn_windows(self, ids: Sequence[str], before: int, after: int) -> dict[str, TurnWindow]:
        """For each episode among ``ids`` that has a speaker or is a turn: its speaker and the turns up to ``before``
        places before it and ``after`` after it in its session (same agent and scope)."""

    def turn_relevance(
        self,
        ids: Sequence[str],
        query: np.ndarray | None,
        unknown: Collection[str],
        before: int,
        after: int,
        self_weight: float,
    ) -> TurnRelevance:
        """For recall's candidates ``ids``: who said each turn among them, the cosine to ``query`` of those in
        ``unknown`` (found by their words alone), and each turn's cosine in the context of the turns up to ``before``
        places before it and ``after`` after it, its own vector weighing ``self_weight`` (without a query, the
        speakers only). Here the windows and vectors are read (:meth:`windows_and_vectors`) and blended in numpy; a
        server backend may blend them where the vectors are and send back the cosines alone."""
        if query is None:
            return TurnRelevance({i: w.speaker for i, w in self.turn_windows(ids, before, after).items()}, {}, {})
        windows, vectors = self.windows_and_vectors(ids, unknown, before, after)
        around = {i: w.neighbours for i, w in windows.items() if w.neighbours}
        asked = {i: vectors[i] for i in ids if i in unknown and i in vectors}
        return TurnRelevance(
            {i: w.speaker for i, w in windows.items()},
            cosines(asked, query),
            context_similarities(query, vectors, around, self_weight),
        )

    def windows_and_vectors(
        self, ids: Sequence[str], unknown: Collection[str], before: int, after: int
    ) -> tuple[dict[str, TurnWindow], dict[str, np.ndarray]]:
        """What :meth:`turn_relevance` blends: the :meth:`turn_windows` of ``ids``, and the vectors of those in
        ``unknown``, of the turns with neighbours and of their neighbours. Here two reads."""
        windows = self.turn_windows(ids, before, after)
        around = [i for i, w in windows.items() if w.neighbours]
        neighbours = (n for i in around for n in windows[i].neighbours)
        return windows, self.get_vectors(list(dict.fromkeys([*(i for i in ids if i in unknown), *around, *neighbours])))

    @abstractmethod
    def supersedes_chain(self, memory_id: str) -> list[Memory]:
        """The memories ``memory_id`` replaced (their ``superseded_by`` names it), directly or transitively, newest
        first."""

    @abstractmethod
    def timeline(self, agent: str, scope_prefix: Sequence[str] = ()) -> list[tuple[str, str, str, int]]:
        """(day stored, memory type, state, count) for ``agent``'s memories at or under ``scope_prefix``."""

    @abstractmethod
    def agents(self) -> dict[str, int]:
        """Every agent with memories in the store, and how many it has."""

    @abstractmethod
    def memory_chunks(self, memory_id: str) -> list[tuple[int, int]]:
        """The (start, end) spans of ``memory_id``'s text that were embedded apart, in order ([] for one vector)."""

    @abstractmethod
    def principles_resting_on(
        self, episode_ids: Sequence[str], where: VectorFilter
    ) -> dict[str, tuple[str, tuple[str, ...]]]:
        """The semantic and procedural memories matching ``where`` whose evidence holds any of ``episode_ids``: id ->
        (memory type, those of ``episode_ids`` it rests on)."""

    def principles_citing(self, episode_id: str) -> list[Memory]:
        """The semantic and procedural memories that count ``episode_id`` among their evidence episodes."""
        resting = self.principles_resting_on([episode_id], VectorFilter())
        found = self.get_memories(list(resting), {memory_id: kind for memory_id, (kind, _) in resting.items()})
        return [found[memory_id] for memory_id in sorted(found)]

    @abstractmethod
    def evidence_origins(self, memory_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """For semantic / procedural memories: the (source, agent) of each evidence episode."""

    def set_states(self, states: Mapping[str, str]) -> None:
        """Move memories to new states (keeping each one's previous state in ``prior_state``) in one transaction."""
        self.update_memories({memory_id: {"state": state} for memory_id, state in states.items()})

    @abstractmethod
    def record_retrievals(self, ids: Sequence[str], at: datetime) -> None:
        """Retrieval reinforcement: bump ``retrieval_count``, stamp ``last_retrieved_at`` and ``last_reinforced_at``."""

    @abstractmethod
    def counts(self, agent: str | None, scope_prefix: tuple[str, ...] = ()) -> StoreCounts:
        """Counts per type and state, contradictions, links, last consolidation, episode sources. A non-root
        ``scope_prefix`` limits the memory and source counts to that subtree (the rest stay per agent)."""

    @abstractmethod
    def transaction(self) -> AbstractContextManager[Any]:
        """A context in which every write method joins one transaction (nested use joins the outer one)."""

    @abstractmethod
    def update_memories(self, changes: Mapping[str, Mapping[str, Any]]) -> None:
        """Apply ``{memory_id: {field: value}}`` for fields in ``MUTABLE_MEMORY_FIELDS``; a state change stores the
        old state in ``prior_state`` unless given."""

    @abstractmethod
    def key_holders(self, agent: str, scope: Sequence[str], key: str, other_than: str) -> list[Episodic]:
        """The episodes of ``agent`` in exactly ``scope`` holding claim ``key``, but ``other_than`` and those rolled
        back, as stored now (inside a transaction: as it sees them)."""

    @abstractmethod
    def readings(self, ids: Sequence[str], reader: str) -> dict[str, str | None]:
        """The stored readings (:mod:`audrey_core.claims.parse`, as JSON; ``None``: read, no claim in it) of those
        of the episodes ``ids`` that ``reader`` read; an episode read by no parser or another is not among them."""

    @abstractmethod
    def keep_readings(self, readings: Mapping[str, str | None], reader: str) -> None:
        """Store ``{episode_id: reading}`` as read by ``reader``, in place of any earlier reading (derived data: an
        episode forgotten meanwhile is skipped, and a deleted episode's reading goes with it)."""

    @abstractmethod
    def iter_memories(
        self, agent: str | None, states: Sequence[str], memory_types: Sequence[str] | None = None
    ) -> Iterator[Memory]:
        """Every memory of ``agent`` (all agents when None) in one of ``states``, in id order."""

    @abstractmethod
    def unconsolidated_episodes(self, agent: str, states: Sequence[str], up_to: str | None = None) -> list[Episodic]:
        """Episodes not yet consolidated, in id (time) order, up to and including the id ``up_to`` when given."""

    # -- pipeline records: contradictions, causal links, consolidation runs, claim support, audit ----------------

    @abstractmethod
    def insert_records(self, records: Sequence[Contradiction | CausalLink | ConsolidationRun]) -> None:
        """Insert records; one whose id already exists is left as it is (deterministic ids make re-runs safe)."""

    @abstractmethod
    def update_record(self, kind: type, record_id: str, fields: Mapping[str, Any]) -> None:
        """Change fields of the contradiction / causal link / run ``record_id``."""

    @abstractmethod
    def find_records(self, kind: type, **equal: Any) -> list[Any]:
        """Records of ``kind`` whose columns equal the given values (a list or tuple value means any of them)."""

    @abstractmethod
    def find_records_in_any(self, kind: type, columns: Sequence[str], values: Iterable[Any], **equal: Any) -> list[Any]:
        """:meth:`find_records` of those that hold one of ``values`` in any of ``columns`` (a contradiction's two
        sides, say), in one read; each record once, in the same order."""

    @abstractmethod
    def run_undo_log(self, run_id: str) -> list[dict[str, Any]]:
        """What a consolidation run overwrote, oldest first (JSON-serialisable entries)."""

    @abstractmethod
    def append_undo(self, run_id: str, entries: Sequence[Mapping[str, Any]]) -> None:
        """Add entries to a run's undo log (joins the caller's transaction)."""

    @abstractmethod
    def record_run_result(self, run_id: str, memory_id: str, confidence_delta: float | None = None) -> None:
        """Record a principle a consolidation run made (no delta), or a change it made to an existing one's
        confidence (the delta, summed per memory in the run's ``confidence_deltas``); joins the caller's
        transaction. The run's ``output_memory_ids`` lists the principles in the order recorded."""

    @abstractmethod
    def add_claim_support(self, memory_id: str, episode_id: str, at: datetime) -> None:
        """Record that ``episode_id`` supported the (disputed or superseded) claim ``memory_id``."""

    @abstractmethod
    def add_restatements(self, pairs: Sequence[tuple[str, str]], at: datetime) -> list[tuple[str, str]]:
        """For each ``(memory_id, episode_id)``: record that the episode restated the episode ``memory_id`` (as claim
        support) and count it once in that episode's ``evidence_count``, a short write transaction per pair. Returns
        the pairs newly recorded (a pair already recorded, or whose memory is gone, is left out)."""

    # -- episodes waiting for validation (see sql/validation_queue.py); times are ISO UTC text -------------------

    @abstractmethod
    def claim_validation(self, ids: Sequence[str], by: str, now: str, stale_before: str) -> list[str]:
        """Of ``ids``, those still waiting whose claim is ``by``'s, free, or older than ``stale_before``: claimed by
        ``by`` now and returned in the given order. An id missing was validated (or is being) elsewhere."""

    @abstractmethod
    def claim_unvalidated(self, owner: Tenant, by: str, now: str, stale_before: str, limit: int) -> list[str]:
        """Up to ``limit`` of ``owner``'s episodes waiting with a free or stale claim, claimed by ``by``, oldest
        first (what a process that exited or died left unvalidated)."""

    @abstractmethod
    def finish_validation(self, ids: Sequence[str]) -> None:
        """These episodes are validated: they wait no more."""

    @abstractmethod
    def release_validation(self, by: str) -> None:
        """Free every claim of ``by`` (its process is exiting): the next open takes them."""

    @abstractmethod
    def claim_support(self, memory_id: str) -> list[str]:
        """Episodes recorded as supporting ``memory_id``, oldest first."""

    @abstractmethod
    def audit(self, agent: str, action: str, subject_id: str | None, details: Mapping[str, Any], at: datetime) -> None:
        """Append an entry to the audit log."""

    @abstractmethod
    def audit_entries(self, agent: str | None = None) -> list[dict[str, Any]]:
        """The audit log, oldest first."""

    # -- maintenance: coverage and backfill, snapshots, re-embedding --------------------------------------------

    @abstractmethod
    def close(self) -> None:
        """Release the backend's resources; later calls raise ``ClosedError``."""

    def search_indexes(self) -> list[dict[str, Any]]:
        """The derived search indexes beside the database: engine, documents, last change applied, lag, bytes."""
        return []

    def searches_caught_up_once(self) -> AbstractContextManager[None]:
        """Searches this thread makes inside it find the derived indexes caught up once, at the first of them,
        rather than before each: for a batch of searches (validation's) that need not see what is committed while
        it runs. Without derived indexes, nothing changes."""
        return nullcontext()

    def replica_reads(self) -> AbstractContextManager[None]:
        """Reads this thread makes inside it, outside a transaction, may go to a read replica (a recall's: PostgreSQL
        with ``replica_url``); they may miss what the replica has not replayed yet. Without one, nothing changes."""
        return nullcontext()

    def _alongside(self, search: Callable[..., Any]) -> Callable[..., Any]:
        """``search`` as a search pool's thread runs it for this thread: with the same choice of reads."""
        return search

    def wait_for_indexes(self, stop: Callable[[], bool], timeout: float) -> bool:
        """Block while a derived index is rebuilt in the background, until it is ready, ``stop()`` is true or
        ``timeout`` seconds pass; whether none is building now. For background work that may wait rather than
        search the database meanwhile (a scan per search). Without derived indexes: True at once."""
        return True

    def settle_indexes(self, timeout: float | None = None) -> bool:
        """Bring the derived indexes up to date with what is committed (catch up, wait for a rebuild in the
        background, insert the rows waiting beside the vector graph), for at most ``timeout`` seconds; whether they
        are. Without derived indexes: True at once."""
        return True

    def vector_search_error(self) -> str | None:
        """Why vector search is unavailable (sqlite-vec could not be loaded), or None when it works."""
        return None

    def held_by_this_thread(self) -> bool:
        """True while the calling thread holds the store (inside a transaction); work must then stay on it."""
        return False

    def overlap_searches(self) -> bool:
        """Whether recall should run its keyword and vector searches side by side: worth it when they wait on a
        server or on a scan that lets go of the GIL; not when both are quick in-process index lookups."""
        return True

    def consolidation_lock(self, agent: str) -> AbstractContextManager[Any]:
        """Held for a whole consolidation run of ``agent`` so two workers never consolidate the same episodes.
        Here: within this process (SQLite's writers share one machine; its transactions keep each step whole).
        A server backend holds a lock in the database, shared by every process."""
        return _process_lock(str(getattr(self, "path", id(self))), agent)

    def lock_memory(self, memory_id: str) -> Memory | None:
        """Inside ``transaction()``: the memory as stored now, held against other writers until the transaction
        ends, for read-modify-write without lost updates. Here a plain read: a write transaction already excludes
        every other writer (SQLite). A server backend locks the row."""
        return self.get_memory(memory_id)

    def get_memory(self, memory_id: str, owner: Tenant | None = None) -> Memory | None:
        """One memory by id, or ``None`` (also when ``owner`` is given and does not own it)."""
        return self.get_memories([memory_id], owner=owner).get(memory_id)
