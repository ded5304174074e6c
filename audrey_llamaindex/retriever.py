"""``AudreyRetriever``: confidence-ranked recall as a LlamaIndex retriever."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from audrey_core import Audrey, RecallResult


class AudreyRetriever(BaseRetriever):
    """``AudreyRetriever(audrey=brain, similarity_top_k=5)``: ``NodeWithScore`` ranked by Audrey's score
    (relevance x confidence). Node metadata carries ``confidence``, ``similarity``, ``state``, ``memory_type``,
    ``source`` and ``created_at``; ``recall_options`` (``min_confidence``, ``types``, ``filter``, ``scope``, ...)
    narrow the search."""

    def __init__(self, audrey: Audrey, similarity_top_k: int = 5, **recall_options: Any) -> None:
        super().__init__()
        if similarity_top_k < 1:
            raise ValueError("similarity_top_k must be >= 1")
        self.audrey = audrey
        self.similarity_top_k = similarity_top_k
        self.recall_options = recall_options

    def _nodes(self, results: list[RecallResult]) -> list[NodeWithScore]:
        nodes = []
        for r in results:
            metadata = {k: v for k, v in r.metadata.items() if not k.startswith("_")}
            metadata.update(
                confidence=r.confidence,
                similarity=r.similarity,
                state=r.state,
                memory_type=r.memory_type,
                source=r.source,
                created_at=r.created_at.isoformat(),
            )
            nodes.append(NodeWithScore(node=TextNode(id_=r.id, text=r.content, metadata=metadata), score=r.score))
        return nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._nodes(
            self.audrey.recall(query_bundle.query_str, limit=self.similarity_top_k, **self.recall_options)
        )

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        results = await self.audrey.arecall(query_bundle.query_str, limit=self.similarity_top_k, **self.recall_options)
        return self._nodes(results)
