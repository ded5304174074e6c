"""The embedding-model check every store makes on open, once for both dialects: vectors of two models cannot be
compared, so a store remembers the model and dimensions it was built with and refuses any other."""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import EmbeddingMismatchError
from .migrations import VECTOR_TABLE


def check_embedding(name: str, stored: Mapping[str, str], model_name: str, dimensions: int) -> dict[str, str] | None:
    """The configuration rows a new store records (``None`` when ``stored`` has them already). A store built with
    another model or dimensions raises :class:`EmbeddingMismatchError` saying what to do."""
    if "embedding_model" in stored:
        found = (stored["embedding_model"], int(stored["embedding_dimensions"]))
        if found != (model_name, int(dimensions)):
            raise EmbeddingMismatchError(
                f"{name} was built with embedding model {found[0]!r} ({found[1]} dimensions) but was opened with "
                f"{model_name!r} ({dimensions} dimensions); open it with the original embedder or re-embed the store "
                "(`audrey reembed --to MODEL`)"
            )
        return None
    return {"embedding_model": model_name, "embedding_dimensions": str(int(dimensions)), "vector_table": VECTOR_TABLE}
