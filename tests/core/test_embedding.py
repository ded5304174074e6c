"""Embedders: output checks, the query cache, OpenAI against a loopback server, and the real local model."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from audrey_core import Audrey, ConfigurationError, EmbeddingError, OpenAIEmbedder, SentenceTransformerEmbedder
from audrey_core.providers.embedding import QueryCache, embed_texts, to_matrix
from audrey_core.testing import DeterministicEmbedder

from ..fake_openai import FakeOpenAIServer, fake_vector, requires_openai


def test_to_matrix_accepts_lists_and_arrays():
    assert to_matrix([[1, 0], [0, 1]], 2, 2, "m").dtype == np.float32
    assert to_matrix(np.eye(2), 2, 2, "m").shape == (2, 2)


@pytest.mark.parametrize(
    "raw,message",
    [
        ([[1, 0]], "shape"),
        ([[1, 0, 0], [0, 1, 0]], "3-dimensional"),
        ([[1, np.inf], [0, 1]], "NaN or infinite"),
        ([[0, 0], [0, 1]], "all-zero"),
        ([["a", "b"], [0, 1]], "not a list of vectors"),
        ("nope", "not a list of vectors"),
    ],
)
def test_to_matrix_rejects_bad_output(raw, message):
    with pytest.raises(EmbeddingError, match=message):
        to_matrix(raw, 2, 2, "m")


def test_deterministic_embedder_is_stable_and_meaningful():
    e = DeterministicEmbedder()
    a, b, c = e.embed(["Stripe rate limit", "stripe RATE limit!", "green tea preferences"])
    assert np.allclose(a, b) and np.isclose(np.linalg.norm(a), 1.0)
    assert float(a @ c) < 0.5
    assert DeterministicEmbedder(64).model_name == "deterministic-hash-64"


def test_query_cache_is_lru():
    embedder = DeterministicEmbedder()
    cache = QueryCache(embedder, size=2)
    cache.vector("a")
    cache.vector("b")
    cache.vector("a")  # a is now most recent
    cache.vector("c")  # evicts b
    assert (cache.hits, cache.misses) == (1, 3)
    calls = embedder.calls
    cache.vector("a")
    cache.vector("b")
    assert embedder.calls == calls + 1


@requires_openai
def test_openai_embedder_batches_2048_per_request_and_keeps_order():
    with FakeOpenAIServer(dimensions=8) as server:
        embedder = OpenAIEmbedder("custom-model", base_url=server.base_url, api_key="k", dimensions=8)
        texts = [f"text {i}" for i in range(5000)]
        vectors = embed_texts(embedder, texts)
    assert [len(r["input"]) for r in server.requests] == [2048, 2048, 904]
    assert all(r["dimensions"] == 8 and r["model"] == "custom-model" for r in server.requests)
    assert np.allclose(vectors[4999], fake_vector("text 4999", 8), atol=1e-6)
    assert np.allclose(vectors[0], fake_vector("text 0", 8), atol=1e-6)


@requires_openai
def test_openai_embedder_retries_rate_limits_and_timeouts():
    with FakeOpenAIServer() as server:
        server.failures = [(429, "Rate limit reached"), (503, "overloaded"), (429, "Rate limit reached")]
        embedder = OpenAIEmbedder("m", base_url=server.base_url, api_key="k", dimensions=8, retry_base_delay=0.001)
        assert len(embedder.embed(["hello"])) == 1
    assert len(server.requests) == 4


@requires_openai
def test_openai_embedder_gives_up_with_the_providers_message():
    with FakeOpenAIServer() as server:
        server.failures = [(400, "input is too long for this model")]
        embedder = OpenAIEmbedder("m", base_url=server.base_url, api_key="k", dimensions=8)
        with pytest.raises(EmbeddingError, match="input is too long"):
            embedder.embed(["x"])
        server.failures = [(429, "Rate limit reached")] * 3
        patient = OpenAIEmbedder(
            "m", base_url=server.base_url, api_key="k", dimensions=8, max_attempts=3, retry_base_delay=0.001
        )
        with pytest.raises(EmbeddingError, match="Rate limit"):
            patient.embed(["x"])


@requires_openai
def test_openai_embedder_knows_or_probes_its_dimensions(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        OpenAIEmbedder()
    assert OpenAIEmbedder(api_key="k").dimensions == 1536
    assert OpenAIEmbedder("text-embedding-3-large", api_key="k").dimensions == 3072
    with FakeOpenAIServer(dimensions=12) as server:
        probed = OpenAIEmbedder("local-model", base_url=server.base_url)
        assert probed.dimensions == 12 and len(server.requests) == 1


@requires_openai
def test_audrey_runs_on_an_openai_compatible_server(tmp_path):
    with FakeOpenAIServer(dimensions=16) as server:
        embedder = OpenAIEmbedder("server-model", base_url=server.base_url, api_key="k", dimensions=16)
        with Audrey(tmp_path / "a.db", embedder=embedder) as brain:
            ids = brain.encode_batch(["first fact", "second fact", "third fact"])
            assert len(server.requests) == 1
            assert brain.recall("second fact", limit=1)[0].id == ids[1]
            assert brain.introspect().embedding_model == "server-model"


@pytest.mark.slow
def test_local_model_embeds_normalized_384_vectors_that_mean_something():
    embedder = SentenceTransformerEmbedder()
    assert embedder.dimensions == 384 and embedder.model_name == "all-MiniLM-L6-v2"
    vectors = embedder.embed(
        [
            "Stripe returned HTTP 429: too many requests",
            "the payment API rate-limited us",
            "my grandmother grows tomatoes",
        ]
    )
    assert vectors.shape == (3, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2]) + 0.2
    assert SentenceTransformerEmbedder().model is embedder.model  # loaded once per process


def test_a_model_neither_installed_nor_reachable_fails_at_once_naming_the_installed_one():
    pytest.importorskip("sentence_transformers")
    embedder = SentenceTransformerEmbedder("no-such-model-anywhere-7f3a")
    with pytest.raises(EmbeddingError, match=r"not installed and cannot be fetched.*all-MiniLM-L6-v2"):
        embedder.embed(["hello"])


@pytest.mark.slow
def test_default_audrey_uses_the_packaged_local_model(tmp_path):
    with Audrey(tmp_path / "local.db") as brain:
        brain.encode_batch(
            ["The user is allergic to peanuts", "Deploys happen on Thursdays", "The staging database is Postgres 16"]
        )
        assert brain.recall("what food should I avoid serving the user?", limit=1)[0].content.startswith("The user")
        assert brain.introspect().embedding_model == "all-MiniLM-L6-v2"


@pytest.mark.slow
def test_loading_the_packaged_model_leaves_the_environment_alone():
    """The library once set HF_HUB_OFFLINE=1 for the whole process (every later hub download in the user's program
    then failed); the packaged copy loads from its folder without it."""
    script = (
        "import os; from audrey_core.providers.local import SentenceTransformerEmbedder as S; "
        "print(S().embed(['hello']).shape, os.environ.get('HF_HUB_OFFLINE'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["(1,", "384)", "None"]
