"""Translating between LlamaIndex chat messages and Audrey encode items / recalled memories."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.llms import ChatMessage, MessageRole

from audrey_core import RecallResult
from audrey_core.conversation import render_memories, source_for_role

HEADER = "Relevant memories from earlier sessions (confidence, source, date observed):"


def message_items(messages: Sequence[ChatMessage], scope: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """``encode_batch`` items: user text as told-by-user, assistant text as model-generated, tool output as
    tool-result. System messages and messages without text (e.g. tool calls) are skipped."""
    items = []
    for message in messages:
        source = source_for_role(message.role.value)
        text = (message.content or "").strip()
        if source is None or not text:
            continue
        item: dict[str, Any] = {"content": text, "source": source, "metadata": {"role": message.role.value}}
        if scope:
            item["scope"] = scope
        items.append(item)
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
