"""Derived search indexes beside the database: caches of what the database holds, caught up from its change log and
rebuilt from it whenever they are missing, damaged or stale. The database stays the only truth."""

from .keyword import KeywordIndex, keyword_index_available
from .vector import VectorIndex, vector_index_available

__all__ = ["KeywordIndex", "VectorIndex", "keyword_index_available", "vector_index_available"]
