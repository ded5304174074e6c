"""The float32 copy of every vector the vector index holds, with its norm, by row id.

Why: the graph holds int8 codes of the vectors (a third of the cost to insert and less to walk than float32, and as
many of the true neighbours found once its candidates are re-scored), so the exact cosine distances, and the vectors
the index hands back, come from here. A snapshot's rows are mapped copy-on-write (opening costs nothing whatever the
size; a row id reused after the snapshot is overwritten in this process only); rows above it live in memory.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def cosine_distances(vectors: np.ndarray, norms: np.ndarray, query: np.ndarray) -> np.ndarray:
    """1 - cosine similarity of each row with ``query`` (1 for a zero row: no direction, so unrelated)."""
    scale = norms * float(np.linalg.norm(query))
    return (1.0 - (vectors @ query) / np.where(scale > 0, scale, 1.0)).astype(np.float32)


class RowVectors:
    def __init__(self, dimensions: int, base: np.ndarray | None = None, base_norms: np.ndarray | None = None) -> None:
        self.dimensions = int(dimensions)
        self.base = base if base is not None else np.zeros((0, self.dimensions), dtype=np.float32)
        self.base_norms = base_norms if base_norms is not None else np.zeros(0, dtype=np.float32)
        self.tail = np.zeros((0, self.dimensions), dtype=np.float32)
        self.tail_norms = np.zeros(0, dtype=np.float32)
        self.length = len(self.base)  # one past the highest row id held

    @classmethod
    def mapped(cls, path: Path, norms: np.ndarray, dimensions: int) -> RowVectors:
        base = np.load(path, mmap_mode="c")
        if base.ndim != 2 or base.shape[1] != dimensions or base.dtype != np.float32 or len(norms) != len(base):
            raise ValueError(f"{path.name} does not hold {dimensions}-d float32 rows matching its norms")
        return cls(dimensions, base, np.array(norms, dtype=np.float32))

    def put(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        keys = np.asarray(keys, dtype=np.int64)
        vectors = np.asarray(vectors, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1).astype(np.float32)
        low = keys < len(self.base)
        if low.any():
            self.base[keys[low]], self.base_norms[keys[low]] = vectors[low], norms[low]
        if low.all():
            return
        offsets = keys[~low] - len(self.base)
        needed = int(offsets.max()) + 1
        if needed > len(self.tail):
            grown = max(needed, 2 * len(self.tail), 1024)
            self.tail = np.concatenate([self.tail, np.zeros((grown - len(self.tail), self.dimensions), np.float32)])
            self.tail_norms = np.concatenate([self.tail_norms, np.zeros(grown - len(self.tail_norms), np.float32)])
        self.tail[offsets], self.tail_norms[offsets] = vectors[~low], norms[~low]
        self.length = max(self.length, len(self.base) + needed)

    def get(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The vectors and norms of ``keys`` (row ids held)."""
        keys = np.asarray(keys, dtype=np.int64)
        vectors = np.empty((len(keys), self.dimensions), dtype=np.float32)
        norms = np.empty(len(keys), dtype=np.float32)
        low = keys < len(self.base)
        vectors[low], norms[low] = self.base[keys[low]], self.base_norms[keys[low]]
        high = keys[~low] - len(self.base)
        vectors[~low], norms[~low] = self.tail[high], self.tail_norms[high]
        return vectors, norms

    def distances(self, keys: np.ndarray, query: np.ndarray) -> np.ndarray:
        return cosine_distances(*self.get(keys), query)

    def scan(self, query: np.ndarray) -> np.ndarray:
        """The distance of every row id below ``length`` (ids the index does not hold included: the caller masks)."""
        above = self.length - len(self.base)
        return np.concatenate(
            [
                cosine_distances(self.base, self.base_norms, query),
                cosine_distances(self.tail[:above], self.tail_norms[:above], query),
            ]
        )

    def save(self, path: Path, length: int) -> np.ndarray:
        """Write rows ``[0, length)`` as an ``.npy`` file (mappable); returns their norms, saved beside it."""
        length = min(int(length), self.length)
        out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(length, self.dimensions))
        low = min(length, len(self.base))
        out[:low] = self.base[:low]
        out[low:] = self.tail[: length - low]
        out.flush()
        del out
        return np.concatenate([self.base_norms[:low], self.tail_norms[: length - low]])


class WaitingRows:
    """Rows caught up but not in the graph yet: a graph insert costs ~0.2 ms a row, so a catch-up only reads the rows
    and searches them exactly (a small matrix) until a background thread inserts them."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = int(dimensions)
        self.clear()

    def clear(self) -> None:
        self.keys = np.zeros(0, dtype=np.int64)
        self.vectors = np.zeros((0, self.dimensions), dtype=np.float32)
        self.norms = np.zeros(0, dtype=np.float32)

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        self.keys = np.concatenate([self.keys, np.asarray(keys, dtype=np.int64)])
        self.vectors = np.vstack([self.vectors, np.asarray(vectors, dtype=np.float32)])
        self.norms = np.concatenate([self.norms, np.linalg.norm(vectors, axis=1).astype(np.float32)])

    def drop(self, keys: np.ndarray) -> None:
        kept = ~np.isin(self.keys, np.asarray(keys, dtype=np.int64))
        self.keys, self.vectors, self.norms = self.keys[kept], self.vectors[kept], self.norms[kept]

    def take(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The first ``count`` rows, removed from the waiting ones."""
        keys, vectors = self.keys[:count], self.vectors[:count]
        self.keys, self.vectors, self.norms = self.keys[count:], self.vectors[count:], self.norms[count:]
        return keys, vectors

    def nearest(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``count`` nearest waiting rows (in no order) and their distances."""
        distances = cosine_distances(self.vectors, self.norms, query)
        if len(distances) <= count:
            return self.keys, distances
        nearest = np.argpartition(distances, count - 1)[:count]
        return self.keys[nearest], distances[nearest]
