"""Storage backends. Only this package writes SQL; stages use the :class:`Storage` interface."""

from .base import KeywordHit, Storage, StoreCounts, VectorFilter, VectorHit
from .sqlite import SQLiteStorage

__all__ = ["KeywordHit", "SQLiteStorage", "Storage", "StoreCounts", "VectorFilter", "VectorHit"]
