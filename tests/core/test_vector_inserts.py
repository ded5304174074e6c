"""Background inserts into the vector graph never hold up what does not need the graph, never lose a row, and a
snapshot saved while rows wait for an insert keeps them waiting (found exactly) in the next process."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import replace

import numpy as np
import pytest

from audrey_core import threads
from audrey_core.index.vector_graph import insert

from .index_helpers import open_brain, use_index

pytest.importorskip("usearch")


def notes(count: int, word: str = "kiln") -> list[str]:
    return [f"{word} glaze note {i}" for i in range(count)]


def nearest_ids(brain, text: str, k: int = 5) -> list[str]:
    from audrey_core.storage import VectorFilter

    vector = np.asarray(brain.embedder.embed([text])[0])
    return [h.memory_id for h in brain._storage.knn(vector, k, VectorFilter(agent=brain.agent))]


@pytest.fixture
def no_background_inserts(monkeypatch):
    """Rows caught up wait beside the graph until the test inserts them, and the graph is always walked."""
    use_index(monkeypatch, pending_max=10**9, exact_below=0, scan_us_per_row=1e9, graph_max_share=1.0)


def test_catch_up_and_stored_vectors_do_not_wait_for_an_insert(tmp_path, no_background_inserts):
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        brain.encode_batch(notes(40))
        brain.rebuild_indexes()  # every row in the graph
        index = brain._storage.vector_index
        ids = other.encode_batch(notes(20, "oven"))
        done = threading.Event()

        def read() -> None:
            index.ensure_fresh()  # a catch-up: the other process's 20 rows
            assert set(brain._storage.get_vectors(ids)) == set(ids)
            done.set()

        with index.graph_lock:  # as an insert holds it for its slice
            reader = threading.Thread(target=read)
            reader.start()
            assert done.wait(10), "a catch-up or a read of stored vectors waited for the graph"
        reader.join()
        assert len(index.waiting) == 20


def test_a_row_removed_while_its_slice_is_inserted_leaves_the_graph_when_the_slice_lands(
    tmp_path, no_background_inserts
):
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        brain.encode_batch(notes(40))
        brain.rebuild_indexes()
        index = brain._storage.vector_index
        ids = other.encode_batch(notes(10, "oven"))
        index.ensure_fresh()
        with index.lock:  # the insert's first step: copy a slice, which stays waiting (searched exactly)
            keys, vectors, serials = index.waiting.first(10)
        brain.forget([ids[3]])  # removed from the waiting rows by the next catch-up, before the slice is in
        index.ensure_fresh()
        with index.graph_lock:  # the insert itself, holding only the graph
            insert(index.graph, keys, vectors)
            index.landed.append((keys, serials))
        assert ids[3] not in nearest_ids(brain, "oven glaze note 3", 10)  # searching lands the slice first
        assert len(index.waiting) == 0
        present = [bool(index.graph.contains(int(key))) for key in keys]
        assert present.count(False) == 1  # the forgotten row's key, and only it, is out of the graph
        assert set(nearest_ids(brain, "oven glaze note 4", 30)) >= set(ids) - {ids[3]}


def test_a_snapshot_saved_while_rows_wait_keeps_them_waiting(tmp_path, no_background_inserts, monkeypatch):
    use_index(monkeypatch, save_after=1)
    with open_brain(tmp_path / "a.db") as brain:
        brain.encode_batch(notes(40))
        brain.rebuild_indexes()  # every row in the graph
        late = brain.encode_batch(notes(12, "oven"))
        index = brain._storage.vector_index
        index.ensure_fresh()  # caught up, and a save begun in the background
        index.saves.thread.join()
        assert len(index.waiting) == 12 and len(index.graph) == 40  # saved as waiting: no insert held anyone
        before = nearest_ids(brain, "oven glaze note 7")
    with open_brain(tmp_path / "a.db") as brain:
        index = brain._storage.vector_index
        index.ensure_fresh()
        assert index.status()["mapped"] and index.applied >= brain._storage.vector_log_head()  # nothing replayed
        with brain._storage._read() as db:
            rows = db.execute(
                "SELECT rowid FROM memory_vector_rows WHERE memory_id IN (SELECT value FROM json_each(?))",
                [json.dumps(late)],
            ).fetchall()
        assert sorted(index.waiting.keys.tolist()) == sorted(r[0] for r in rows)  # the 12, waiting again
        assert nearest_ids(brain, "oven glaze note 7") == before and before[0] == late[7]
        assert index.size() == 52


@pytest.mark.parametrize("settled_by", ["wait_for_idle", "a quiet spell"])
def test_a_snapshot_saved_with_a_backlog_is_saved_again_once_the_graph_holds_it(tmp_path, monkeypatch, settled_by):
    """Without this, the snapshot a bulk load left while rows waited stayed the last one: every new process inserted
    them again, and searched every row exactly meanwhile. ``wait_for_idle`` saves it before returning; a store that
    is never waited for saves it once no change came for a while (searches or inserts notice)."""
    import audrey_core.index.vector_snapshot as vector_snapshot

    use_index(monkeypatch, pending_max=10**9, exact_below=0, save_after=10**6)
    monkeypatch.setattr(vector_snapshot, "QUIET_S", 0.2)
    with open_brain(tmp_path / "a.db") as brain:
        brain.encode_batch(notes(40))
        brain.rebuild_indexes()
        brain.encode_batch(notes(30, "oven"))
        index = brain._storage.vector_index
        index.ensure_fresh()
        with index.folder.writer_lock(), index.lock:
            index.saves.save_now()  # as a save during a load does: 30 rows saved as waiting
        assert len(index.waiting) == 30 and index.folder.read_state()["waiting"] == 30
        index.config = replace(index.config, pending_max=8, insert_slice=4)
        brain.encode_batch(notes(1, "kettle"))
        if settled_by == "wait_for_idle":
            assert brain.wait_for_idle(30)
        else:
            deadline = time.monotonic() + 20
            while index.folder.read_state()["waiting"] >= 8 and time.monotonic() < deadline:
                time.sleep(0.05)
                index.ensure_fresh()  # as each search does: an insert begins, later a save
            assert index.saves.thread is not None and threads.join(index.saves.thread, "saving", 20)
        left = index.folder.read_state()["waiting"]  # saved once in the graph: fewer than pending_max still wait
        assert left < 8
    with open_brain(tmp_path / "a.db") as brain:
        index = brain._storage.vector_index
        index.ensure_fresh()
        assert index.status()["mapped"] and len(index.waiting) == left and len(index.graph) == 71 - left


@pytest.mark.parametrize("in_a_batch", [True, False])
def test_a_burst_is_inserted_in_the_background_and_answers_the_same(tmp_path, monkeypatch, in_a_batch):
    """Begun inside a validation batch, the insert runs at a lower priority; otherwise at the usual one."""
    import audrey_core.index.vector_inserts as vector_inserts

    use_index(monkeypatch, pending_max=8, insert_slice=4, exact_below=0)
    lowered = []
    monkeypatch.setattr(vector_inserts, "lower_priority", lambda: lowered.append(threading.current_thread()))
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        brain.encode_batch(notes(40))
        brain.rebuild_indexes()
        brain.wait_for_idle()  # none of this handle's validation batches under way
        ids = other.encode_batch(notes(60, "oven"))
        index = brain._storage.vector_index
        with brain._storage.searches_caught_up_once() if in_a_batch else contextlib.nullcontext():
            index.ensure_fresh()  # the other handle's 60 rows: an insert begins
        begun = index.inserts.thread
        assert begun is not None and (begun in lowered) == in_a_batch  # (the other handle's inserts are its own)
        deadline = time.monotonic() + 20
        while len(index.waiting) and time.monotonic() < deadline:
            time.sleep(0.02)
            index.ensure_fresh()
        assert len(index.waiting) == 0 and len(index.graph) == 100 and index.landed == []
        for i in (0, 17, 59):
            assert nearest_ids(brain, f"oven glaze note {i}", 1) == [ids[i]]


@pytest.mark.parametrize("queries", [1, 3])
def test_a_batch_search_inside_a_validation_batch_inserts_a_busy_backlog_first(
    tmp_path, no_background_inserts, monkeypatch, queries
):
    """One search for a validation batch's episodes is a run of searches by itself: past ``pending_busy`` waiting rows,
    it inserts them into the graph before it walks (each query would scan them otherwise); a lone search, outside a
    run of searches, leaves them to the background insert."""
    use_index(monkeypatch, pending_max=10**9, pending_busy=10, exact_below=0, scan_us_per_row=1e9, graph_max_share=1.0)
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        brain.encode_batch(notes(40))
        brain.rebuild_indexes()
        ids = other.encode_batch(notes(20, "oven"))
        index = brain._storage.vector_index
        matrix = np.asarray(brain.embedder.embed([f"oven glaze note {i}" for i in range(queries)]), dtype=np.float32)
        index.inserts.walked = 0.0  # no search just before: not in a run
        with brain._storage.searches_caught_up_once():
            index.ensure_fresh()
            assert len(index.waiting) == 20
            every = np.unique(index.table.row_codes[index.table.row_codes >= 0])  # every partition
            found = index.search_many(matrix, 1, every)
        assert len(index.waiting) == (0 if queries > 1 else 20)
        assert [len(keys) for keys, _ in found] == [1] * queries
        assert [nearest_ids(brain, f"oven glaze note {i}", 1) for i in range(queries)] == [[i] for i in ids[:queries]]


def test_two_inserters_never_take_one_row_and_a_search_beside_a_bulk_slice_does_not_wait(
    tmp_path, no_background_inserts
):
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        brain.encode_batch(notes(40))
        brain.rebuild_indexes()
        index = brain._storage.vector_index
        ovens = other.encode_batch(notes(30, "oven"))
        index.ensure_fresh()
        assert len(index.waiting) == 30
        with index.lock:
            bulk = index.inserts._take(20, bulk=True)  # a validation run's bulk slice, in flight
            rest = index.inserts._take(100, bulk=False)  # the background insert's next slice
        assert bulk is not None and rest is not None
        assert not set(bulk[1].tolist()) & set(rest[1].tolist()) and len(bulk[1]) + len(rest[1]) == 30
        with index.lock:
            assert index.inserts._take(100, bulk=False) is None  # every waiting row is someone's already
        found: list[str] = []
        with index.graph_lock:  # the bulk slice being inserted holds the graph
            searcher = threading.Thread(target=lambda: found.extend(nearest_ids(brain, "oven glaze note 3")))
            searcher.start()
            searcher.join(10)
            assert not searcher.is_alive(), "a search waited for the graph behind a bulk slice"
        assert found  # scanned exactly meanwhile
        for taken, is_bulk in ((bulk, True), (rest, False)):
            assert index.inserts._put(*taken, is_bulk)
        with index.lock:
            index.land_now()
        assert len(index.waiting) == 0 and not index.inserts.bulk_under_way
        assert nearest_ids(brain, "oven glaze note 3")[0] == ovens[3]  # each row in the graph once, found
