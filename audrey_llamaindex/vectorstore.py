"""``AudreyVectorStore``: a LlamaIndex vector store whose nodes are Audrey memories."""

from __future__ import annotations

from typing import Any

from llama_index.core.schema import BaseNode, MetadataMode, TextNode
from llama_index.core.vector_stores.types import (
    BasePydanticVectorStore,
    FilterCondition,
    FilterOperator,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryResult,
)
from llama_index.core.vector_stores.utils import metadata_dict_to_node, node_to_metadata_dict
from pydantic import PrivateAttr

from audrey_core import SOURCES, Audrey, Memory, RecallResult
from audrey_core.conversation import audrey_fields, item_from_metadata, placed_fields

OPERATORS = {
    FilterOperator.EQ: "$eq",
    FilterOperator.NE: "$ne",
    FilterOperator.GT: "$gt",
    FilterOperator.GTE: "$gte",
    FilterOperator.LT: "$lt",
    FilterOperator.LTE: "$lte",
    FilterOperator.IN: "$in",
    FilterOperator.NIN: "$nin",
}


def to_audrey_filter(filters: MetadataFilters | None) -> dict[str, Any] | None:
    """LlamaIndex MetadataFilters as Audrey's filter language (EQ NE GT LT GTE LTE IN NIN, AND / OR)."""
    if filters is None or not filters.filters:
        return None
    parts = []
    for f in filters.filters:
        if isinstance(f, MetadataFilters):
            nested = to_audrey_filter(f)
            if nested is not None:
                parts.append(nested)
            continue
        operator = OPERATORS.get(FilterOperator(f.operator))
        if operator is None:
            name = FilterOperator(f.operator).value
            raise ValueError(f"AudreyVectorStore does not support the {name!r} filter operator on {f.key!r}")
        if operator in ("$in", "$nin") and not isinstance(f.value, (list, tuple)):
            raise ValueError(f"the {FilterOperator(f.operator).value!r} filter on {f.key!r} takes a list of values")
        parts.append({f.key: {operator: list(f.value) if operator in ("$in", "$nin") else f.value}})
    if filters.condition == FilterCondition.NOT:
        raise ValueError("AudreyVectorStore does not support the NOT filter condition")
    if len(parts) == 1:
        return parts[0]
    return {"$or" if filters.condition == FilterCondition.OR else "$and": parts}


class AudreyVectorStore(BasePydanticVectorStore):
    """``AudreyVectorStore(audrey=brain)``; use with ``VectorStoreIndex.from_vector_store`` or a StorageContext.

    Nodes keep their ids, text, metadata and relationships, and come back with exactly the metadata they were stored
    with (as LlamaIndex's own stores return them; the score is ``NodeWithScore.score``, relevance x confidence).
    The index's embedding model must be the one Audrey was built with
    (``Audrey(embedder=LlamaIndexEmbedder(embed_model))``): node embeddings are stored as given.
    ``ttl`` (seconds; ``add(nodes, ttl=...)`` for one call) makes the nodes stored expire: never returned after it,
    then swept (:meth:`audrey_core.Audrey.sweep_expired`).
    ``audrey_metadata=True`` adds Audrey's ``confidence``, ``state``, ``memory_type`` and ``source`` to returned
    nodes' metadata, visible to the LLM but not embedded (a node's own value under one of those keys is kept;
    Audrey's then goes under ``audrey_<key>``); ``AudreyRetriever`` always adds them.
    """

    stores_text: bool = True
    is_embedding_query: bool = True
    flat_metadata: bool = False
    default_source: str = "direct-observation"
    audrey_metadata: bool = False
    ttl: float | None = None
    _audrey: Audrey = PrivateAttr()

    def __init__(self, audrey: Audrey, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if self.default_source not in SOURCES:
            raise ValueError(f"default_source must be one of {', '.join(SOURCES)}")
        self._audrey = audrey

    @classmethod
    def class_name(cls) -> str:
        return "AudreyVectorStore"

    @property
    def client(self) -> Audrey:
        """The Audrey instance behind the store."""
        return self._audrey

    def add(self, nodes: list[BaseNode], **add_kwargs: Any) -> list[str]:
        """Store nodes (replacing any with the same id), with the embeddings they carry when they have them."""
        if not nodes:
            return []
        ttl = add_kwargs.get("ttl", self.ttl)
        items = []
        for node in nodes:
            # Audrey's fields from the node's own metadata (source, salience, tags, speaker, session, event_time);
            # stored is LlamaIndex's whole node record, so the node comes back as it was added
            text = node.get_content(metadata_mode=MetadataMode.NONE) or " "
            item = item_from_metadata(text, node.metadata, node.node_id, self.default_source)
            item["metadata"] = node_to_metadata_dict(node, remove_text=True, flat_metadata=self.flat_metadata)
            items.append({**item, "ttl": ttl})
        embeddings = [node.embedding for node in nodes]
        vectors = embeddings if all(e is not None for e in embeddings) else None
        return self._audrey.encode_batch(items, replace=True, vectors=vectors)

    def delete(self, ref_doc_id: str, **delete_kwargs: Any) -> None:
        """Forget every node that came from the document ``ref_doc_id``."""
        self._audrey.forget_all(filter={"ref_doc_id": ref_doc_id})

    def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        """The ``similarity_top_k`` best nodes by Audrey's score, with metadata filters applied inside the search."""
        if query.node_ids:
            raise ValueError("AudreyVectorStore cannot restrict a query to node_ids; use metadata filters")
        flt = to_audrey_filter(query.filters)
        if query.doc_ids:
            doc_filter = {"ref_doc_id": {"$in": list(query.doc_ids)}}
            flt = {"$and": [flt, doc_filter]} if flt else doc_filter
        options: dict[str, Any] = {"limit": max(1, query.similarity_top_k)}
        if flt is not None:
            options["filter"] = flt
        if query.query_embedding is not None:
            results = self._audrey.recall_by_vector(query.query_embedding, **options)
        elif query.query_str:
            results = self._audrey.recall(query.query_str, **options)
        else:
            raise ValueError("a VectorStoreQuery needs query_embedding or query_str")
        nodes = [self._node(r, r.confidence) for r in results]
        return VectorStoreQueryResult(nodes=nodes, similarities=[r.score for r in results], ids=[r.id for r in results])

    def get_nodes(self, node_ids: list[str] | None = None, filters: MetadataFilters | None = None) -> list[BaseNode]:
        """Nodes by id (in that order), or those matching ``filters``."""
        if node_ids is not None:
            found = [m for m in self._audrey.get_many(node_ids) if m is not None]
            return [self._node(m, self._audrey.confidence(m).value) for m in found]
        memories = self._audrey.iter_memories(filter=to_audrey_filter(filters))
        return [self._node(m, self._audrey.confidence(m).value) for m in memories]

    def delete_nodes(
        self, node_ids: list[str] | None = None, filters: MetadataFilters | None = None, **kw: Any
    ) -> None:
        """Forget nodes by id or by filter."""
        ids = node_ids if node_ids is not None else [n.node_id for n in self.get_nodes(filters=filters)]
        self._audrey.forget(list(ids))

    def clear(self) -> None:
        """Forget every node of this store's agent."""
        self._audrey.forget_all()

    def _node(self, memory: Memory | RecallResult, confidence: float) -> BaseNode:
        metadata = dict(memory.metadata)
        try:
            node = metadata_dict_to_node(metadata, text=memory.content)
        except Exception:  # a memory written by something other than a LlamaIndex store
            node = TextNode(text=memory.content, metadata=metadata)
        node.id_ = memory.id
        if not self.audrey_metadata:
            return node
        placed = placed_fields(node.metadata, audrey_fields(memory, confidence))
        node.metadata.update(placed)
        node.excluded_embed_metadata_keys = [*node.excluded_embed_metadata_keys, *placed]
        return node
