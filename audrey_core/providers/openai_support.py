"""What the OpenAI embedder and LLM share: importing the package, the API key rule, client options, retryable errors."""

from __future__ import annotations

import os
from typing import Any

from ..errors import ConfigurationError, install_hint


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
