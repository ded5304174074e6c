"""``AudreyMemory``: a complete LlamaIndex memory (``BaseMemory``) for chat engines and agents.

It keeps this session's chat buffer, returns the recent part of it within ``token_limit`` (what ``get`` returns is
what the LLM sees), and puts in front of it what Audrey recalls for the latest user message from every earlier
session. What a message holds worth remembering is encoded as it is put, so a new session (a new memory, a new
process) remembers it and nothing said before a session ends is lost.
"""

from __future__ import annotations

from typing import Any, Literal

from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.core.memory.types import BaseMemory
from pydantic import ConfigDict, Field, PrivateAttr, field_validator

from audrey_core import Audrey
from audrey_core.conversation import (
    CHARS_PER_TOKEN,
    PROMPT_SIMILARITY_FLOOR,
    REMEMBERED_SPEAKERS,
    Remembering,
    count_tokens,
    message_id,
    new_session_id,
)

from .messages import latest_user_text, message_items, render


class AudreyMemory(BaseMemory):
    """``AudreyMemory.from_defaults(audrey=brain, token_limit=3000)``.

    ``memory_share`` of the token limit goes to recalled memories (at most ``k``), the rest to the most recent
    messages (the newest message is always kept). Tokens are counted with the embedder's tokenizer when it has one,
    else as about 4 characters per token. ``session_id`` names this conversation; ``scope`` keeps one user's
    memories apart from another's. ``insert_method="user"`` puts the recalled memories in front of the latest user
    message instead of in a system message (as LlamaIndex's ``Memory`` can; ReActAgent drops a leading system
    message, so use it there). ``ttl`` (seconds) makes the stored messages expire: never recalled after it, then swept.

    Every message is in the chat buffer; what is stored for later sessions is what it holds worth remembering
    (:class:`audrey_core.conversation.Remembering`): what the user states, not their questions (unless
    ``remember_questions``), acknowledgements, thanks or bare non-answers (unless ``remember_chatter``). The
    assistant's replies only when ``remember`` names ``"assistant"`` (model-generated, recorded as drawn from the
    user's words they answer and the memories ``get`` showed, never their restatements); a tool's output only for the
    tools named in ``lasting_tools`` (``"tool"`` in ``remember``: every tool's). Recalled memories whose similarity
    to the latest user message is under ``min_similarity`` stay out. A message's ``additional_kwargs["name"]`` is
    stored as its speaker.
    """

    audrey: Audrey
    token_limit: int = Field(default=3000, gt=0)
    memory_share: float = Field(default=0.3, ge=0.0, le=1.0)
    k: int = Field(default=5, ge=1)
    min_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    session_id: str = Field(default_factory=new_session_id)
    scope: tuple[str, ...] | None = None
    insert_method: Literal["system", "user"] = "system"
    ttl: float | None = Field(default=None, gt=0)  # seconds until a stored message expires (never, by default)
    min_similarity: float | None = Field(default=PROMPT_SIMILARITY_FLOOR, ge=-1.0, le=1.0)
    remember: tuple[str, ...] = REMEMBERED_SPEAKERS
    remember_questions: bool = False
    remember_chatter: bool = False
    lasting_tools: tuple[str, ...] = ()
    _buffer: list[ChatMessage] = PrivateAttr(default_factory=list)
    _told: list[str] = PrivateAttr(default_factory=list)  # the user's words stored since the last reply
    _shown: list[str] = PrivateAttr(default_factory=list)  # the memories the last get put before the model

    model_config = ConfigDict(arbitrary_types_allowed=True)

    @classmethod
    def class_name(cls) -> str:
        return "AudreyMemory"

    @classmethod
    def from_defaults(cls, audrey: Audrey | None = None, token_limit: int = 3000, **kwargs: Any) -> AudreyMemory:  # type: ignore[override]
        """A memory on ``audrey`` (required) with the given token limit and options."""
        if audrey is None:
            raise ValueError("AudreyMemory.from_defaults needs audrey=<an Audrey instance>")
        return cls(audrey=audrey, token_limit=token_limit, **kwargs)

    # -- tokens -------------------------------------------------------------------------------------------------

    def tokenizer_fn(self, text: str) -> list[str]:
        """A token-like split of ``text`` (chat engines use its length to budget their prefix messages)."""
        count = count_tokens(self.audrey.embedder, text)
        return [text[i * CHARS_PER_TOKEN : (i + 1) * CHARS_PER_TOKEN] for i in range(count)]

    def _tokens(self, message: ChatMessage) -> int:
        return count_tokens(self.audrey.embedder, message.content or "") + 4  # role and separators

    # -- writing ------------------------------------------------------------------------------------------------

    @field_validator("remember", mode="before")
    @classmethod
    def _speakers(cls, value: Any) -> tuple[str, ...]:
        return tuple(sorted(Remembering.of(value).speakers))

    @property
    def _remembering(self) -> Remembering:
        return Remembering.of(self.remember, self.remember_questions, self.remember_chatter, self.lasting_tools)

    def _encode(self, start: int, messages: list[ChatMessage]) -> None:
        said = [m.content or "" for m in self._buffer[:start] if m.role != MessageRole.SYSTEM]
        placed = dict(message_items(messages, self.scope, self._remembering, said))
        alive = self.audrey.get_many(self._shown) if self._shown else []
        shown = [i for i, m in zip(self._shown, alive) if m is not None]
        items = []
        for offset, message in enumerate(messages):
            item = placed.get(offset)
            if item is not None:
                # The id ties a message to its place in this session, so set() can re-put history without duplicates.
                item["id"] = message_id("L", self.audrey.agent, self.session_id, str(start + offset), item["content"])
                item["metadata"]["session_id"] = self.session_id
                item["session"] = self.session_id  # a turn of this conversation: recall reads it with its neighbours
                item["ttl"] = self.ttl
                items.append(item)
            if message.role == MessageRole.USER and item is not None:
                self._told.append(item["id"])
            elif message.role == MessageRole.ASSISTANT:
                if item is not None and (self._told or shown):
                    item["derived_from"] = list(dict.fromkeys([*self._told, *shown]))  # what it answers, was shown
                self._told = []
        if items:
            self.audrey.encode_batch(items, replace=True)

    def put(self, message: ChatMessage) -> None:
        """Append to this session and encode it."""
        self._buffer.append(message)
        self._encode(len(self._buffer) - 1, [message])

    def put_messages(self, messages: list[ChatMessage]) -> None:
        """Append several messages (one encoding call)."""
        start = len(self._buffer)
        self._buffer.extend(messages)
        self._encode(start, list(messages))

    def set(self, messages: list[ChatMessage]) -> None:
        """Replace this session's messages (already-encoded ones are not stored twice)."""
        self._buffer = list(messages)
        self._encode(0, self._buffer)

    def reset(self) -> None:
        """Start this session afresh; long-term memories stay."""
        self._buffer = []
        self._told, self._shown = [], []

    # -- reading ------------------------------------------------------------------------------------------------

    def get_all(self) -> list[ChatMessage]:
        """Every message of this session."""
        return list(self._buffer)

    def get(self, input: str | None = None, initial_token_count: int = 0, **kwargs: Any) -> list[ChatMessage]:
        """Recalled memories (a system message) followed by the most recent messages, within ``token_limit``."""
        budget = self.token_limit - initial_token_count
        memory_message = self._memories(input, int(budget * self.memory_share))
        if memory_message is not None:
            budget -= self._tokens(memory_message)
        recent: list[ChatMessage] = []
        for message in reversed(self._buffer):
            cost = self._tokens(message)
            if recent and cost > budget:
                break
            recent.insert(0, message)
            budget -= cost
        while len(recent) > 1 and recent[0].role == MessageRole.TOOL:
            recent.pop(0)  # never start with a tool result cut off from the call that produced it
        if memory_message is None:
            return recent
        if self.insert_method == "user":
            for i in range(len(recent) - 1, -1, -1):
                if recent[i].role == MessageRole.USER:
                    text = f"{memory_message.content}\n\n{recent[i].content or ''}"
                    recent[i] = ChatMessage(role=MessageRole.USER, content=text)  # a copy: the buffer is unchanged
                    return recent
        return [memory_message, *recent]

    def _memories(self, input: str | None, budget: int) -> ChatMessage | None:
        query = (input or "").strip() or latest_user_text(self._buffer)
        if not query or budget <= 0:
            return None
        where = {"scope": self.scope} if self.scope else {}
        floors = {"min_confidence": self.min_confidence, "min_similarity": self.min_similarity}
        results = self.audrey.recall(query, limit=self.k + len(self._buffer), token_budget=budget, **floors, **where)
        in_session = {(m.content or "").strip() for m in self._buffer}
        fresh = [r for r in results if r.metadata.get("session_id") != self.session_id and r.content not in in_session]
        self._shown = [r.id for r in fresh[: self.k]]
        text = render(fresh[: self.k])
        return ChatMessage(role=MessageRole.SYSTEM, content=text) if text else None
