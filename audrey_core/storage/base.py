"""The narrow interface every storage backend implements. Stages talk to this, never to SQL."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from ..models import Episode, Memory


@dataclass(frozen=True, slots=True)
class VectorHit:
    """One KNN result: the memory and its cosine distance to the query (similarity = 1 - distance)."""

    memory_id: str
    memory_type: str
    distance: float

    @property
    def similarity(self) -> float:
        """Cosine similarity, in [-1, 1]."""
        return 1.0 - self.distance


@dataclass(frozen=True, slots=True)
class VectorFilter:
    """Restrictions applied inside the KNN query. ``None`` means no restriction on that field.

    ``tags`` matches memories carrying at least one of the tags.
    """

    agent: str | None = None
    memory_types: tuple[str, ...] | None = None
    states: tuple[str, ...] | None = None
    sources: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    consolidated: bool | None = None

    @property
    def is_narrowed(self) -> bool:
        """True when anything beyond the agent scope and default states restricts the search."""
        return any(x is not None for x in (self.memory_types, self.sources, self.tags, self.consolidated))


@dataclass(frozen=True)
class StoreCounts:
    """Raw counts behind ``Audrey.introspect()``."""

    states: dict[str, dict[str, int]]
    contradictions: dict[str, int]
    causal_links: int
    last_consolidation: datetime | None
    episode_sources: dict[str, int]


class Storage(ABC):
    """What Audrey's stages need from a backend. Each write method is one transaction."""

    model_name: str
    dimensions: int

    @abstractmethod
    def insert_memories(self, memories: Sequence[Memory], vectors: np.ndarray) -> None:
        """Store memories with their vectors (row i of ``vectors`` belongs to ``memories[i]``) in one transaction.

        An episode whose ``supersedes`` names another episode marks that one ``superseded`` in the same transaction.
        """

    @abstractmethod
    def knn(self, vector: np.ndarray, k: int, where: VectorFilter) -> list[VectorHit]:
        """The ``k`` nearest memories to ``vector`` that satisfy ``where``, nearest first, one hit per memory."""

    @abstractmethod
    def get_memories(self, ids: Iterable[str], memory_types: Mapping[str, str] | None = None) -> dict[str, Memory]:
        """The memories with these ids (missing ids are absent from the result). ``memory_types`` is a hint."""

    @abstractmethod
    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vector of each memory (its first chunk's vector)."""

    @abstractmethod
    def supersedes_chain(self, episode_id: str) -> list[Episode]:
        """The episodes ``episode_id`` corrects, directly or transitively, newest first."""

    @abstractmethod
    def evidence_origins(self, memory_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """For semantic / procedural memories: the (source, agent) of each evidence episode."""

    @abstractmethod
    def set_states(self, states: Mapping[str, str]) -> None:
        """Move memories to new states (keeping each one's previous state in ``prior_state``) in one transaction."""

    @abstractmethod
    def record_retrievals(self, ids: Sequence[str], at: datetime) -> None:
        """Retrieval reinforcement: bump ``retrieval_count``, stamp ``last_retrieved_at`` and ``last_reinforced_at``."""

    @abstractmethod
    def counts(self, agent: str | None) -> StoreCounts:
        """Counts per type and state, contradictions, links, last consolidation, episode sources."""

    @abstractmethod
    def close(self) -> None:
        """Release the backend's resources; later calls raise ``ClosedError``."""

    def get_memory(self, memory_id: str) -> Memory | None:
        """One memory by id, or ``None``."""
        return self.get_memories([memory_id]).get(memory_id)
