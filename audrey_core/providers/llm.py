"""The LLM protocol, asking for validated JSON, and a provider for OpenAI and compatible servers.

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
from .openai_support import client_options, openai_module, retryable_errors
from .retry import call_with_retries

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


class OpenAICompatibleLLM:
    """Chat completions from OpenAI or any compatible server (``base_url``, e.g. a local one), asking for JSON.

    Rate limits, timeouts, connection errors and 5xx answers are retried with exponential backoff; anything else
    raises :class:`LLMError` with the provider's message. Set ``json_mode=False`` for servers that reject
    ``response_format``.
    """

    def __init__(
        self,
        model: str = "gpt-4o-mini",
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        temperature: float = 0.0,
        json_mode: bool = True,
        max_attempts: int = 5,
        retry_base_delay: float = 0.5,
        timeout: float = 60.0,
    ) -> None:
        openai = openai_module("OpenAICompatibleLLM")
        options = client_options("OpenAICompatibleLLM", api_key, base_url, timeout)
        self.model_name = model
        self.temperature = temperature
        self.json_mode = json_mode
        self.max_attempts = max_attempts
        self.retry_base_delay = retry_base_delay
        self._client = openai.OpenAI(**options)
        self._retryable = retryable_errors(openai)
        self._error = openai.OpenAIError

    def _request(self, messages: Messages) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model_name, "messages": messages, "temperature": self.temperature}
        if self.json_mode:
            request["response_format"] = {"type": "json_object"}
        return request

    def _text(self, response: Any) -> str:
        content = response.choices[0].message.content if response.choices else None
        if not content:
            raise LLMError(f"{self.model_name} returned an empty reply")
        return content

    def complete(self, messages: Messages) -> str:
        """The reply text, retrying transient failures."""
        request = self._request(messages)
        try:
            response = call_with_retries(
                lambda: self._client.chat.completions.create(**request),
                retryable=self._retryable,
                attempts=self.max_attempts,
                base_delay=self.retry_base_delay,
            )
        except self._error as exc:
            raise LLMError(f"{self.model_name} request failed: {exc}") from exc
        return self._text(response)

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM({self.model_name!r})"
