"""The float32 copy of every vector the vector index holds, with its norm, by row id.

Why: the graph holds int8 codes of the vectors (a third of the cost to insert and less to walk than float32, and as
many of the true neighbours found once its candidates are re-scored), so the exact cosine distances, and the vectors
the index hands back, come from here. A snapshot's rows are mapped copy-on-write (opening costs nothing whatever the
size; a row id reused after the snapshot is overwritten in this process only); rows above it live in memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np


def cosine_distances(vectors: np.ndarray, norms: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """1 - cosine similarity of each row with each of ``queries`` in one matrix product: row ``i`` holds query ``i``'s
    (1 for a zero row: no direction, so unrelated)."""
    return _from_dots(queries @ vectors.T, np.outer(np.linalg.norm(queries, axis=1), norms))


def _from_dots(dots: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Cosine distances from dot products and the products of the norms (a zero norm: distance 1)."""
    distances: np.ndarray = (1.0 - dots / np.where(scale > 0, scale, 1.0)).astype(np.float32)
    return distances


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

    def view(self) -> RowVectors:
        """The rows held now, for a snapshot written while more are put: rows above them go to the live object's
        arrays (grown by copying), so this one keeps seeing what it saw; a row id rewritten in place meanwhile is
        replayed from the log by whoever loads the snapshot."""
        held = RowVectors(self.dimensions, self.base, self.base_norms)
        held.tail, held.tail_norms, held.length = self.tail, self.tail_norms, self.length
        return held

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
        low = keys < len(self.base)
        if low.all():  # the usual case, gathered without the masked copies (4x faster for a validation batch)
            # as a plain array: a mapped snapshot's type would follow the copy, and each row read of it is slow
            return np.take(np.asarray(self.base), keys, axis=0), np.take(self.base_norms, keys)
        if not low.any():
            high = keys - len(self.base)
            return np.take(self.tail, high, axis=0), np.take(self.tail_norms, high)
        vectors = np.empty((len(keys), self.dimensions), dtype=np.float32)
        norms = np.empty(len(keys), dtype=np.float32)
        vectors[low], norms[low] = self.base[keys[low]], self.base_norms[keys[low]]
        high = keys[~low] - len(self.base)
        vectors[~low], norms[~low] = self.tail[high], self.tail_norms[high]
        return vectors, norms

    def distances(self, keys: Sequence[np.ndarray], queries: np.ndarray) -> list[np.ndarray]:
        """The distance of each of ``keys[i]`` (row ids held) to ``queries[i]``, for every query in one gather."""
        lengths = [len(k) for k in keys]
        if not sum(lengths):
            return [np.zeros(0, dtype=np.float32) for _ in keys]
        vectors, norms = self.get(np.concatenate(keys))
        repeated = np.repeat(np.asarray(queries, dtype=np.float32), lengths, axis=0)
        scale = norms * np.repeat(np.linalg.norm(queries, axis=1), lengths)
        distances = _from_dots(np.einsum("ij,ij->i", vectors, repeated), scale)
        return np.split(distances, np.cumsum(lengths)[:-1])

    def scan(self, queries: np.ndarray) -> np.ndarray:
        """The distance of every row id below ``length`` to each of ``queries`` (one row of distances a query; ids
        the index does not hold included: the caller masks)."""
        above = self.length - len(self.base)
        return np.concatenate(
            [
                cosine_distances(self.base, self.base_norms, queries),
                cosine_distances(self.tail[:above], self.tail_norms[:above], queries),
            ],
            axis=1,
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
    """Rows caught up but not in the graph yet: a graph insert costs ~0.25 ms of CPU a row, so a catch-up only reads
    the rows and searches them exactly (a small matrix) until a background thread inserts them. Each row gets a
    serial number, so the inserter can tell the rows it inserted from a row id removed and added again meanwhile.
    Rows are inserted oldest first, so a slice that lands leaves from the front: ``_start`` moves past it (taking a
    slice out by copying the rest made a 100k-row backlog cost O(n) per slice, O(n^2) in all)."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = int(dimensions)
        self._next = 0
        self.clear()

    def clear(self) -> None:
        self._keys = np.zeros(0, dtype=np.int64)
        self._serials = np.zeros(0, dtype=np.int64)
        self._vectors = np.zeros((0, self.dimensions), dtype=np.float32)
        self._norms = np.zeros(0, dtype=np.float32)
        self._start = 0  # rows before it have left
        self._end = 0

    def __len__(self) -> int:
        return self._end - self._start

    @property
    def keys(self) -> np.ndarray:
        return self._keys[self._start : self._end]

    @property
    def vectors(self) -> np.ndarray:
        return self._vectors[self._start : self._end]

    @property
    def serials(self) -> np.ndarray:
        return self._serials[self._start : self._end]

    def add(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        keys = np.asarray(keys, dtype=np.int64)
        vectors = np.asarray(vectors, dtype=np.float32)
        if self._end + len(keys) > len(self._keys):
            self._grow(len(self) + len(keys))
        end = self._end + len(keys)
        self._keys[self._end : end] = keys
        self._serials[self._end : end] = np.arange(self._next, self._next + len(keys))
        self._vectors[self._end : end] = vectors
        self._norms[self._end : end] = np.linalg.norm(vectors, axis=1)
        self._next += len(keys)
        self._end = end

    def _grow(self, needed: int) -> None:
        """Room for ``needed`` rows from index 0: the waiting rows move to the front, the arrays grow by doubling
        when they must (a long burst appends in amortised constant time)."""
        count, size = len(self), len(self._keys)
        if needed > size // 2:
            size = max(needed, 2 * size, 1024)
        for name in ("_keys", "_serials", "_norms", "_vectors"):
            array = getattr(self, name)
            moved = np.empty((size, *array.shape[1:]), dtype=array.dtype)
            moved[:count] = array[self._start : self._end]
            setattr(self, name, moved)
        self._start, self._end = 0, count

    def _keep(self, kept: np.ndarray) -> None:
        leading = int(np.argmax(kept)) if kept.any() else len(kept)  # rows leaving from the front
        if kept[leading:].all():
            self._start += leading
            return
        count = int(kept.sum())
        for name in ("_keys", "_serials", "_norms", "_vectors"):
            array = getattr(self, name)
            array[self._start : self._start + count] = array[self._start : self._end][kept]
        self._end = self._start + count

    def drop(self, keys: np.ndarray) -> None:
        self._keep(~np.isin(self.keys, np.asarray(keys, dtype=np.int64)))

    def first(self, count: int, skip: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of the keys, vectors and serials of the first ``count`` rows but those of serials ``skip`` (being
        inserted already); they stay waiting."""
        rows = np.arange(self._start, self._end)
        if skip is not None and len(skip):
            rows = rows[~np.isin(self._serials[self._start : self._end], skip)]
        rows = rows[: max(0, int(count))]
        return self._keys[rows], self._vectors[rows], self._serials[rows]  # fancy indexing copies

    def drop_serials(self, serials: np.ndarray) -> np.ndarray:
        """Remove the rows of ``serials``; whether each was still waiting (False: removed meanwhile)."""
        present = self.serials
        found = np.isin(serials, present)
        self._keep(~np.isin(present, serials))
        return found

    def nearest(self, queries: np.ndarray, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each of ``queries``, the ``count`` nearest waiting rows (in no order) and their distances, in one
        matrix product."""
        matrix = cosine_distances(self.vectors, self._norms[self._start : self._end], queries)
        if matrix.shape[1] <= count:
            return [(self.keys.copy(), row) for row in matrix]
        nearest = np.argpartition(matrix, count - 1, axis=1)[:, :count]
        return [(self.keys[n], row[n]) for n, row in zip(nearest, matrix)]
