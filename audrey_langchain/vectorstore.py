"""``AudreyVectorStore``: a LangChain VectorStore whose documents are Audrey memories, ranked by similarity x
confidence. Adding a document with an existing id replaces it; deleting forgets it for good."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore
from langchain_core.vectorstores.utils import maximal_marginal_relevance

from audrey_core import Audrey, RecallResult
from audrey_core.conversation import audrey_fields, item_from_metadata

from .adapters import LangChainEmbedder
from .documents import to_document

# Search keyword arguments passed on to Audrey's recall.
RECALL_OPTIONS = frozenset(
    {"min_confidence", "types", "tags", "sources", "include_dormant", "states", "scope", "scope_prefix", "mode"}
)


class AudreyVectorStore(VectorStore):
    """A LangChain vector store on Audrey.

    ``AudreyVectorStore(embedding=<Embeddings>, path=":memory:")`` builds its own Audrey (other keyword arguments
    such as ``agent``, ``llm`` and ``config`` go to it); ``AudreyVectorStore(audrey=brain)`` shares one. Metadata keys
    ``source``, ``salience`` and ``tags`` also set Audrey's fields. Documents come back with exactly the metadata
    that was stored (so a chain can compare or store them again), except where LangChain users look for scores:
    the ``*_with_score`` and ``*_with_relevance_scores`` searches add Audrey's ``confidence``, ``state``,
    ``memory_type`` and ``source`` (a stored key of the same name keeps its value; Audrey's goes under
    ``audrey_<key>``). ``audrey_metadata=True`` adds them to every document, ``False`` to none. Filters use
    Audrey's metadata filter language (equality, ``$ne``, ``$gt``, ``$in``, ``$and``, ``$or``, ...).
    """

    def __init__(
        self,
        embedding: Embeddings | None = None,
        *,
        audrey: Audrey | None = None,
        path: str | Path = ":memory:",
        audrey_metadata: bool | None = None,
        **audrey_options: Any,
    ) -> None:
        if audrey is not None and (embedding is not None or audrey_options):
            raise ValueError("pass either audrey= or the options to build one (embedding=, path=, ...), not both")
        self._embedding = embedding
        self._owns_audrey = audrey is None
        if audrey is None:
            embedder = LangChainEmbedder(embedding) if embedding is not None else None
            audrey = Audrey(path=path, embedder=embedder, **audrey_options)
        self.audrey = audrey
        self.audrey_metadata = audrey_metadata

    @property
    def embeddings(self) -> Embeddings | None:
        """The LangChain embeddings this store was built with, if any."""
        return self._embedding

    def close(self) -> None:
        """Close the Audrey this store built (a shared one stays open)."""
        if self._owns_audrey:
            self.audrey.close()

    # -- writing ------------------------------------------------------------------------------------------------

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str | None] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Encode texts as episodes in one batch; an id that exists already is replaced. ``source``, ``salience``,
        ``tags``, ``scope`` and ``ttl`` (seconds until they expire) apply to every text."""
        texts = list(texts)
        if metadatas is not None and len(metadatas) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(metadatas)} metadatas")
        if ids is not None and len(ids) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(ids)} ids")
        items = [
            item_from_metadata(text, metadatas[i] if metadatas else None, ids[i] if ids else None)
            for i, text in enumerate(texts)
        ]
        for item in items:
            item.update({k: v for k, v in kwargs.items() if k in ("source", "salience", "tags", "scope", "ttl")})
        return self.audrey.encode_batch(items, replace=True)

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Forget the documents with these ids (all of this agent's memories when ``ids`` is None)."""
        if ids is None:
            self.audrey.forget_all()
            return True
        self.audrey.forget(list(ids))
        return True

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings,
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> AudreyVectorStore:
        """A new store (``path``, ``agent``, ... in kwargs) holding ``texts``."""
        store = cls(embedding=embedding, **kwargs)
        store.add_texts(texts, metadatas, ids=ids)
        return store

    # -- reading ------------------------------------------------------------------------------------------------

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The documents with these ids, in that order; missing ids are skipped."""
        memories = [m for m in self.audrey.get_many(list(ids)) if m is not None and m.agent == self.audrey.agent]
        return [self._document(m) for m in memories]

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """The ``k`` best documents by relevance x confidence (``filter=`` and Audrey's recall options apply)."""
        return [doc for doc, _ in self._scored(self.audrey.recall(query, limit=k, **_recall_options(kwargs)))]

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
        """Documents with Audrey's score (relevance x confidence; higher is better) and, unless
        ``audrey_metadata=False``, Audrey's fields in their metadata."""
        results = self.audrey.recall(query, limit=k, **_recall_options(kwargs))
        return self._scored(results, scored=True)

    def similarity_search_by_vector(self, embedding: list[float], k: int = 4, **kwargs: Any) -> list[Document]:
        """The ``k`` best documents for a query vector."""
        results = self.audrey.recall_by_vector(embedding, limit=k, **_recall_options(kwargs))
        return [doc for doc, _ in self._scored(results)]

    def similarity_search_with_score_by_vector(
        self, embedding: list[float], k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """Documents with Audrey's score for a query vector (Audrey's fields as in the text search)."""
        results = self.audrey.recall_by_vector(embedding, limit=k, **_recall_options(kwargs))
        return self._scored(results, scored=True)

    def _select_relevance_score_fn(self) -> Callable[[float], float]:
        # Audrey's score is relevance x confidence, in [-1, 1]; LangChain's relevance is its non-negative part.
        return lambda score: max(0.0, min(1.0, score))

    def max_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        """Documents chosen for relevance and diversity among the ``fetch_k`` best."""
        return self.max_marginal_relevance_search_by_vector(
            self.audrey.embed_query(query).tolist(), k, fetch_k, lambda_mult, **kwargs
        )

    def max_marginal_relevance_search_by_vector(
        self, embedding: list[float], k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        """MMR over the ``fetch_k`` best for a query vector."""
        results = self.audrey.recall_by_vector(embedding, limit=max(fetch_k, k), **_recall_options(kwargs))
        if not results:
            return []
        vectors = self.audrey.vectors([r.id for r in results])
        chosen = maximal_marginal_relevance(
            np.asarray(embedding, dtype=np.float32), [vectors[r.id] for r in results], lambda_mult=lambda_mult, k=k
        )
        return [doc for doc, _ in self._scored([results[i] for i in chosen])]

    # -- conversions --------------------------------------------------------------------------------------------

    def _document(self, memory: Any) -> Document:
        if not self.audrey_metadata:
            return to_document(memory)
        return to_document(memory, audrey_fields(memory, self.audrey.confidence(memory).value))

    def _scored(self, results: list[RecallResult], scored: bool = False) -> list[tuple[Document, float]]:
        """Documents and scores; Audrey's fields when asked for everywhere, or (by default) for scored searches."""
        if not (self.audrey_metadata or (scored and self.audrey_metadata is None)):
            return [(to_document(r), r.score) for r in results]
        return [(to_document(r, audrey_fields(r, r.confidence)), r.score) for r in results]


def _recall_options(kwargs: dict[str, Any]) -> dict[str, Any]:
    options = {k: v for k, v in kwargs.items() if k in RECALL_OPTIONS}
    if kwargs.get("filter") is not None:
        options["filter"] = kwargs["filter"]
    return options
