"""Where the ONNX graph of a local sentence-transformers model comes from: the model's own ``onnx/model.onnx`` (the
hub's layout, and that of the graph Audrey's wheel carries), else a copy made once here and cached, keyed by the
model's files: written from a BERT's safetensors weights with numpy and onnx (:mod:`.onnx_graph`, no torch), or for
other architectures exported with torch. Later processes load it without importing torch.

The cache is ``$AUDREY_CACHE/onnx`` (default ``~/.cache/audrey/onnx``), one folder per model and version:
``<name>-<key>/model.onnx``, where the key is a digest of the model's configuration files and its weights' sizes and
modification times, and of the exporter's settings (a new model version, or an export made differently, is a new
folder). An export is written beside its final name and renamed into place, so processes exporting at once never read
a half-written file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import warnings
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from ..errors import ConfigurationError, install_hint
from .onnx_graph import BUILDER, build_graph, can_build

log = logging.getLogger(__name__)

OPSET = 17
EXPORTER = f"torchscript-opset{OPSET}-eager-v2|{BUILDER}"  # what the key says about how the file is made
CONFIG_FILES = ("config.json", "modules.json", "sentence_bert_config.json", "1_Pooling/config.json", "tokenizer.json")
WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def cache_root() -> Path:
    return Path(os.environ.get("AUDREY_CACHE") or Path.home() / ".cache" / "audrey") / "onnx"


def model_key(model_dir: Path) -> str:
    """A digest of what the export depends on: the model's configuration, its weights (their size and their first
    and last MiB: content, not file times, so a copy of the model or of the cache still matches; reading all 90 MB
    at every open would cost ~0.1 s), the exporter."""
    digest = hashlib.sha256(EXPORTER.encode())
    for name in CONFIG_FILES:
        path = model_dir / name
        if path.is_file():
            digest.update(name.encode() + path.read_bytes())
    for name in WEIGHTS:
        path = model_dir / name
        if path.is_file():
            size = path.stat().st_size
            with path.open("rb") as weights:
                head = weights.read(1 << 20)
                weights.seek(max(0, size - (1 << 20)))
                digest.update(f"{name}:{size}:".encode() + head + weights.read())
    return digest.hexdigest()[:16]


def cached_path(model_dir: Path, model_name: str) -> Path:
    """Where this model's export is cached (whether or not it is there yet)."""
    return cache_root() / f"{model_name.replace('/', '--')}-{model_key(model_dir)}" / "model.onnx"


def onnx_file(model_dir: Path, model_name: str, export: bool = True) -> Path | None:
    """The model's ONNX graph: its own, the cached export, or (``export``) one made now; None when there is none
    and none can be made here."""
    own = model_dir / "onnx" / "model.onnx"
    if own.is_file():
        return own
    cached = cached_path(model_dir, model_name)
    if cached.is_file():
        return cached
    if not export or not can_export(model_dir):
        return None
    if can_build(model_dir) and find_spec("onnx") is not None:
        log.info("writing %s's ONNX graph once, into %s", model_dir, cached.parent)
        try:
            build_graph(model_dir, cached)
        except Exception as exc:
            raise ConfigurationError(f"could not write {model_dir}'s ONNX graph: {exc}") from exc
        (cached.parent / "source.json").write_text(json.dumps({"model": str(model_dir), "exporter": BUILDER}))
    else:
        export_model(model_dir, cached)
    return cached


def can_export(model_dir: Path) -> bool:
    """Whether the model's graph can be made here: a BERT's with onnx alone, any other's with torch and transformers
    too."""
    if find_spec("onnx") is None:
        return False
    return can_build(model_dir) or all(find_spec(name) is not None for name in ("torch", "transformers"))


def export_model(model_dir: Path, target: Path) -> None:
    """Export the transformer of the sentence-transformers model in ``model_dir`` to ``target`` (token ids, attention
    mask and token types in; the last hidden state out; any batch and length). Needs torch, transformers and onnx;
    once per model and version, a few seconds."""
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise ConfigurationError(f"exporting a model to ONNX needs torch: {install_hint('local')}") from exc

    class Hidden(torch.nn.Module):  # keyword arguments: transformers' positional order changes between versions
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    from .local_models import quiet_transformers

    quiet_transformers()
    log.info("exporting %s to ONNX once, into %s (a few seconds)", model_dir, target.parent)
    # Eager attention: the SDPA path exports as masked ops (IsNaN, Where) that ONNX Runtime runs ~30% slower on long
    # chunks (24 against 35 chunks/s of 256 tokens, measured; short texts the same either way).
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True, attn_implementation="eager")
    model.eval()
    ids = torch.ones((1, 8), dtype=torch.long)
    axes = {"batch": 0, "length": 1}
    names = ["input_ids", "attention_mask", "token_type_ids"]
    dynamic = {name: {v: k for k, v in axes.items()} for name in [*names, "last_hidden_state"]}
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix="export-", suffix=".onnx", dir=target.parent)
    os.close(handle)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on shapes it fixes: nothing a user can act on
            torch.onnx.export(
                Hidden(model),
                (ids, ids, torch.zeros_like(ids)),
                temporary,
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes=dynamic,
                opset_version=OPSET,
                dynamo=False,
            )
        (target.parent / "source.json").write_text(json.dumps({"model": str(model_dir), "exporter": EXPORTER}))
        os.chmod(temporary, 0o644)  # a cache other users of the machine may read, as the model's own files
        os.replace(temporary, target)
    except Exception as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, ConfigurationError):
            raise
        raise ConfigurationError(f"could not export {model_dir} to ONNX: {exc}") from exc
