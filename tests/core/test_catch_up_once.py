"""Validation catches the derived indexes up once per batch: searches inside ``searches_caught_up_once`` read the
change log on their thread's first search only; other threads, and the same thread afterwards, catch up as always."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from audrey_core.storage import VectorFilter

from .index_helpers import open_brain

pytest.importorskip("usearch")


@pytest.fixture
def graph_always(monkeypatch):
    """Send KNN through the vector index even on a store this small (the cost model would scan it)."""
    import audrey_core.index.vector as vector
    import audrey_core.storage.sqlite.indexed_search as indexed

    monkeypatch.setattr(vector, "EXACT_BELOW", 0)
    monkeypatch.setattr(indexed, "SCAN_US_PER_ROW", 1e9)
    monkeypatch.setattr(indexed, "GRAPH_MAX_SHARE", 1.0)


def nearest_ids(brain, text: str, k: int = 5) -> list[str]:
    vector = np.asarray(brain.embedder.embed([text])[0])
    return [h.memory_id for h in brain.storage.knn(vector, k, VectorFilter(agent=brain.agent))]


def keyword_ids(brain, text: str) -> list[str]:
    return [r.id for r in brain.recall(text, limit=5, mode="keyword")]


def test_searches_caught_up_once_read_the_log_once_on_this_thread_only(tmp_path, graph_always):
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        brain.encode_batch([f"kiln glaze note {i}" for i in range(20)])
        with brain.storage.searches_caught_up_once():
            assert len(nearest_ids(brain, "kiln glaze note 3")) == 5  # both indexes caught up here
            assert keyword_ids(brain, "oven smoke") == []
            late = other.encode("oven smoke note", id="late")
            assert late not in nearest_ids(brain, "oven smoke note")  # the rest of the batch does not look again
            assert late not in keyword_ids(brain, "oven smoke")
            seen: list[str] = []
            reader = threading.Thread(target=lambda: seen.extend(nearest_ids(brain, "oven smoke note")))
            reader.start()
            reader.join()
            assert late in seen  # another thread catches up as always
        assert late in nearest_ids(brain, "oven smoke note")  # and so does this one after the batch
        assert late in keyword_ids(brain, "oven smoke")
