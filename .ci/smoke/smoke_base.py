"""The base install (no extra): the default model runs with no torch, the graph the wheel carries, offline, nothing
written to a cache; sentence-transformers' vectors (a reference made by it, .ci/smoke/minilm_reference.json) and a
recall by meaning."""

import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

cache = Path(tempfile.mkdtemp())
os.environ["AUDREY_CACHE"] = str(cache)
from audrey_core import Audrey, OnnxEmbedder, local_embedder  # noqa: E402

assert os.environ.get("HF_HUB_OFFLINE") == "1"
assert importlib.util.find_spec("torch") is None, "the base install installed torch"
embedder = local_embedder()
assert isinstance(embedder, OnnxEmbedder), embedder
assert "site-packages" in str(embedder.model_dir) and "bundled_models" in str(embedder.model_dir), embedder.model_dir
reference = json.loads((Path(__file__).parent / "minilm_reference.json").read_text())
vectors = embedder.embed(reference["texts"])
cosines = (vectors * np.asarray(reference["vectors"], dtype=np.float32)).sum(axis=1)
assert cosines.min() >= 0.999, cosines
path = Path(tempfile.mkdtemp()) / "onnx.db"
with Audrey(path=path) as brain:
    brain.encode("The payment service retries failed charges three times", source="tool-result")
    brain.encode("Ada prefers tea over coffee", source="told-by-user")
    top = brain.recall("how often are declined card payments attempted again?", limit=1)[0]
    assert top.content.startswith("The payment service"), top.content
assert "torch" not in sys.modules and not any(cache.iterdir()), "something was exported or cached"
print(f"base: {embedder!r} without torch, cosine to sentence-transformers >= {cosines.min():.6f}", file=sys.stderr)
