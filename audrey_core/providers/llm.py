"""The LLM protocol and asking for validated JSON (the OpenAI-compatible provider is in :mod:`.openai_compatible`).

An LLM is any object with ``complete(messages) -> str``, or a plain callable taking the messages and returning text.
Audrey calls it off the caller's path (background validation, consolidation), so a synchronous call is all it needs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from ..errors import ConfigurationError, LLMError
from ..rules.prompts import Prompt

T = TypeVar("T", bound=BaseModel)
Messages = list[dict[str, str]]


@runtime_checkable
class LLM(Protocol):
    """What Audrey needs from a language model."""

    def complete(self, messages: Messages) -> str:
        """The model's reply to OpenAI-style role / content messages."""


class CallableLLM:
    """Wraps a plain function ``f(messages) -> str`` as an LLM."""

    def __init__(self, function: Callable[[Messages], str]) -> None:
        self.function = function
        self.model_name = getattr(function, "__name__", "callable")

    def complete(self, messages: Messages) -> str:
        return self.function(messages)


def as_llm(candidate: Any) -> Any:
    """``candidate`` as an LLM (``None`` stays ``None``); raise :class:`ConfigurationError` if it cannot be one."""
    if candidate is None or hasattr(candidate, "complete"):
        return candidate
    if callable(candidate):
        return CallableLLM(candidate)
    raise ConfigurationError(
        f"llm must have complete(messages) -> str or be a callable, got {type(candidate).__name__}"
    )


def model_name_of(llm: Any) -> str:
    """The name recorded with everything this LLM produced."""
    return str(getattr(llm, "model_name", None) or getattr(llm, "model", None) or type(llm).__name__)


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def parse_reply(text: Any, prompt: Prompt[T], model: str) -> T:
    """Validate a reply against the prompt's response model (tolerating code fences and prose around the JSON)."""
    if not isinstance(text, str):
        raise LLMError(f"{model} returned {type(text).__name__} instead of text for {prompt.name}")
    body = _FENCE.sub("", text.strip())
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise LLMError(f"{model} returned no JSON object for {prompt.name}: {text[:200]!r}")
    try:
        return prompt.response_model.model_validate(json.loads(body[start : end + 1]))
    except (json.JSONDecodeError, ValidationError) as exc:
        raise LLMError(f"{model} returned JSON that does not fit {prompt.name}: {exc}") from exc


def ask(llm: Any, prompt: Prompt[T], **values: str) -> T:
    """Send ``prompt`` to ``llm`` and return its validated reply; any failure is an :class:`LLMError`."""
    model = model_name_of(llm)
    try:
        text = llm.complete(prompt.render(**values))
    except LLMError:
        raise
    except Exception as exc:
        raise LLMError(f"{model} failed on {prompt.name}: {type(exc).__name__}: {exc}") from exc
    return parse_reply(text, prompt, model)
