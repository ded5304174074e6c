"""Storage backends. Only this package writes SQL; stages use the :class:`Storage` interface."""

from .base import Storage, StoreCounts, VectorFilter, VectorHit
from .sqlite import SQLiteStorage

__all__ = ["SQLiteStorage", "Storage", "StoreCounts", "VectorFilter", "VectorHit"]
