"""``AudreyRetriever``: confidence-ranked recall as a LangChain retriever (usable in any LCEL chain)."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from audrey_core import Audrey, RecallResult

from .documents import result_fields, to_document


class AudreyRetriever(BaseRetriever):
    """``AudreyRetriever(audrey=brain, k=4, min_confidence=0.0, types=None, include_provenance=False)``.

    Documents come best first by relevance x confidence and carry ``confidence``, ``score``, ``similarity``,
    ``state``, ``memory_type``, ``source``, ``created_at`` and ``tags`` in their metadata (and ``provenance`` when
    asked). ``invoke(query, k=...)`` overrides ``k`` for one call; ``filter``, ``tags``, ``sources``, ``scope`` and
    ``scope_prefix`` narrow the search.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    audrey: Audrey
    k: int = 4
    min_confidence: float = 0.0
    types: list[str] | None = None
    include_provenance: bool = False
    filter: dict[str, Any] | None = None
    tags: list[str] | None = None
    sources: list[str] | None = None
    scope: tuple[str, ...] | None = None
    scope_prefix: tuple[str, ...] | None = None

    def _options(self, overrides: dict[str, Any]) -> dict[str, Any]:
        options: dict[str, Any] = {
            "limit": overrides.pop("k", self.k),
            "min_confidence": self.min_confidence,
            "types": self.types,
            "include_provenance": self.include_provenance,
            "tags": self.tags,
            "sources": self.sources,
        }
        for name in ("filter", "scope", "scope_prefix"):
            if getattr(self, name) is not None:
                options[name] = getattr(self, name)
        options.update(overrides)
        return options

    def _documents(self, results: list[RecallResult]) -> list[Document]:
        return [to_document(r, result_fields(r, self.include_provenance)) for r in results]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return self._documents(self.audrey.recall(query, **self._options(kwargs)))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return self._documents(await self.audrey.arecall(query, **self._options(kwargs)))
