"""An index folder is derived from one database: deleted under running stores it is made again; left by a deleted
store or ahead of a database restored from an older copy it is rebuilt, never read as if it described the database
now at that path; and while it cannot be written, searches run through the database."""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from audrey_core import Audrey
from audrey_core.storage import VectorFilter

from .index_helpers import downgrade, hits, open_brain, saved, scanned_hits, use_index

pytest.importorskip("tantivy")
pytest.importorskip("usearch")


@pytest.fixture(autouse=True)
def saved_often(monkeypatch):
    """Vector snapshots written every 10 changes, so a folder can be ahead of a store this small."""
    use_index(monkeypatch, save_after=10)


def fill(brain: Audrey, word: str, count: int) -> list[str]:
    """``count`` memories about ``word``, caught up so both indexes hold them (their state files say so)."""
    ids = brain.encode_batch([f"{word} note {i} about the {word} enclosure" for i in range(count)])
    brain._storage.keyword_index.ensure_fresh()
    saved(brain)
    return ids


def keyword_ids(brain: Audrey, word: str) -> set[str]:
    return {h.memory_id for h in brain._storage.keyword_search([word], 1000, VectorFilter(agent=brain.agent))}


def remove_database(path: Path) -> None:
    """The store's file and its journal files, not the index folder beside them."""
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm"):
        (path.parent / name).unlink(missing_ok=True)


def states(folder: Path) -> list[dict]:
    return [json.loads((folder / "a.db-indexes" / kind / "state.json").read_text()) for kind in ("keyword", "vector")]


def recorded_stores(folder: Path) -> list[str]:
    """The store each index's state file says it was built from (keyword, vector)."""
    keyword, vector = states(folder)
    return [keyword["store"], vector["identity"]["store"]]


def applied(folder: Path) -> list[int]:
    """The last change of its log each index's state file says it holds (keyword, vector)."""
    return [state["applied"] for state in states(folder)]


def agree(found: list[tuple[str, float]], expected: list[tuple[str, float]], tolerance: float = 1e-4) -> bool:
    """The same distances, and the same memories wherever a distance is clear of the k-th (these texts tie often,
    and the graph's float32 re-scoring may differ from sqlite-vec's in the last digit)."""
    close = len(found) == len(expected) and all(abs(a[1] - b[1]) <= tolerance for a, b in zip(found, expected))
    cut = expected[-1][1] - tolerance if expected else 0.0
    return close and {m for m, d in found if d < cut} == {m for m, d in expected if d < cut}


def assert_indexes_match(brain: Audrey, ids: dict[str, list[str]]) -> None:
    """Keyword search finds exactly each word's memories, KNN through the graph what sqlite-vec's scan finds."""
    for word, expected in ids.items():
        assert keyword_ids(brain, word) == set(expected)
        query = f"{word} note 3 about the {word} enclosure"
        assert agree(hits(brain, query), scanned_hits(brain, query))


def test_a_folder_left_by_a_deleted_store_is_rebuilt_for_the_new_store_at_its_path(tmp_path, graph_always):
    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        fill(brain, "zebra", 40)
    assert applied(tmp_path) == [40, 40]
    remove_database(path)  # the index folder stays, as after `rm a.db`
    with open_brain(path) as brain:
        giraffes = fill(brain, "giraffe", 120)  # the new store's change log passes where the old folder stopped
        assert_indexes_match(brain, {"zebra": [], "giraffe": giraffes})
        assert graph_always  # the graph answered
        assert recorded_stores(tmp_path) == [brain._storage.store_id] * 2


def test_a_database_restored_from_an_older_copy_rebuilds_indexes_that_are_ahead_of_it(tmp_path, graph_always):
    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        zebras = fill(brain, "zebra", 40)
    shutil.copy(path, tmp_path / "backup.db")  # a closed store: everything is in its main file
    with open_brain(path) as brain:
        fill(brain, "giraffe", 40)
    assert applied(tmp_path) == [80, 80]  # the folder holds the giraffes: ahead of the copy
    remove_database(path)
    shutil.copy(tmp_path / "backup.db", path)
    with open_brain(path) as brain:
        okapis = fill(brain, "okapi", 60)  # rows the restored store numbers as the lost giraffes were numbered
        assert_indexes_match(brain, {"zebra": zebras, "giraffe": [], "okapi": okapis})
        assert graph_always


def test_a_store_made_before_store_ids_gets_one_and_rebuilds_its_indexes_once(tmp_path):
    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        zebras = fill(brain, "zebra", 30)
        old_id = brain._storage.store_id
    with open_brain(path) as brain:
        assert brain._storage.store_id == old_id  # kept across opens
    downgrade(path, ["DELETE FROM audrey_config WHERE key = 'store_id'"])  # as an older version left it
    with open_brain(path) as brain, open_brain(path) as second:
        assert brain._storage.store_id == second._storage.store_id != old_id
        assert recorded_stores(tmp_path) == [brain._storage.store_id] * 2
        assert keyword_ids(brain, "zebra") == keyword_ids(second, "zebra") == set(zebras)


def test_a_folder_deleted_under_running_stores_is_made_again_and_loses_nothing(tmp_path, graph_always):
    path = tmp_path / "a.db"
    with open_brain(path) as brain, open_brain(path) as other:  # two handles: indexes of their own, one folder
        zebras = fill(brain, "zebra", 40)
        assert_indexes_match(other, {"zebra": zebras})
        assert other.wait_for_idle(30)  # its catch-up thread done with the folder
        shutil.rmtree(tmp_path / "a.db-indexes")
        giraffes = fill(brain, "giraffe", 30)  # caught up and saved into a folder made again
        for handle in (brain, other):
            assert_indexes_match(handle, {"zebra": zebras, "giraffe": giraffes})
        assert applied(tmp_path) == [70, 70]
    with open_brain(path) as brain:
        assert_indexes_match(brain, {"zebra": zebras, "giraffe": giraffes})


def failed_both(logged: str) -> bool:
    return "keyword index not caught up" in logged and "vector index not rebuilt" in logged


def test_while_the_folder_cannot_be_written_searches_run_through_the_database(
    tmp_path, graph_always, caplog, monkeypatch
):
    path, folder = tmp_path / "a.db", tmp_path / "a.db-indexes"
    with open_brain(path) as brain, open_brain(path) as other:
        zebras = fill(brain, "zebra", 40)
        assert_indexes_match(other, {"zebra": zebras})
        assert brain.wait_for_idle(30) and other.wait_for_idle(30)  # the catch-up threads done with the folder
        shutil.rmtree(folder)
        folder.write_text("a file where the folder was: nothing can be written there")
        giraffes = brain.encode_batch([f"giraffe note {i} about the giraffe enclosure" for i in range(30)])
        brain._storage.prune_vector_log(brain._storage.vector_log_head())  # other's graph must be rebuilt, and saved
        searched = len(graph_always)
        assert keyword_ids(other, "giraffe") == set(giraffes)  # the last commit, and the rows since through FTS5
        assert other.recall("giraffe note 3 about the giraffe enclosure", limit=1, mode="vector")[0].id == giraffes[3]
        assert not other.wait_for_idle(10)  # neither index can be caught up or rebuilt: the database answers
        assert other._storage.keyword_index.applied < other._storage.search_log_head()
        deadline = time.monotonic() + 30  # on a loaded machine validation alone may outlast the first wait
        while not failed_both(caplog.text) and time.monotonic() < deadline:
            assert not other.wait_for_idle(1)  # each wait asks both indexes to catch up again
        assert failed_both(caplog.text)
        folder.unlink()
        for handle in (brain, other):  # the index that failed is tried again
            handle._storage.index_config = replace(handle._storage.index_config, retry_index_after_s=0.0)
        for handle in (brain, other):
            assert handle.wait_for_idle(30)
            assert_indexes_match(handle, {"zebra": zebras, "giraffe": giraffes})  # through the indexes again
        assert len(graph_always) > searched and folder.is_dir()


def test_a_store_opens_while_its_index_folder_cannot_be_written_and_builds_them_once_it_can(
    tmp_path, graph_always, caplog
):
    path, folder = tmp_path / "a.db", tmp_path / "a.db-indexes"
    with open_brain(path) as brain:
        zebras = fill(brain, "zebra", 40)
    shutil.rmtree(folder)
    folder.write_text("a file where the folder was: nothing can be written there")
    with open_brain(path) as brain:  # the indexes are caches: the database answers meanwhile
        assert "index not ready as the store opened" in caplog.text
        assert {m.id for m in brain.recall("zebra enclosure", limit=50, mode="keyword")} == set(zebras)
        assert brain.recall("zebra note 3 about the zebra enclosure", limit=1, mode="vector")[0].id == zebras[3]
    folder.unlink()
    with open_brain(path) as brain:
        assert_indexes_match(brain, {"zebra": zebras})
    assert applied(tmp_path) == [40, 40]


def test_a_folder_deleted_while_the_store_opening_saves_its_rebuilt_graph_leaves_it_open(
    tmp_path, graph_always, monkeypatch
):
    """The race a kill -9 soak found: usearch raises RuntimeError when the folder goes as it writes the graph."""
    from audrey_core.index.folder import IndexFolder

    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        zebras = fill(brain, "zebra", 40)
    shutil.rmtree(tmp_path / "a.db-indexes" / "vector")  # the next open rebuilds the graph and saves it
    next_generation = IndexFolder.next_generation

    def deleted_first(folder: IndexFolder) -> str:
        name = next_generation(folder)
        shutil.rmtree(tmp_path / "a.db-indexes", ignore_errors=True)  # an operator's rm -r, just then
        return name

    monkeypatch.setattr(IndexFolder, "next_generation", deleted_first)
    with open_brain(path) as brain:
        monkeypatch.setattr(IndexFolder, "next_generation", next_generation)
        assert {m.id for m in brain.recall("zebra enclosure", limit=50, mode="keyword")} == set(zebras)
        assert brain.recall("zebra note 3 about the zebra enclosure", limit=1, mode="vector")[0].id == zebras[3]
    with open_brain(path) as brain:  # built again, into a folder made again
        assert_indexes_match(brain, {"zebra": zebras})
    assert applied(tmp_path) == [40, 40]


def test_keyword_files_deleted_under_running_stores_are_rebuilt(tmp_path, caplog):
    path = tmp_path / "a.db"
    with open_brain(path) as brain, open_brain(path) as other:
        zebras = fill(brain, "zebra", 40)
        assert keyword_ids(other, "zebra") == set(zebras)
        generation = tmp_path / "a.db-indexes" / "keyword" / states(tmp_path)[0]["generation"]
        for file in generation.iterdir():
            file.unlink()  # the state file still names them
        giraffes = fill(brain, "giraffe", 30)
        caplog.clear()
        for handle in (other, brain, other):
            assert keyword_ids(handle, "giraffe") == set(giraffes)
            assert keyword_ids(handle, "zebra") == set(zebras)
        assert "runs through the database" not in caplog.text  # each found them through its index


def test_keyword_files_deleted_after_another_store_wrote_them_are_rebuilt(tmp_path, caplog):
    path = tmp_path / "a.db"
    with open_brain(path) as brain, open_brain(path) as other:
        zebras = fill(brain, "zebra", 40)
        assert keyword_ids(other, "zebra") == set(zebras)
        giraffes = fill(brain, "giraffe", 30)  # other is behind: its next search reloads the generation
        generation = tmp_path / "a.db-indexes" / "keyword" / states(tmp_path)[0]["generation"]
        (generation / "meta.json").unlink()
        caplog.clear()
        assert keyword_ids(other, "giraffe") == set(giraffes)
        assert keyword_ids(other, "zebra") == set(zebras)
        assert "runs through the database" not in caplog.text  # rebuilt, then found through the index


def test_a_keyword_generation_that_lost_its_meta_file_is_rebuilt_on_open(tmp_path):
    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        zebras = fill(brain, "zebra", 40)
    generation = tmp_path / "a.db-indexes" / "keyword" / states(tmp_path)[0]["generation"]
    (generation / "meta.json").unlink()  # tantivy would open the folder as a new, empty index
    with open_brain(path) as brain:
        assert keyword_ids(brain, "zebra") == set(zebras)
        assert states(tmp_path)[0]["generation"] != generation.name


def test_stored_vectors_come_from_the_database_while_the_vector_index_cannot_be_written(tmp_path, caplog):
    path, folder = tmp_path / "a.db", tmp_path / "a.db-indexes"
    with open_brain(path) as brain, open_brain(path) as other:
        fill(brain, "zebra", 40)
        other._storage.vector_index.ensure_fresh()  # other's graph, current for now
        shutil.rmtree(folder)
        folder.write_text("a file where the folder was: nothing can be written there")
        texts = [f"giraffe note {i} about the giraffe enclosure" for i in range(30)]
        giraffes = brain.encode_batch(texts)
        brain._storage.prune_vector_log(brain._storage.vector_log_head())  # other's graph must be rebuilt, and saved
        found = other._storage.get_vectors(giraffes)
        assert other._storage.vector_index.applied < other._storage.vector_log_head()  # the index could not answer
        expected = other.embedder.embed(texts)
        assert all(np.allclose(found[i], v / np.linalg.norm(v), atol=1e-5) for i, v in zip(giraffes, expected))
