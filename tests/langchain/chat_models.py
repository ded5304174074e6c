"""A scripted, tool-capable chat model that records what it was shown (a real BaseChatModel, not a mock)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field


class RecordingChatModel(BaseChatModel):
    """Replies from ``replies`` in turn (the last repeats); ``seen`` keeps every prompt it received."""

    replies: list[Any] = Field(default_factory=list)  # AIMessage or str
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "recording"

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingChatModel:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.seen.append(list(messages))
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        message = reply if isinstance(reply, AIMessage) else AIMessage(content=reply)
        return ChatResult(generations=[ChatGeneration(message=message.model_copy())])

    def system_texts(self) -> list[str]:
        """The system message of each call ('' when there was none)."""
        return [next((m.text for m in call if m.type == "system"), "") for call in self.seen]
