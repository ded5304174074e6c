"""Translating between LangChain Documents and Audrey memories (no memory logic here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.documents import Document

from audrey_core import Memory, RecallResult
from audrey_core.config import SOURCES

AUDREY_FIELDS = ("confidence", "state", "memory_type", "source")


def encode_item(text: str, metadata: Mapping[str, Any] | None, memory_id: str | None) -> dict[str, Any]:
    """An ``encode_batch`` item for one text. Metadata is kept whole; its ``source`` (when it names an Audrey source),
    ``salience`` (a number in [0, 1]) and ``tags`` (a list of strings) also become Audrey's fields."""
    meta = dict(metadata or {})
    item: dict[str, Any] = {"content": text, "metadata": meta}
    if meta.get("source") in SOURCES:
        item["source"] = meta["source"]
    salience = meta.get("salience")
    if isinstance(salience, (int, float)) and not isinstance(salience, bool) and 0.0 <= salience <= 1.0:
        item["salience"] = salience
    tags = meta.get("tags")
    if isinstance(tags, (list, tuple)) and tags and all(isinstance(t, str) and t.strip() for t in tags):
        item["tags"] = list(tags)
    if memory_id is not None:
        item["id"] = memory_id
    return item


def audrey_fields(memory: Memory, confidence: float) -> dict[str, Any]:
    """Audrey's view of a memory, as document metadata."""
    return {"confidence": confidence, "state": memory.state, "memory_type": memory.memory_type, "source": memory.source}


def to_document(memory: Memory | RecallResult, fields: Mapping[str, Any] | None = None) -> Document:
    """A Document with the memory's text, id and stored metadata, plus ``fields`` when given. A field never
    overwrites a different value the caller stored under the same key; it goes under ``audrey_<key>`` instead."""
    metadata = dict(memory.metadata)
    for key, value in (fields or {}).items():
        metadata[key if metadata.get(key, value) == value else f"audrey_{key}"] = value
    return Document(page_content=memory.content, metadata=metadata, id=memory.id)


def result_fields(result: RecallResult, include_provenance: bool = False) -> dict[str, Any]:
    """Everything recall knows about a result, as document metadata."""
    fields = {
        "confidence": result.confidence,
        "state": result.state,
        "memory_type": result.memory_type,
        "source": result.source,
        "score": result.score,
        "similarity": result.similarity,
        "created_at": result.created_at.isoformat(),
        "tags": list(result.tags),
    }
    if include_provenance and result.provenance is not None:
        fields["provenance"] = {
            "evidence": [{"id": m.id, "content": m.content, "source": m.source} for m in result.provenance.evidence],
            "supersedes": [{"id": m.id, "content": m.content} for m in result.provenance.supersedes],
            "superseded_by": result.provenance.superseded_by,
        }
    return fields
