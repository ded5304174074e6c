"""An embedder whose similarities a test sets exactly."""

from __future__ import annotations

import math

import numpy as np

from audrey_core.rules.calibration import REFERENCE_BASELINE


class PlacedEmbedder:
    """Texts get vectors at a chosen cosine similarity to a shared anchor direction.

    ``place(text, similarity)`` puts ``text`` at ``similarity`` to the anchor (axis 0), each text on its own
    orthogonal axis otherwise, so two placed texts have similarity s1 * s2 to each other. Unplaced texts land on
    fresh axes (similarity 0 to everything).
    """

    model_name = "placed"
    similarity_baseline = REFERENCE_BASELINE  # the cosines a test places are the thresholds' own (no calibration)

    def __init__(self, dimensions: int = 64) -> None:
        self.dimensions = dimensions
        self.vectors: dict[str, np.ndarray] = {}
        self._next_axis = 1

    def _axis(self) -> int:
        axis = self._next_axis
        self._next_axis += 1
        if axis >= self.dimensions:
            raise ValueError("PlacedEmbedder ran out of axes")
        return axis

    def place(self, text: str, similarity: float) -> str:
        vector = np.zeros(self.dimensions, dtype=np.float32)
        vector[0] = similarity
        vector[self._axis()] = math.sqrt(max(0.0, 1.0 - similarity**2))
        self.vectors[text] = vector
        return text

    def put(self, text: str, vector) -> str:
        """Give ``text`` exactly this vector (normalized)."""
        vector = np.asarray(vector, dtype=np.float32)
        self.vectors[text] = vector / np.linalg.norm(vector)
        return text

    def axis(self, index: int) -> np.ndarray:
        """The unit vector of one reserved axis (tests reserve axes above the ones ``place`` uses)."""
        vector = np.zeros(self.dimensions, dtype=np.float32)
        vector[index] = 1.0
        return vector

    def anchor(self, text: str) -> str:
        return self.place(text, 1.0)

    def embed(self, texts):
        for text in texts:
            if text not in self.vectors:
                vector = np.zeros(self.dimensions, dtype=np.float32)
                vector[self._axis()] = 1.0
                self.vectors[text] = vector
        return np.vstack([self.vectors[t] for t in texts])


class RandomVectorEmbedder:
    """Each text gets its own seeded Gaussian vector: similarities are continuous, so no ties at the top-k edge."""

    model_name = "random-vectors"

    def __init__(self, dimensions: int = 384) -> None:
        self.dimensions = dimensions

    def embed(self, texts):
        import hashlib

        return np.vstack(
            [
                np.random.default_rng(int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little"))
                .standard_normal(self.dimensions)
                .astype(np.float32)
                for t in texts
            ]
        )


class TableEmbedder:
    """Maps known texts to fixed vectors, so a test (or a test's subprocess) sets similarities exactly."""

    similarity_baseline = REFERENCE_BASELINE  # the cosines a test sets are the thresholds' own (no calibration)

    def __init__(self, table: dict[str, list[float]], model_name: str = "table") -> None:
        self.table = table
        self.model_name = model_name
        self.dimensions = len(next(iter(table.values())))

    def embed(self, texts):
        return np.array([self.table[t] for t in texts], dtype=np.float32)
