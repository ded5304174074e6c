"""LangChain embeddings and chat models serving as Audrey's embedder and LLM, so nothing is configured twice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel


class LangChainEmbedder:
    """Any LangChain ``Embeddings`` as an Audrey embedder (documents through ``embed_documents``, queries through
    ``embed_query``). ``dimensions`` is probed with one query when not given and not known from the model."""

    def __init__(self, embeddings: Embeddings, *, model_name: str | None = None, dimensions: int | None = None) -> None:
        if not isinstance(embeddings, Embeddings):
            raise TypeError(f"expected a LangChain Embeddings, got {type(embeddings).__name__}")
        self.embeddings = embeddings
        self.model_name = model_name or _name_of(embeddings)
        size = getattr(embeddings, "size", None)
        self._dimensions = dimensions or (size if isinstance(size, int) and not isinstance(size, bool) else None)

    @property
    def dimensions(self) -> int:
        """Vector size."""
        if self._dimensions is None:
            self._dimensions = len(self.embeddings.embed_query("dimension probe"))
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed stored texts."""
        return self.embeddings.embed_documents(list(texts))

    def embed_query(self, text: str) -> list[float]:
        """Embed a search query."""
        return self.embeddings.embed_query(text)

    def __repr__(self) -> str:
        return f"LangChainEmbedder({self.model_name!r})"


class LangChainLLM:
    """Any LangChain chat model as Audrey's LLM (contradiction checks, principle extraction)."""

    _ROLES: ClassVar[dict[str, str]] = {"system": "system", "user": "human", "assistant": "ai"}

    def __init__(self, model: BaseChatModel) -> None:
        if not isinstance(model, BaseChatModel):
            raise TypeError(f"expected a LangChain chat model, got {type(model).__name__}")
        self.model = model
        self.model_name = _name_of(model)

    def _messages(self, messages: list[dict[str, str]]) -> list[tuple[str, str]]:
        return [(self._ROLES.get(m["role"], m["role"]), m["content"]) for m in messages]

    def complete(self, messages: list[dict[str, str]]) -> str:
        """The model's reply text."""
        return message_text(self.model.invoke(self._messages(messages)))

    def __repr__(self) -> str:
        return f"LangChainLLM({self.model_name!r})"


def message_text(message: Any) -> str:
    """The text of a chat message whose content is a string or a list of content blocks."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def _name_of(model: Any) -> str:
    for attribute in ("model", "model_name", "model_id"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__
