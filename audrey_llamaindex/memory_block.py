"""``AudreyMemoryBlock``: Audrey as a long-term block of LlamaIndex's ``Memory``."""

from __future__ import annotations

from typing import Any

from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.core.memory.memory import BaseMemoryBlock
from pydantic import Field, field_validator

from audrey_core import Audrey
from audrey_core.conversation import PROMPT_SIMILARITY_FLOOR, REMEMBERED_SPEAKERS, Remembering, message_id

from .messages import HEADER, latest_user_text, message_items, render


class AudreyMemoryBlock(BaseMemoryBlock[str]):
    """``Memory.from_defaults(memory_blocks=[AudreyMemoryBlock(audrey=brain, name="audrey", priority=1)])``.

    Each time the ``Memory`` is read (a chat engine or an agent reads it before every model call), the block stores
    what the session's messages hold worth remembering that it has not stored yet, and recalls what is relevant to
    the latest user message, rendered with confidence (none whose similarity to it is under ``min_similarity``).
    Messages flushed from short-term memory are stored the same way. So what the user says is stored as soon as the
    model is about to answer it, and a session that ends leaves nothing the user said behind (LlamaIndex gives a
    block no call when a session ends: a reply the assistant gives last, when ``remember`` names ``"assistant"``,
    reaches the block only if the session goes on or flushes it; :class:`~audrey_llamaindex.AudreyMemory` stores
    every message as it is put).

    What is stored is :class:`audrey_core.conversation.Remembering`'s: the user's statements (user as
    told-by-user); not questions (``remember_questions``) or chatter (``remember_chatter``); the assistant's replies
    (model-generated) only with ``"assistant"`` in ``remember``; a tool's output only for ``lasting_tools``
    (``"tool"`` in ``remember``: every tool's). A message's ``additional_kwargs["name"]`` is its speaker. Each
    message is stored once per session (its id is made of the session, role and text). Truncation drops the least
    relevant memories first (priority 0 means never truncated, as in LlamaIndex).
    """

    audrey: Audrey
    name: str = "audrey_memory"
    description: str | None = "Long-term memories recalled by Audrey, with their confidence."
    k: int = Field(default=5, ge=1)
    min_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    min_similarity: float | None = Field(default=PROMPT_SIMILARITY_FLOOR, ge=-1.0, le=1.0)
    scope: tuple[str, ...] | None = None
    remember: tuple[str, ...] = REMEMBERED_SPEAKERS
    remember_questions: bool = False
    remember_chatter: bool = False
    lasting_tools: tuple[str, ...] = ()

    @field_validator("remember", mode="before")
    @classmethod
    def _speakers(cls, value: Any) -> tuple[str, ...]:
        return tuple(sorted(Remembering.of(value).speakers))

    def _where(self) -> dict[str, Any]:
        return {"scope": self.scope} if self.scope else {}

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        history = list(messages or [])
        await self._store(history, block_kwargs.get("session_id"))
        query = latest_user_text(history)
        if query is None:
            return ""
        floors = {"min_confidence": self.min_confidence, "min_similarity": self.min_similarity}
        results = await self.audrey.arecall(query, limit=self.k, **floors, **self._where())
        return render(results)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        await self._store(messages, None)

    async def _store(self, messages: list[ChatMessage], session: str | None) -> None:
        """Store what ``messages`` hold worth remembering that is not stored yet, as turns of their session."""
        remembering = Remembering.of(self.remember, self.remember_questions, self.remember_chatter, self.lasting_tools)
        items, told = [], None  # told: the stored words of the user message before each reply
        for place, item in message_items(messages, self.scope, remembering):
            where = session or messages[place].additional_kwargs.get("session_id")
            item["id"] = message_id("B", self.audrey.agent, str(where or ""), item["metadata"]["role"], item["content"])
            if where is not None:
                item["session"] = item["metadata"]["session_id"] = str(where)
            if messages[place].role == MessageRole.USER:
                told = item["id"]
            elif messages[place].role == MessageRole.ASSISTANT and told is not None:
                item["derived_from"] = [told]  # the user's words it answers
            items.append(item)
        if not items:
            return
        known = {m.id for m in await self.audrey.aget_many([i["id"] for i in items]) if m is not None}
        fresh = [i for i in items if i["id"] not in known]
        if fresh:
            await self.audrey.aencode_batch(fresh)

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drop memories from the least relevant end until ``tokens_to_truncate`` tokens are gone. The tokens are the
        calling Memory's (its ``tokenizer_fn``, unknown here): a line counts as its words, fewer than any subword
        tokenizer counts, so enough is always dropped (when too little is, LlamaIndex drops the whole block)."""
        lines = content.splitlines()
        removed = 0
        while len(lines) > 1 and removed < tokens_to_truncate:
            removed += len(lines.pop().split())
        return "\n".join(lines) if len(lines) > 1 or (lines and lines[0] != HEADER) else None
