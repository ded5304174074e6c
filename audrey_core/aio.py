"""The async twins of Audrey's methods: the core is synchronous (SQLite and local models block), so each twin runs
its method in a worker thread, off the event loop. One implementation per behaviour: a twin only delegates."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from .models import (
    CausalLink,
    ConsolidationRun,
    Contradiction,
    DecayReport,
    Introspection,
    Memory,
    RecallResult,
)

if TYPE_CHECKING:
    from .audrey import Audrey

T = TypeVar("T")
_END = object()


class AsyncTwins:
    """Mixed into :class:`~audrey_core.Audrey`: ``aencode``, ``arecall``, ``arecall_stream``, ``aconsolidate``, ..."""

    async def _in_thread(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(call, *args, **kwargs)

    async def aencode(self, content: str, **kwargs: Any) -> str:
        """Async :meth:`encode`."""
        return await self._in_thread(self.encode, content, **kwargs)

    async def aencode_batch(
        self, items: Sequence[dict[str, Any] | str], *, replace: bool = False, vectors: Any = None
    ) -> list[str]:
        """Async :meth:`encode_batch`."""
        return await self._in_thread(self.encode_batch, items, replace=replace, vectors=vectors)

    async def arecall(self, query: str, **kwargs: Any) -> list[RecallResult]:
        """Async :meth:`recall`."""
        return await self._in_thread(self.recall, query, **kwargs)

    async def arecall_by_vector(self, vector: Sequence[float] | np.ndarray, **kwargs: Any) -> list[RecallResult]:
        """Async :meth:`recall_by_vector`."""
        return await self._in_thread(self.recall_by_vector, vector, **kwargs)

    async def arecall_stream(self, query: str, **kwargs: Any) -> AsyncIterator[RecallResult]:
        """Async :meth:`recall_stream`: ``async for r in brain.arecall_stream(...)``."""
        stream = await self._in_thread(self.recall_stream, query, **kwargs)
        try:
            while True:
                item = await self._in_thread(next, stream, _END)
                if item is _END:
                    return
                yield item  # type: ignore[misc]
        finally:
            await self._in_thread(stream.close)

    async def aconsolidate(self) -> ConsolidationRun:
        """Async :meth:`consolidate`."""
        return await self._in_thread(self.consolidate)

    async def adecay(self) -> DecayReport:
        """Async :meth:`decay`."""
        return await self._in_thread(self.decay)

    async def arollback(self, run_id: str) -> ConsolidationRun:
        """Async :meth:`rollback`."""
        return await self._in_thread(self.rollback, run_id)

    async def aconsolidation_history(self) -> list[ConsolidationRun]:
        """Async :meth:`consolidation_history`."""
        return await self._in_thread(self.consolidation_history)

    async def acontradictions(self, states: Sequence[str] | None = None) -> list[Contradiction]:
        """Async :meth:`contradictions`."""
        return await self._in_thread(self.contradictions, states)

    async def acausal_links(self, memory_id: str | None = None) -> list[CausalLink]:
        """Async :meth:`causal_links`."""
        return await self._in_thread(self.causal_links, memory_id)

    async def aforget(self, ids: Sequence[str]) -> list[str]:
        """Async :meth:`forget`."""
        return await self._in_thread(self.forget, ids)

    async def aget_many(self, ids: Sequence[str]) -> list[Memory | None]:
        """Async :meth:`get_many`."""
        return await self._in_thread(self.get_many, ids)

    async def alist_memories(self, **kwargs: Any) -> list[Memory]:
        """Async :meth:`list_memories`."""
        return await self._in_thread(self.list_memories, **kwargs)

    async def ascopes(self) -> list[tuple[str, ...]]:
        """Async :meth:`scopes`."""
        return await self._in_thread(self.scopes)

    async def aget(self, memory_id: str) -> Memory | None:
        """Async :meth:`get`."""
        return await self._in_thread(self.get, memory_id)

    async def aupdate_chain(self, memory_id: str) -> list[Memory]:
        """Async :meth:`update_chain`."""
        return await self._in_thread(self.update_chain, memory_id)

    async def aintrospect(self, all_agents: bool = False) -> Introspection:
        """Async :meth:`introspect`."""
        return await self._in_thread(self.introspect, all_agents)

    async def await_for_idle(self, timeout: float | None = None) -> bool:
        """Async :meth:`wait_for_idle`."""
        return await self._in_thread(self.wait_for_idle, timeout)

    async def aclose(self) -> None:
        """Async :meth:`close`."""
        await self._in_thread(self.close)

    async def __aenter__(self) -> Audrey:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
