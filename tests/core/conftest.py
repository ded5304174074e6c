"""Fixtures of the core tests: ``graph_always`` sends every KNN through the vector index's graph."""

from __future__ import annotations

import pytest


@pytest.fixture
def graph_always(monkeypatch):
    """Send every KNN through the graph (the cost model would scan stores this small), counting its searches."""
    import audrey_core.index.vector as vector
    import audrey_core.index.vector_inserts as vector_inserts
    import audrey_core.storage.sqlite.indexed_search as indexed

    monkeypatch.setattr(indexed, "SCAN_US_PER_ROW", 1e9)
    monkeypatch.setattr(indexed, "with_margin", lambda k: 1)  # so that filters make it widen
    monkeypatch.setattr(indexed, "GRAPH_MAX_SHARE", 1.0)
    monkeypatch.setattr(vector_inserts, "PENDING_MAX", 7)  # caught-up rows both wait beside the graph and join it
    searches = []
    real = vector.VectorIndex.search

    def counted(self, *args, **kwargs):
        searches.append(args[1])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(vector.VectorIndex, "search", counted)
    return searches
