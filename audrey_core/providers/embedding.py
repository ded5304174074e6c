"""Embedders: the protocol, checks of what they return, token counts and chunking, and the query cache. The providers
are in :mod:`.local` and :mod:`.openai_compatible`; :mod:`.registry` finds one by name.

An embedder is any object with ``model_name: str``, ``dimensions: int`` and ``embed(texts) -> vectors`` (a list of
float lists or a 2-D numpy array, one row per text). ``max_batch_size`` (optional) caps how many texts go in one call.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import ConfigurationError, EmbeddingError

log = logging.getLogger(__name__)


@runtime_checkable
class Embedder(Protocol):
    """What Audrey needs from an embedding model. An embedder may also state ``similarity_baseline`` (a float), its
    model's mean cosine between unrelated sentences, instead of having it measured (:mod:`..rules.calibration`)."""

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
    # A lazily loaded model (the local one) says whether its tokenizer is loaded: asking for it would load the model.
    loaded = getattr(embedder, "tokenizer_loaded", None)
    if loaded is not None:
        return bool(loaded)
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
        starts, ends = _token_offsets(tokenizer, text)
    else:
        found = np.array([(m.start(), m.end()) for m in _WHITESPACE_TOKEN.finditer(text)], dtype=np.int64)
        starts, ends = found.reshape(-1, 2).T
    if len(starts) <= window:
        return [(0, len(text))]
    step = max(1, window - max(1, int(window * overlap_share)))
    spans = []
    for first in range(0, len(starts), step):
        last = min(first + window, len(starts)) - 1
        spans.append((int(starts[first]), int(ends[last])))
        if last == len(starts) - 1:
            break
    return spans


SEGMENT_CHARS = 65_536  # a long text is tokenized a piece at a time: a 5 MB text whole took ~800 MB of token lists


def _token_offsets(tokenizer: Any, text: str) -> tuple[np.ndarray, np.ndarray]:
    """Start and end characters of ``text``'s non-empty tokens, tokenized in pieces cut at spaces."""
    starts, ends = [], []
    begin = 0
    while begin < len(text):
        end = min(len(text), begin + SEGMENT_CHARS)
        if end < len(text):
            space = text.rfind(" ", begin + 1, end)
            end = space if space > begin else end
        offsets = tokenizer(text[begin:end], add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        found = np.asarray(offsets["offset_mapping"], dtype=np.int64).reshape(-1, 2)
        found = found[found[:, 1] > found[:, 0]] + begin
        starts.append(found[:, 0])
        ends.append(found[:, 1])
        begin = end
    return np.concatenate(starts), np.concatenate(ends)


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


# -- OpenAI and compatible servers -----------------------------------------------------------------------------
