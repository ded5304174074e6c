"""Translating between LlamaIndex chat messages and Audrey encode items / recalled memories."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.llms import ChatMessage, MessageRole

from audrey_core import RecallResult
from audrey_core.conversation import (
    REMEMBERED_SPEAKERS,
    render_memories,
    source_for_role,
    speaker_for_role,
    worth_remembering,
)

HEADER = "Relevant memories from earlier sessions (confidence, source, date observed):"


def message_items(
    messages: Sequence[ChatMessage],
    scope: tuple[str, ...] | None = None,
    speakers: frozenset[str] = frozenset(REMEMBERED_SPEAKERS),
    questions: bool = False,
) -> list[dict[str, Any]]:
    """``encode_batch`` items for the messages worth remembering (``audrey_core.conversation.worth_remembering``):
    user text as told-by-user, assistant text as model-generated, tool output (when ``speakers`` has ``tool``) as
    tool-result, each with its speaker (the message's ``additional_kwargs["name"]`` when it has one). System
    messages, messages without text (e.g. tool calls) and, unless ``questions``, bare questions are skipped."""
    items = []
    for message in messages:
        role = message.role.value
        text = (message.content or "").strip()
        if not worth_remembering(role, text, speakers, questions):
            continue
        item: dict[str, Any] = {
            "content": text,
            "source": source_for_role(role),
            "speaker": speaker_for_role(role, message.additional_kwargs.get("name")),
            "metadata": {"role": role},
        }
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
