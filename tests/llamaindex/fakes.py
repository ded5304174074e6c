"""Real LlamaIndex components for tests: a scripted LLM that records its prompts, and a hashing embedding model."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata
from pydantic import Field, PrivateAttr

from audrey_core.testing import DeterministicEmbedder


class ScriptedLLM(CustomLLM):
    """Completes from ``replies`` in turn (the last repeats) and keeps every prompt it was given."""

    replies: list[str] = Field(default_factory=lambda: ["ok"])
    prompts: list[str] = Field(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="scripted-llamaindex-llm")

    def _next(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._next(prompt))

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        text = self._next(prompt)
        yield CompletionResponse(text=text, delta=text)


class HashEmbedding(BaseEmbedding):
    """Audrey's deterministic feature-hashing embedder as a LlamaIndex embedding model."""

    _inner: DeterministicEmbedder = PrivateAttr(default_factory=DeterministicEmbedder)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(model_name="hash-embedding", **kwargs)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._inner.embed([text])[0].tolist()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embedding(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embedding(query)
