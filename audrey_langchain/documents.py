"""Translating between LangChain Documents and Audrey memories (no memory logic here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.documents import Document

from audrey_core import Memory, RecallResult
from audrey_core.conversation import with_fields


def to_document(memory: Memory | RecallResult, fields: Mapping[str, Any] | None = None) -> Document:
    """A Document with the memory's text, id and stored metadata, plus ``fields`` when given. A field never
    overwrites a different value the caller stored under the same key; it goes under ``audrey_<key>`` instead."""
    metadata = with_fields(memory.metadata, fields or {})
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
