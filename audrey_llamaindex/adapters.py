"""LlamaIndex LLMs and embedding models serving as Audrey's LLM and embedder."""

from __future__ import annotations

from collections.abc import Sequence

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.llms import LLM, ChatMessage


class LlamaIndexEmbedder:
    """Any LlamaIndex ``BaseEmbedding`` as an Audrey embedder (texts through ``get_text_embedding_batch``, queries
    through ``get_query_embedding``); ``dimensions`` is probed with one query when not given."""

    def __init__(self, embed_model: BaseEmbedding, *, model_name: str | None = None, dimensions: int | None = None):
        if not isinstance(embed_model, BaseEmbedding):
            raise TypeError(f"expected a LlamaIndex BaseEmbedding, got {type(embed_model).__name__}")
        self.embed_model = embed_model
        name = getattr(embed_model, "model_name", None)
        self.model_name = model_name or (name if name and name != "unknown" else type(embed_model).__name__)
        self._dimensions = dimensions

    @property
    def dimensions(self) -> int:
        """Vector size."""
        if self._dimensions is None:
            self._dimensions = len(self.embed_model.get_query_embedding("dimension probe"))
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed stored texts."""
        return self.embed_model.get_text_embedding_batch(list(texts))

    def embed_query(self, text: str) -> list[float]:
        """Embed a search query."""
        return self.embed_model.get_query_embedding(text)

    def __repr__(self) -> str:
        return f"LlamaIndexEmbedder({self.model_name!r})"


class LlamaIndexLLM:
    """Any LlamaIndex ``LLM`` as Audrey's LLM (contradiction checks, principle extraction)."""

    def __init__(self, llm: LLM) -> None:
        if not isinstance(llm, LLM):
            raise TypeError(f"expected a LlamaIndex LLM, got {type(llm).__name__}")
        self.llm = llm
        self.model_name = getattr(llm.metadata, "model_name", None) or type(llm).__name__

    @staticmethod
    def _messages(messages: list[dict[str, str]]) -> list[ChatMessage]:
        return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]

    def complete(self, messages: list[dict[str, str]]) -> str:
        """The model's reply text."""
        return self.llm.chat(self._messages(messages)).message.content or ""

    def __repr__(self) -> str:
        return f"LlamaIndexLLM({self.model_name!r})"
