"""After a bulk load: ``wait_for_idle()`` returns once the indexes hold every new row (caught up, rebuilt if need be,
every waiting vector in the graph), introspection counts the rows still waiting, and while a bulk slice holds the
graph a search scans the rows exactly instead of waiting for it."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from audrey_core.admin.cli_memory import index_line
from audrey_core.index_settings import INSERT_SLICE
from audrey_core.storage import VectorFilter

from .index_helpers import open_brain, use_index

pytest.importorskip("usearch")


def vector_status(brain) -> dict:
    return next(index for index in brain.introspect().indexes if index["kind"] == "vector")


def test_wait_for_idle_puts_even_a_few_waiting_rows_into_the_graph(tmp_path):
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        brain.encode_batch([f"kiln glaze note {i}" for i in range(40)])
        brain.wait_for_idle()
        index = brain._storage.vector_index
        assert vector_status(brain)["waiting"] == 0 and len(index.graph) == 40
        other.encode_batch([f"oven note {i}" for i in range(30)])  # fewer than PENDING_MAX: no insert begins
        index.ensure_fresh()
        status = vector_status(brain)
        assert status["waiting"] == 30 and status["lag"] == 0 and status["documents"] == 70
        assert "30 rows waiting to join the graph" in index_line(status)  # as `audrey status` says it
        assert brain.wait_for_idle(timeout=30)
        assert vector_status(brain)["waiting"] == 0 and len(index.graph) == 70


def test_wait_for_idle_waits_for_a_rebuild_in_the_background_and_keeps_its_timeout(tmp_path, monkeypatch):
    import audrey_core.index.vector_graph as vector_graph
    import audrey_core.index.vector_inserts as vector_inserts

    real_insert = vector_graph.insert

    def slow_insert(graph, rowids, vectors):  # every insert, the build's included, takes a while
        time.sleep(0.5)
        real_insert(graph, rowids, vectors)

    use_index(monkeypatch, build_inline_upto=100)  # a "large" store: rebuilt on a background thread
    monkeypatch.setattr(vector_graph, "insert", slow_insert)
    monkeypatch.setattr(vector_inserts, "insert", slow_insert)
    with open_brain(tmp_path / "a.db") as brain:
        vectors = np.random.default_rng(3).standard_normal((600, brain.embedder.dimensions)).astype(np.float32)
        brain.encode_batch([f"imported line {i}" for i in range(600)], vectors=vectors)
        started = time.monotonic()
        assert brain.wait_for_idle(timeout=0.2) is False
        assert time.monotonic() - started < 5
        assert brain.wait_for_idle(timeout=60)
        status = vector_status(brain)
        assert status == status | {"waiting": 0, "lag": 0, "documents": 600, "building": False}
        found = brain._storage.knn(vectors[123], 1, VectorFilter(agent=brain.agent))
        assert brain.get(found[0].memory_id).content == "imported line 123"


def test_a_search_during_a_bulk_slice_scans_exactly_instead_of_waiting(tmp_path, monkeypatch):

    use_index(monkeypatch, exact_below=0)  # always through the graph, unless a bulk slice holds it
    with open_brain(tmp_path / "a.db") as brain:
        vectors = np.random.default_rng(5).standard_normal((300, brain.embedder.dimensions)).astype(np.float32)
        brain.encode_batch([f"line {i}" for i in range(300)], vectors=vectors)
        brain.wait_for_idle()
        index = brain._storage.vector_index
        codes = index.codes_for(brain.agent, None, lambda scope: True)
        expected = index.search(vectors[7], 5, codes)
        answers = []
        with index.graph_lock:  # a bulk slice holds the graph
            index.inserts.bulk_under_way = True
            try:
                searcher = threading.Thread(target=lambda: answers.append(index.search(vectors[7], 5, codes)))
                searcher.start()
                searcher.join(10)
                assert not searcher.is_alive(), "the search waited for the graph"
            finally:
                index.inserts.bulk_under_way = False
        keys, distances = answers[0]
        assert keys[0] == expected[0][0] and distances[0] == pytest.approx(0.0, abs=1e-5)
        assert set(keys.tolist()) == set(expected[0].tolist())  # the exact answer: the graph's, re-scored


def test_a_backlog_goes_into_the_graph_in_bulk_slices_and_answers_the_same(tmp_path, monkeypatch):
    import audrey_core.index.vector_inserts as vector_inserts

    use_index(monkeypatch, pending_busy=64, exact_below=0)  # a "backlog" of a few hundred rows
    slices = []
    real_insert = vector_inserts.insert
    monkeypatch.setattr(vector_inserts, "insert", lambda g, k, v: (slices.append(len(k)), real_insert(g, k, v)))
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        brain.encode_batch([f"kiln glaze note {i}" for i in range(40)])
        brain.wait_for_idle()
        vectors = np.random.default_rng(9).standard_normal((900, brain.embedder.dimensions)).astype(np.float32)
        other.encode_batch([f"imported line {i}" for i in range(900)], vectors=vectors)
        slices.clear()
        assert brain.wait_for_idle(timeout=60)
        index = brain._storage.vector_index
        assert max(slices) > INSERT_SLICE  # not 128 at a time
        assert sum(slices) == 900 and len(index.graph) == 940 and len(index.waiting) == 0
        found = brain._storage.knn(vectors[456], 1, VectorFilter(agent=brain.agent))
        assert brain.get(found[0].memory_id).content == "imported line 456"
