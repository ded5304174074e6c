"""Disjoint sets: which items a set of pairwise links joins into groups (consolidation's clusters of episodes,
recall's answers to one question)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

K = TypeVar("K", str, int)


class UnionFind(Generic[K]):
    """Disjoint sets over keys (path halving, union by size)."""

    def __init__(self, keys: Sequence[K]) -> None:
        self.parent = {k: k for k in keys}
        self.size = dict.fromkeys(keys, 1)

    def find(self, key: K) -> K:
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def union(self, a: K, b: K) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            if self.size[ra] < self.size[rb]:
                ra, rb = rb, ra
            self.parent[rb] = ra
            self.size[ra] += self.size[rb]

    def groups(self) -> list[list[K]]:
        """Every set, members sorted, sets ordered by their first member."""
        found: dict[K, list[K]] = {}
        for key in self.parent:
            found.setdefault(self.find(key), []).append(key)
        return sorted((sorted(g) for g in found.values()), key=lambda g: g[0])
