"""``AudreyMemoryBlock``: Audrey as a long-term block of LlamaIndex's ``Memory``."""

from __future__ import annotations

from typing import Any

from llama_index.core.llms import ChatMessage
from llama_index.core.memory.memory import BaseMemoryBlock
from pydantic import Field, field_validator

from audrey_core import Audrey
from audrey_core.conversation import REMEMBERED_SPEAKERS, remembered_speakers

from .messages import HEADER, latest_user_text, message_items, render


class AudreyMemoryBlock(BaseMemoryBlock[str]):
    """``Memory.from_defaults(memory_blocks=[AudreyMemoryBlock(audrey=brain, name="audrey", priority=1)])``.

    Messages flushed from short-term memory are encoded (user as told-by-user, assistant as model-generated; tool
    output as tool-result only when ``remember`` has ``"tool"``; bare questions only with ``remember_questions``;
    a message's ``additional_kwargs["name"]`` as its speaker); reading recalls what is relevant to the latest user
    message and renders it with confidence. Truncation drops the least relevant memories first (priority 0 means
    never truncated, as in LlamaIndex).
    """

    audrey: Audrey
    name: str = "audrey_memory"
    description: str | None = "Long-term memories recalled by Audrey, with their confidence."
    k: int = Field(default=5, ge=1)
    min_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    scope: tuple[str, ...] | None = None
    remember: tuple[str, ...] = REMEMBERED_SPEAKERS
    remember_questions: bool = False

    @field_validator("remember", mode="before")
    @classmethod
    def _speakers(cls, value: Any) -> tuple[str, ...]:
        return tuple(sorted(remembered_speakers(value)))

    def _where(self) -> dict[str, Any]:
        return {"scope": self.scope} if self.scope else {}

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        query = latest_user_text(messages)
        if query is None:
            return ""
        results = await self.audrey.arecall(query, limit=self.k, min_confidence=self.min_confidence, **self._where())
        return render(results)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        items = message_items(messages, self.scope, frozenset(self.remember), self.remember_questions)
        if items:
            await self.audrey.aencode_batch(items)

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drop memories from the least relevant end until ``tokens_to_truncate`` tokens are gone. The tokens are the
        calling Memory's (its ``tokenizer_fn``, unknown here): a line counts as its words, fewer than any subword
        tokenizer counts, so enough is always dropped (when too little is, LlamaIndex drops the whole block)."""
        lines = content.splitlines()
        removed = 0
        while len(lines) > 1 and removed < tokens_to_truncate:
            removed += len(lines.pop().split())
        return "\n".join(lines) if len(lines) > 1 or (lines and lines[0] != HEADER) else None
