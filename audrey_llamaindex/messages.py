"""Translating between LlamaIndex chat messages and Audrey encode items / recalled memories."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.llms import ChatMessage, MessageRole

from audrey_core import RecallResult
from audrey_core.conversation import (
    DEFAULT_REMEMBERING,
    Remembering,
    render_memories,
    source_for_role,
    speaker_for_role,
)

HEADER = "Relevant memories from earlier sessions (confidence, source, date observed):"


def message_items(
    messages: Sequence[ChatMessage],
    scope: tuple[str, ...] | None = None,
    remembering: Remembering = DEFAULT_REMEMBERING,
    said: Sequence[str] = (),
) -> list[tuple[int, dict[str, Any]]]:
    """``encode_batch`` items for the messages that hold something worth remembering
    (:class:`audrey_core.conversation.Remembering`; ``said``: what the conversation said before them), each with its
    place in ``messages``: user text as told-by-user, assistant text as model-generated, tool output as tool-result
    (a tool's name is its ``additional_kwargs["name"]`` or ``["tool_name"]``), each with its speaker (the message's
    ``additional_kwargs["name"]`` when it has one). System messages and messages without text (a tool call) are
    never stored."""
    items = []
    before = list(said)
    for place, message in enumerate(messages):
        role = message.role.value
        text = (message.content or "").strip()
        extra = message.additional_kwargs
        tool = (extra.get("tool_name") or extra.get("name")) if message.role == MessageRole.TOOL else None
        kept = remembering.keeps(role, text, tool=tool, said=before)
        before.append(text)
        if not kept:
            continue
        item: dict[str, Any] = {
            "content": text,
            "source": source_for_role(role),
            "speaker": speaker_for_role(role, extra.get("name")),
            "metadata": {"role": role},
        }
        if scope:
            item["scope"] = scope
        items.append((place, item))
    return items


def latest_user_text(messages: Sequence[ChatMessage] | None) -> str | None:
    """The text of the last user message, if any."""
    for message in reversed(messages or []):
        if message.role == MessageRole.USER and (message.content or "").strip():
            return message.content.strip()
    return None


def render(results: Sequence[RecallResult]) -> str:
    """Recalled memories as text for a prompt, each with its confidence, source and date (Audrey's rendering)."""
    return render_memories(results, HEADER, show_type=False)
