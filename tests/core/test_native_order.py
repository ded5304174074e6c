"""onnxruntime is imported before usearch (usearch >= 2.26.2 with onnxruntime >= 1.23 crash the other way round),
and the ONNX embedder is not chosen where a caller imported usearch first. Each case in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("usearch")


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_opening_the_index_package_imports_onnxruntime_first_and_both_work():
    done = run(
        "import sys, numpy as np\n"
        "import audrey_core.index\n"
        "assert list(sys.modules).index('onnxruntime') < list(sys.modules).index('usearch.compiled')\n"
        "from usearch.index import Index\n"
        "graph = Index(ndim=8, metric='cos', dtype='i8')\n"
        "graph.add(np.arange(50, dtype=np.uint64), np.random.rand(50, 8).astype(np.float32))\n"
        "print(len(graph.search(np.ones(8, dtype=np.float32), 3).keys))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"


def crashing_pair_installed() -> bool:
    from audrey_core import native_order

    return (
        native_order._version("usearch") >= native_order.CRASHING_USEARCH
        and native_order._version("onnxruntime") >= native_order.CRASHING_ONNXRUNTIME
    )


@pytest.mark.slow
def test_usearch_imported_first_the_default_embedder_still_embeds_without_crashing():
    """Where the installed pair would crash, sentence-transformers embeds instead (with a warning); elsewhere the
    ONNX embedder is chosen. Either way the process embeds and exits cleanly."""
    done = run(
        "import usearch.index\n"
        "from audrey_core.providers.local import local_embedder\n"
        "embedder = local_embedder()\n"
        "print(type(embedder).__name__, len(embedder.embed(['hello'])[0]))\n"
    )
    assert done.returncode == 0, done.stderr
    chosen = "SentenceTransformerEmbedder" if crashing_pair_installed() else "OnnxEmbedder"
    assert done.stdout.split() == [chosen, "384"]
    if crashing_pair_installed():
        assert "usearch was imported before onnxruntime" in done.stderr


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("2.26.6", (2, 26, 6)), ("1.23.0rc1", (1, 23, 0)), ("2.26.2.post1", (2, 26, 2)), ("1.dev0", (1, 0))],
)
def test_versions_are_compared_by_their_leading_numbers(monkeypatch, text, parsed):
    from audrey_core import native_order

    monkeypatch.setattr(native_order, "version", lambda package: text)
    assert native_order._version("usearch") == parsed
