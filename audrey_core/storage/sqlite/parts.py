"""What the SQLite store's parts (search_log, indexed_search, reads) share, declared once: each part subclasses
:class:`SQLiteParts`, and :class:`~.store.SQLiteStorage` supplies it."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from ...index_settings import IndexConfig
from ...rules.keywords import TermCounts
from ..base import KeywordHit, VectorFilter
from ..sql.reads import SQLReads


class SQLiteParts(SQLReads):
    keyword_index: Any  # audrey_core.index.KeywordIndex, or None: FTS5 ranks (typed loosely: index/ loads lazily)
    vector_index: Any  # audrey_core.index.VectorIndex, or None: sqlite-vec scans
    store_id: str  # the database's identity, recorded with its indexes
    index_config: IndexConfig  # the indexes' sizes and the cost model of graph against scan
    _term_counts: TermCounts  # for FTS5 ranking without the keyword index
    _index_failed_at: dict[str, float]  # kind ("keyword", "vector") -> when its index last failed (monotonic)

    @abstractmethod
    def _side_read(self) -> AbstractContextManager[Any]:
        """The side connection (committed data only), or the main one for a store in memory."""

    @abstractmethod
    def held_by_this_thread(self) -> bool:
        """Whether the calling thread is inside a read or write of this store."""

    @abstractmethod
    def search_log_since(self, seq: int) -> tuple[int, list[int]] | None:
        """The keyword log's last change and the text rows changed after ``seq`` (search_log.py)."""

    @abstractmethod
    def _fts_keyword_search(
        self, terms: Sequence[str], k: int, where: VectorFilter, rows: Sequence[int] | None = None
    ) -> list[KeywordHit]:
        """Keyword search through FTS5, among ``rows`` if given (reads.py)."""
