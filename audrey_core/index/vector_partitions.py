"""Which partition (agent, memory type, encoded scope) each vector row the index holds belongs to, and how many rows
each partition holds: the caller sizes a graph search to its filter and drops rows of other partitions without
asking the database."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Partition = tuple[str, str, str]  # (agent, memory type, encoded scope)


class PartitionTable:
    """Guarded by its owner's lock (``VectorIndex.lock``), or private to a build under way."""

    def __init__(self, partitions: Sequence[Partition] = (), row_codes: np.ndarray | None = None) -> None:
        self.partitions: list[Partition] = list(partitions)
        self._codes = {p: i for i, p in enumerate(self.partitions)}
        # vector row id -> partition code, -1 when absent
        self.row_codes = np.full(0, -1, dtype=np.int32) if row_codes is None else row_codes.astype(np.int32)
        present = self.row_codes[self.row_codes >= 0]
        self.counts = np.bincount(present, minlength=len(self.partitions)).astype(np.int64)  # rows per code

    def place(self, rowids: np.ndarray, partitions: Sequence[Partition]) -> None:
        """Record the partition of each of ``rowids`` (rows not held before)."""
        codes = np.array([self._code(p) for p in partitions], dtype=np.int32)
        top = int(rowids.max()) + 1
        if top > len(self.row_codes):
            grown = np.full(max(top, 2 * len(self.row_codes)), -1, dtype=np.int32)
            grown[: len(self.row_codes)] = self.row_codes
            self.row_codes = grown
        self.row_codes[rowids] = codes
        np.add.at(self.counts, codes, 1)

    def remove(self, rowids: np.ndarray) -> np.ndarray:
        """Forget ``rowids``; returns those that were held."""
        inside = rowids[rowids < len(self.row_codes)].astype(np.int64)
        codes = self.row_codes[inside]
        present = inside[codes >= 0]
        np.subtract.at(self.counts, codes[codes >= 0], 1)
        self.row_codes[present] = -1
        return present

    def _code(self, partition: Partition) -> int:
        code = self._codes.get(partition)
        if code is None:
            code = self._codes[partition] = len(self.partitions)
            self.partitions.append(partition)
            self.counts = np.append(self.counts, 0)
        return code

    def codes_for(
        self, agent: str | None, memory_types: Sequence[str] | None, scope: Callable[[str], bool]
    ) -> np.ndarray:
        """Partition codes whose agent, type and encoded scope pass; ``scope(encoded) -> bool`` tests the scope."""
        return np.array(
            [
                code
                for code, (a, t, s) in enumerate(self.partitions)
                if (agent is None or a == agent) and (memory_types is None or t in memory_types) and scope(s)
            ],
            dtype=np.int32,
        )

    def rows_in(self, codes: np.ndarray) -> int:
        return int(self.counts[codes].sum()) if len(codes) else 0

    def size(self) -> int:
        return int(self.counts.sum())

    def held(self, keys: np.ndarray) -> np.ndarray:
        """Which of ``keys`` (row ids) are held."""
        inside = (keys >= 0) & (keys < len(self.row_codes))
        mask = np.zeros(len(keys), dtype=bool)
        mask[inside] = self.row_codes[keys[inside]] >= 0
        return mask

    def in_codes(self, keys: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Which of ``keys`` (held row ids) belong to partitions ``codes``: a lookup by code (``np.isin`` costs more
        for the few dozen keys of one search)."""
        allowed = np.zeros(len(self.partitions), dtype=bool)
        allowed[codes] = True
        found = self.row_codes[keys]
        mine: np.ndarray = (found >= 0) & allowed[found]
        return mine

    def memory_types(self, keys: np.ndarray) -> list[str]:
        return [self.partitions[code][1] for code in self.row_codes[keys].tolist()]
