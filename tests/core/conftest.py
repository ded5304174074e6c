"""Fixtures of the core tests: ``graph_always`` sends every KNN through the vector index's graph."""

from __future__ import annotations

import pytest


@pytest.fixture
def graph_always(monkeypatch):
    """Send every KNN through the graph (the cost model would scan stores this small), counting its searches; stores
    opened with ``index_helpers.open_brain`` use these settings."""
    import audrey_core.index.vector as vector
    import audrey_core.storage.sqlite.indexed_search as indexed

    from .index_helpers import use_index

    # pending_max 7: caught-up rows both wait beside the graph and join it
    use_index(monkeypatch, scan_us_per_row=1e9, graph_max_share=1.0, pending_max=7)
    monkeypatch.setattr(indexed, "with_margin", lambda k: 1)  # so that filters make it widen
    searches = []
    real = vector.VectorIndex.search

    def counted(self, *args, **kwargs):
        searches.append(args[1])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(vector.VectorIndex, "search", counted)
    return searches
