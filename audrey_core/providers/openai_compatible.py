"""OpenAI and any OpenAI-compatible server (``base_url``: vLLM, Ollama, LM Studio, ...): an embedder and an LLM. They
share importing the package (an optional extra), the API key rule, client options and which failures are retried."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..errors import ConfigurationError, EmbeddingError, LLMError, install_hint
from .llm import Messages
from .retry import call_with_retries


def openai_module(user: str) -> Any:
    """The ``openai`` package, or a :class:`ConfigurationError` saying how to install it."""
    try:
        import openai
    except ImportError as exc:
        raise ConfigurationError(f"{user} needs the openai package: {install_hint('openai')}") from exc
    return openai


def client_options(user: str, api_key: str | None, base_url: str | None, timeout: float) -> dict[str, Any]:
    """Keyword arguments for ``openai.OpenAI``. OpenAI itself needs a key (argument or
    ``OPENAI_API_KEY``); a compatible server at ``base_url`` may not. Retries are ours, so the client's are off."""
    key = api_key or os.environ.get("OPENAI_API_KEY")
    if key is None and base_url is None:
        raise ConfigurationError(f"{user} needs an API key: pass api_key= or set OPENAI_API_KEY")
    return {"api_key": key or "not-needed", "base_url": base_url, "timeout": timeout, "max_retries": 0}


def retryable_errors(openai: Any) -> tuple[type[BaseException], ...]:
    """Failures worth another try: rate limits, timeouts, lost connections, 5xx answers."""
    return (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError, openai.InternalServerError)


_KNOWN_OPENAI_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class OpenAIEmbedder:
    """Embeddings from OpenAI or any OpenAI-compatible server (``base_url``), in requests of up to 2048 texts.

    Rate limits, timeouts and connection errors are retried with exponential backoff; other failures raise
    :class:`EmbeddingError` with the provider's message. ``dimensions`` shortens text-embedding-3 vectors; for other
    models it is needed only when the server's model is not one we know (otherwise one probe request finds it).
    """

    max_batch_size = 2048
    # OpenAI's embedding models take about 8k tokens; with no local tokenizer (tiktoken would download its tables),
    # long texts are chunked by whitespace words, and 5,000 words stays under 8k tokens for ordinary text.
    max_tokens = 5000

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        dimensions: int | None = None,
        max_attempts: int = 5,
        retry_base_delay: float = 0.5,
        timeout: float = 60.0,
        client: Any = None,
    ) -> None:
        self.model_name = model
        self.retry_base_delay = retry_base_delay
        self._requested_dimensions = dimensions
        self._dimensions = dimensions or _KNOWN_OPENAI_DIMENSIONS.get(model)
        self.max_attempts = max_attempts
        openai = openai_module("OpenAIEmbedder")
        if client is None:
            client = openai.OpenAI(**client_options("OpenAIEmbedder", api_key, base_url, timeout))
        self._client = client
        self._retryable = retryable_errors(openai)
        self._error = openai.OpenAIError

    @property
    def dimensions(self) -> int:
        """Vector size (probed with one request for models we do not know)."""
        if self._dimensions is None:
            self._dimensions = len(self._request(["dimension probe"])[0])
        return self._dimensions

    def _request(self, texts: list[str]) -> list[list[float]]:
        kwargs: dict[str, Any] = {"model": self.model_name, "input": texts}
        if self._requested_dimensions is not None:
            kwargs["dimensions"] = self._requested_dimensions
        try:
            response = call_with_retries(
                lambda: self._client.embeddings.create(**kwargs),
                retryable=self._retryable,
                attempts=self.max_attempts,
                base_delay=self.retry_base_delay,
            )
        except self._error as exc:
            raise EmbeddingError(f"OpenAI embeddings request for {self.model_name!r} failed: {exc}") from exc
        ordered = sorted(response.data, key=lambda item: item.index)
        return [item.embedding for item in ordered]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed ``texts``, sending at most 2048 per request."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.max_batch_size):
            vectors.extend(self._request(list(texts[start : start + self.max_batch_size])))
        return vectors

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.model_name!r})"


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
