"""A corpus of real English sentences with their all-MiniLM-L6-v2 embeddings, for measuring vector recall on real
sentence embeddings (random vectors have no neighbourhood structure, so they say little about an HNSW graph).

    python -m benchmarks.corpus [--size 99000]

The sentences are LoCoMo's turns followed by docstring sentences of the Python packages installed beside Audrey
(read with ``ast``, never imported), deduplicated, in a fixed order. Embedding 100k takes about six minutes on two
cores, so the vectors are cached outside the repository (``$AUDREY_BENCH_CACHE`` or ``~/.cache/audrey-bench``),
texts and vectors together.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import os
import re
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np

from .locomo import load

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_PROSE = re.compile(r"^[A-Z][a-z]+( [A-Za-z0-9,;:'\"()/-]+){5,50}[.!?]$")


def cache_folder() -> Path:
    return Path(os.environ.get("AUDREY_BENCH_CACHE", Path.home() / ".cache" / "audrey-bench"))


def _prose(text: str, found: dict[str, None]) -> None:
    for paragraph in text.split("\n\n"):
        for sentence in _SENTENCE_END.split(" ".join(paragraph.split())):
            if _PROSE.match(sentence):
                found[sentence] = None


def docstring_sentences() -> list[str]:
    """Prose sentences (six to fifty words, no code) from the docstrings of the standard library and the installed
    packages, in path order."""
    found: dict[str, None] = {}
    paths = sysconfig.get_paths()
    for root in (Path(paths["stdlib"]), Path(paths["purelib"])):
        for path in sorted(root.rglob("*.py")):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError, OSError, RecursionError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    _prose(ast.get_docstring(node) or "", found)
    return list(found)


def sentences(size: int) -> list[str]:
    turns = [turn.text for conversation in load(LOCOMO) for turn in conversation.turns] if LOCOMO.exists() else []
    corpus = list(dict.fromkeys(turns + docstring_sentences()))
    if len(corpus) < size:
        raise SystemExit(f"only {len(corpus)} distinct sentences found; ask for at most that many")
    return corpus[:size]


@functools.cache
def embedded_corpus(size: int) -> tuple[list[str], np.ndarray]:
    """``size`` sentences and their unit float32 embeddings, from the cache when it holds them (collecting the
    sentences alone takes a minute or two, so they are cached with their vectors)."""
    folder = cache_folder()
    texts_path, vectors_path = folder / f"minilm-{size}.json", folder / f"minilm-{size}.npy"
    if texts_path.exists() and vectors_path.exists():
        return json.loads(texts_path.read_text()), np.load(vectors_path)
    texts = sentences(size)
    from audrey_core import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder(batch_size=128)
    start = time.perf_counter()
    parts = []
    for first in range(0, size, 5000):
        parts.append(np.asarray(embedder.embed(texts[first : first + 5000]), dtype=np.float32))
        print(f"embedded {first + len(parts[-1])} of {size} ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    vectors = np.vstack(parts)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    folder.mkdir(parents=True, exist_ok=True)
    np.save(folder / "vectors.tmp.npy", vectors)
    os.replace(folder / "vectors.tmp.npy", vectors_path)
    texts_path.write_text(json.dumps(texts))  # last: its presence says both are whole
    return texts, vectors


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=99_000)
    args = parser.parse_args(argv)
    texts, vectors = embedded_corpus(args.size)
    print(json.dumps({"benchmark": "corpus", "sentences": len(texts), "shape": list(vectors.shape)}))


if __name__ == "__main__":
    main()
