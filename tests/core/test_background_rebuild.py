"""A rebuild of a large store's indexes runs on a background thread: opening returns at once, searches meanwhile go
to the database (exact) and see what is encoded meanwhile, and the indexes answer once built."""

from __future__ import annotations

import shutil
import threading
import time

import pytest

from .index_helpers import open_brain, use_index

pytest.importorskip("usearch")
pytest.importorskip("tantivy")
pytestmark = pytest.mark.sqlite_only

WAIT = 60.0


def ids(results) -> list[str]:
    return [r.id for r in results]


@pytest.fixture
def held_builds(monkeypatch):
    """Any store above 50 rows rebuilds in the background, and each background build waits for the returned event
    first (a slow build, made visible)."""
    import audrey_core.index.keyword as keyword
    import audrey_core.index.vector as vector

    gate = threading.Event()
    use_index(monkeypatch, build_inline_upto=50)
    build_graph, build_generation = vector.build, keyword.KeywordIndex._build

    def hold() -> None:
        if threading.current_thread().name.endswith("-build"):  # not a rebuild in the caller's thread
            gate.wait(WAIT)

    def held_graph(*args, **kwargs):
        hold()
        return build_graph(*args, **kwargs)

    def held_generation(self, *args, **kwargs):
        hold()
        return build_generation(self, *args, **kwargs)

    monkeypatch.setattr(vector, "build", held_graph)
    monkeypatch.setattr(keyword.KeywordIndex, "_build", held_generation)
    yield gate
    gate.set()


def test_a_large_rebuild_runs_in_the_background_while_the_database_answers(tmp_path, held_builds):
    path = tmp_path / "a.db"
    queries = ["kiln glaze note 17", "stoneware firing 4", "oven temperature"]
    with open_brain(path) as brain:
        brain.encode_batch([f"kiln glaze note {i}" for i in range(150)] + [f"stoneware firing {i}" for i in range(150)])
        before = {q: ids(brain.recall(q, limit=5, mode="vector")) for q in queries}
        words = {q: set(ids(brain.recall(q, limit=5, mode="keyword"))) for q in queries}
    shutil.rmtree(tmp_path / "a.db-indexes")

    with open_brain(path) as brain:
        vector, keyword = brain._storage.vector_index, brain._storage.keyword_index
        assert vector.building() and keyword.building()  # opening did not wait for them
        for query in queries:  # the database answers meanwhile: exactly
            assert ids(brain.recall(query, limit=5, mode="vector")) == before[query]
        for query in queries[:2]:  # FTS5 instead of tantivy: ranked alike, ties perhaps in another order
            assert set(ids(brain.recall(query, limit=5, mode="keyword"))) & words[query]
        brain.encode("oven temperature reached cone six", id="meanwhile")
        assert "meanwhile" in ids(brain.recall("oven temperature", limit=3))
        held_builds.set()
        deadline = time.monotonic() + WAIT
        while (vector.building() or keyword.building()) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not vector.building() and not keyword.building()
        for query in queries[:2]:  # now through the indexes: the same answers
            assert ids(brain.recall(query, limit=5, mode="vector")) == before[query]
        assert "meanwhile" in ids(brain.recall("oven temperature", limit=3))
        assert vector.status()["documents"] == 301 and keyword.status()["documents"] == 301
        assert vector.status()["lag"] == 0 and keyword.status()["lag"] == 0


def test_close_during_a_background_rebuild_returns(tmp_path, held_builds):
    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        brain.encode_batch([f"kiln glaze note {i}" for i in range(120)])
    shutil.rmtree(tmp_path / "a.db-indexes")
    brain = open_brain(path)
    assert brain._storage.vector_index.building()
    closer = threading.Thread(target=brain.close)
    closer.start()
    held_builds.set()  # the build goes on, sees the index closed at its next batch, and stops
    closer.join(WAIT)
    assert not closer.is_alive()
    with open_brain(path) as again:  # nothing lost: the next open builds it (in the background too)
        assert again.recall("kiln glaze note 7", limit=1, mode="vector")[0].content == "kiln glaze note 7"


def test_background_validation_waits_for_a_rebuild_rather_than_scan(tmp_path, held_builds):
    """The worker leaves the cores to the build (every search would be a scan meanwhile); close() does not wait."""
    from audrey_core import Audrey, AudreyConfig, IndexConfig
    from audrey_core.testing import DeterministicEmbedder

    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        brain.encode_batch([{"content": f"kiln glaze note {i}", "id": f"k{i}"} for i in range(120)])
    shutil.rmtree(tmp_path / "a.db-indexes")

    large = AudreyConfig(index=IndexConfig(build_inline_upto=50))  # validation on its worker
    brain = Audrey(path, agent="a", embedder=DeterministicEmbedder(), config=large)
    try:
        assert brain._storage.vector_index.building()
        brain.encode("kiln glaze note 7")  # the same claim again: validation counts it as evidence for k7
        assert not brain.wait_for_idle(1.0)  # waiting for the build
        assert brain.get("k7").evidence_count == 1
        held_builds.set()
        assert brain.wait_for_idle(WAIT)
        assert brain.get("k7").evidence_count == 2
        assert not brain._storage.vector_index.building()
    finally:
        brain.close()

    held_builds.clear()
    brain = Audrey(path, agent="a", embedder=DeterministicEmbedder(), config=large)
    shutil.rmtree(tmp_path / "a.db-indexes", ignore_errors=True)
    brain.encode("kiln glaze note 9")
    started = time.monotonic()
    closer = threading.Thread(target=brain.close)
    closer.start()
    time.sleep(0.5)
    held_builds.set()
    closer.join(WAIT)
    assert not closer.is_alive() and time.monotonic() - started < WAIT / 2
