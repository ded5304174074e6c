"""Synthetic stores for the benchmarks that measure storage rather than a model: seeded random unit vectors and
Zipf-distributed words, so full-text postings look like real text."""

from __future__ import annotations

import hashlib

import numpy as np

from audrey_core import Audrey
from audrey_core.config import SOURCES

DIMENSIONS = 384


class RandomEmbedder:
    """Seeded random unit vectors: free to compute, so population measures storage, not a model."""

    model_name = "random-384"
    dimensions = DIMENSIONS

    def embed(self, texts):
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out[i] = np.random.default_rng(seed).standard_normal(DIMENSIONS)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


VOCABULARY = [f"w{i}" for i in range(5000)]  # Zipf-distributed words, so full-text postings look like real text


def sentence(rng: np.random.Generator, words: int) -> str:
    ranks = np.minimum(rng.zipf(1.3, size=words), len(VOCABULARY)) - 1
    return " ".join(VOCABULARY[r] for r in ranks)


def populate(brain: Audrey, count: int) -> None:
    rng = np.random.default_rng(count)
    chunk = 2000
    for first in range(0, count, chunk):
        brain.encode_batch(
            [
                {"content": sentence(rng, 12), "source": SOURCES[i % 5], "salience": (i % 10) / 10}
                for i in range(first, min(count, first + chunk))
            ]
        )
