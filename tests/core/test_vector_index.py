"""The vector index (usearch HNSW) is a derived copy of the database: through the graph, KNN agrees with sqlite-vec's
exact scan under every filter, and a deleted or damaged snapshot, a killed writer, another process's writes, a
pruned log, a store made before it existed or another embedding model lose nothing."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections import Counter
from contextlib import contextmanager
from datetime import timedelta

import numpy as np
import pytest

from audrey_core import Audrey
from audrey_core.index.vector_graph import insert
from audrey_core.rules.filters import parse_filter
from audrey_core.storage import VectorFilter

from .helpers import add_derived
from .index_helpers import (
    BEFORE_TURNS,
    downgrade,
    hits,
    killed_writer,
    nearest,
    open_brain,
    same_nearest,
    saved,
    scanned,
    scanned_hits,
    use_index,
)

pytest.importorskip("usearch")
WORDS = "kiln oven glaze clay wheel porcelain stoneware firing".split()
FILTERS = [
    {},
    {"memory_types": ("semantic",)},
    {"memory_types": ("episodic", "procedural")},
    {"tags": ("pottery",)},
    {"sources": ("tool-result",)},
    {"metadata": parse_filter({"batch": {"$gte": 3}})},
    {"scope_prefix": ("user", "ann")},
    {"scope": ("user", "bob"), "tags": ("pottery",)},
    {"scoped": True},
    {"states": ("superseded",)},
    {"consolidated": False},
]


def fill(brain: Audrey, count: int = 90) -> None:
    items = [
        {
            "content": f"{WORDS[i % len(WORDS)]} {WORDS[(i * 3) % len(WORDS)]} note {i}",
            "scope": [(), ("user", "ann"), ("user", "bob")][i % 3],
            "tags": ["pottery"] if i % 4 == 0 else [],
            "source": "tool-result" if i % 5 == 0 else "told-by-user",
            "metadata": {"batch": i % 6},
        }
        for i in range(count)
    ]
    ids = brain.encode_batch(items)
    brain.encode("kiln note replaced", supersedes=ids[1])  # a superseded memory, for the states filter
    add_derived(brain, "kiln firing needs a slow cool-down")
    add_derived(brain, "glaze the clay before the second firing", memory_type="procedural")


@pytest.mark.parametrize("extra", FILTERS)
def test_the_graph_agrees_with_the_exact_scan_under_every_filter(tmp_path, graph_always, extra):
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db", agent="other") as other:
        fill(brain)
        fill(other)  # another agent's rows must neither appear nor crowd out
        for text in ("kiln glaze", "porcelain note 7", "nothing like it"):
            assert same_nearest(hits(brain, text, 5, **extra), scanned_hits(brain, text, 5, **extra))
        assert graph_always  # the graph answered
        if extra.get("scoped"):
            start = brain.clock() - timedelta(days=1)
            found = hits(brain, "clay", 5, time_range=(start, None))
            assert same_nearest(found, scanned_hits(brain, "clay", 5, time_range=(start, None)))


def test_by_default_small_partitions_are_scanned_and_large_ones_searched(tmp_path, monkeypatch):
    import audrey_core.index.vector as vector

    searches = []
    real = vector.VectorIndex.search
    monkeypatch.setattr(vector.VectorIndex, "search", lambda self, *a: searches.append(a[1]) or real(self, *a))
    with open_brain(tmp_path / "a.db") as brain:
        rng = np.random.default_rng(7)
        brain.encode_batch([" ".join(f"w{n}" for n in rng.integers(0, 300, 6)) for _ in range(3000)])
        brain.encode("a small scoped note about the kiln", scope=["user", "ann"])
        searches.clear()  # validation of the big log went through the graph
        assert nearest(brain, "kiln", 5, scope=("user", "ann")) == scanned(brain, "kiln", 5, scope=("user", "ann"))
        assert searches == []  # one row in that scope: a scan is cheaper than the graph
        found, exact = hits(brain, "w1 w2 w3 kiln", 10), scanned_hits(brain, "w1 w2 w3 kiln", 10)
        assert searches  # 3,000 rows: the graph, which is approximate: nine of the ten exact distances at least
        assert sum((Counter(d for _, d in found) & Counter(d for _, d in exact)).values()) >= 9


def test_forgetting_and_superseding_reach_the_graph(tmp_path, graph_always):
    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
        target = nearest(brain, "kiln kiln note 0", 1)[0]
        brain.forget([target])
        assert target not in nearest(brain, "kiln kiln note 0", 20)
        assert brain._storage.vector_index.status()["lag"] == 0


def test_a_deleted_or_damaged_snapshot_is_rebuilt_from_the_database(tmp_path, graph_always, monkeypatch):
    use_index(monkeypatch, save_after=10)
    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
        before = hits(brain, "glaze clay")
        saved(brain)
    folder = tmp_path / "a.db-indexes" / "vector"
    generation = json.loads((folder / "state.json").read_text())["generation"]
    (folder / f"{generation}.usearch").write_bytes(b"not a graph")
    with open_brain(tmp_path / "a.db") as brain:
        assert same_nearest(hits(brain, "glaze clay"), before)
        assert brain._storage.vector_index.status()["documents"] == 93
    shutil.rmtree(folder)
    with open_brain(tmp_path / "a.db") as brain:
        assert same_nearest(hits(brain, "glaze clay"), before)


@pytest.mark.parametrize("layout", [3, 2])
def test_a_new_process_loads_the_snapshot_and_replays_the_rest(tmp_path, graph_always, monkeypatch, layout):
    """Layout 2 (before snapshots could hold rows waiting for an insert) is read as holding none waiting."""
    import audrey_core.index.vector as vector

    use_index(monkeypatch, save_after=50)
    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
        saved(brain)
        if layout == 2:  # the code before inserted every waiting row, then saved
            index = brain._storage.vector_index
            with index.folder.writer_lock(), index.lock:
                index.inserts.writable()
                with index.graph_held():
                    insert(index.graph, index.waiting.keys, index.waiting.vectors)
                    index.waiting.clear()
                index.saves.save_now()
        brain.encode("late clay note", id="late")
        before = nearest(brain, "late clay note")
    folder = tmp_path / "a.db-indexes" / "vector"
    state = json.loads((folder / "state.json").read_text())
    if layout == 2:
        parts = folder / f"{state['generation']}.npz"
        with np.load(parts) as saved_parts:
            assert len(saved_parts["waiting"]) == 0
            older = {"row_codes": saved_parts["row_codes"], "norms": saved_parts["norms"]}
        np.savez(parts, **older)
        (folder / "state.json").write_text(json.dumps({**state, "format": 2}))
    rebuilt = []
    monkeypatch.setattr(vector.VectorIndex, "_rebuild", lambda self, identity: rebuilt.append(identity))
    with open_brain(tmp_path / "a.db") as brain:
        assert 0 < state["applied"] < brain._storage.vector_log_head()  # a snapshot, then changes only in the log
        assert nearest(brain, "late clay note") == before and before[0] == "late"
        assert rebuilt == []


def vector_rows(brain: Audrey, memory_id: str) -> list[int]:
    with brain._storage._read() as db:
        return [r[0] for r in db.execute("SELECT rowid FROM memory_vector_rows WHERE memory_id = ?", [memory_id])]


def test_a_mapped_snapshot_leaves_out_removed_rows_until_an_insert_copies_it(tmp_path, graph_always):
    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
        brain.encode("kiln glaze note last", id="last")
        freed = vector_rows(brain, "last")
        brain.rebuild_indexes()  # a snapshot of every row
    with open_brain(tmp_path / "a.db") as brain:
        index = brain._storage.vector_index
        index.ensure_fresh()
        assert index.status()["mapped"]  # read-only, from the file
        brain.forget(["last"])  # the newest vector row: SQLite gives its row id to the next row
        brain.encode("a wholly different note on raku smoke", id="new")
        assert vector_rows(brain, "new") == freed
        for text in ("kiln glaze note last", "raku smoke", "glaze clay"):
            assert same_nearest(hits(brain, text, 8), scanned_hits(brain, text, 8))  # not the old vector's distance
        assert "last" not in nearest(brain, "kiln glaze note last", 20) and index.status()["mapped"]
        brain.encode_batch([f"oven wheel note {i} late" for i in range(8)])  # past PENDING_MAX (7): inserted
        for _ in range(500):  # once the copy begun in the background is ready, a background insert empties the wait
            index.ensure_fresh()
            if not index.status()["mapped"] and len(index.waiting) == 0:
                break
            time.sleep(0.01)
        assert not index.status()["mapped"] and len(index.waiting) == 0
        for text in ("kiln glaze note last", "raku smoke", "oven wheel late"):
            assert same_nearest(hits(brain, text, 8), scanned_hits(brain, text, 8))


def test_a_pruned_log_reloads_or_rebuilds(tmp_path, graph_always):
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as second:
        fill(brain)
        assert "late" not in nearest(second, "porcelain cracks")  # the second process's graph is current
        brain.encode("porcelain cracks when cooled fast", id="late")
        brain._storage.prune_vector_log(brain._storage.vector_log_head())  # the log no longer reaches it
        assert nearest(second, "porcelain cracks", 1) == ["late"]


def test_writes_of_a_killed_process_are_found_by_the_next_recall(tmp_path, graph_always):
    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        fill(brain)
        assert not any("zebra" in brain.get(i).content for i in nearest(brain, "zebra crossing number 3", 3))
        killed_writer(path)
        found = hits(brain, "zebra crossing number 3", 3)  # another process's writes, on the next recall
        assert all("zebra" in brain.get(i).content for i, _ in found)
    with open_brain(path) as brain:
        assert same_nearest(hits(brain, "zebra crossing number 3", 3), found)


def test_a_store_made_before_the_index_builds_it_once(tmp_path, graph_always):
    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        fill(brain)
        before = hits(brain, "stoneware wheel")
    shutil.rmtree(tmp_path / "a.db-indexes")
    downgrade(
        path,
        [  # back to schema 5: no vector log, no triggers, no validation queue
            *BEFORE_TURNS,
            "DROP TRIGGER memory_vector_added",
            "DROP TRIGGER memory_vector_removed",
            "DROP TABLE vector_changes",
            "DROP TABLE validation_queue",
            "DELETE FROM schema_migrations WHERE version >= 6",
        ],
    )
    with open_brain(path) as brain:
        assert same_nearest(hits(brain, "stoneware wheel"), before)
        brain.encode("stoneware mugs sold out", id="new")
        assert nearest(brain, "stoneware mugs sold out", 1) == ["new"]
    assert (tmp_path / "a.db-indexes" / "vector" / "state.json").is_file()


def test_another_embedding_model_rebuilds_the_graph(tmp_path, graph_always):
    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
        before = hits(brain, "kiln")
    state_file = tmp_path / "a.db-indexes" / "vector" / "state.json"
    state = json.loads(state_file.read_text())
    state["identity"]["model"] = "some-other-model"
    state_file.write_text(json.dumps(state))
    with open_brain(tmp_path / "a.db") as brain:
        assert same_nearest(hits(brain, "kiln"), before)
        assert json.loads(state_file.read_text())["identity"]["model"] == brain.embedder.model_name


def test_without_usearch_knn_scans_with_one_warning(tmp_path, monkeypatch):
    import audrey_core.index.vector as vector
    import audrey_core.storage.sqlite.store as sqlite

    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
        before = hits(brain, "glaze clay")
    monkeypatch.setattr(vector, "HNSW", None)
    monkeypatch.setattr(sqlite, "_warned_without_graph", False)
    with pytest.warns(RuntimeWarning, match="usearch"), open_brain(tmp_path / "a.db") as brain:
        assert brain._storage.vector_index is None
        assert [i["engine"] for i in brain.introspect().indexes if i["kind"] == "vector"] == ["sqlite-vec"]
        assert same_nearest(hits(brain, "glaze clay"), before)


def test_memory_stores_keep_the_graph_in_memory(graph_always):
    with open_brain(":memory:") as brain:  # type: ignore[arg-type]
        fill(brain)
        assert same_nearest(hits(brain, "wheel note"), scanned_hits(brain, "wheel note"))
        assert brain._storage.vector_index.status()["folder"] == ":memory:"


def test_status_and_reindex_show_the_vector_index(tmp_path):
    from click.testing import CliRunner

    from audrey_core.admin.cli import cli

    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
    runner = CliRunner()
    status = runner.invoke(cli, ["--db", str(tmp_path / "a.db"), "--json", "status"])
    index = next(i for i in json.loads(status.output)["indexes"] if i["kind"] == "vector")
    assert index["engine"] == "usearch" and index["documents"] == 93 and index["lag"] == 0
    assert index["model"] == "deterministic-hash"
    rebuilt = runner.invoke(cli, ["--db", str(tmp_path / "a.db"), "reindex"])
    assert rebuilt.exit_code == 0 and "vector index (usearch): 93 documents" in rebuilt.output


@pytest.mark.parametrize("pending_max", [4000, 7])
def test_vectors_come_from_the_graph_exactly_as_stored(tmp_path, monkeypatch, pending_max):
    use_index(monkeypatch, pending_max=pending_max)
    from audrey_core.storage.sql.reads import SQLReads

    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
        ids = [m.id for m in brain._storage.list_memories(VectorFilter(agent="a"), 1000)]
        from_graph = brain._storage.get_vectors(ids)
        stored = SQLReads.get_vectors(brain._storage, ids)  # straight from sqlite-vec
        assert from_graph.keys() == stored.keys() and len(stored) == 93
        assert all(np.array_equal(from_graph[i], stored[i]) for i in ids)
        brain.forget([ids[0]])
        assert ids[0] not in brain._storage.get_vectors(ids)


def test_the_graph_and_the_rows_waiting_beside_it_answer_as_one(tmp_path, monkeypatch):
    use_index(monkeypatch, exact_below=0)  # the graph walked, not scanned
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        fill(brain)
        brain.rebuild_indexes()  # every row in the graph
        other.encode_batch([f"late kiln glaze note {i}" for i in range(30)])
        index = brain._storage.vector_index
        index.ensure_fresh()
        assert len(index.waiting) == 30 and index.size() == 123
        query = np.asarray(brain.embedder.embed(["late kiln glaze note 4"])[0])
        codes = index.codes_for("a", None, lambda scope: True)
        keys, distances = index.search(query, 10, codes)
        assert len(keys) == 10 and list(distances) == sorted(distances)  # the 10 nearest of both, nearest first
        everything = index.search(query, 1000, codes)[0]
        assert set(keys) <= set(everything.tolist()) and set(index.waiting.keys.tolist()) <= set(everything.tolist())


@pytest.mark.parametrize("exact_below", [100_000, 0], ids=["scanned together", "graph walked"])
def test_a_batch_of_searches_answers_as_each_search_alone(tmp_path, monkeypatch, exact_below):
    use_index(monkeypatch, exact_below=exact_below, scan_us_per_row=1000.0)  # the index answers, not a scan
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        fill(brain)
        brain.rebuild_indexes()
        other.encode_batch([f"late kiln glaze note {i}" for i in range(30)])  # waiting beside the graph
        texts = ["late kiln glaze note 4", "kiln", "glaze", "a note about nothing", "late"]
        queries = np.asarray(brain.embedder.embed(texts), dtype=np.float32)
        where = VectorFilter(agent="a", states=("active",))
        storage = brain._storage
        together = storage._indexed_knn_many(queries, 6, where)
        assert together is not None and all(hits is not None for hits in together)  # the index's own answer
        alone = [storage.knn(query, 6, where) for query in queries]
        for batched in (together, storage.knn_many(queries, 6, where)):
            for mine, theirs in zip(batched, alone):  # the same neighbours (ties at the last place may swap)
                assert np.allclose([h.distance for h in mine], [h.distance for h in theirs], atol=1e-5)
                last = theirs[-1].distance - 1e-5
                assert {h.memory_id for h in mine if h.distance < last} == {
                    h.memory_id for h in theirs if h.distance < last
                }


def test_a_larger_graph_is_walked_more_widely():
    from audrey_core.index.vector_graph import expansion_for
    from audrey_core.index_settings import EXPANSION_MIN, EXPANSION_SEARCH

    sizes = [0, 10_000, 100_000, 300_000, 1_000_000, 10**9]
    breadths = [expansion_for(n) for n in sizes]
    assert breadths == sorted(breadths) and breadths[0] == EXPANSION_MIN and breadths[2] == EXPANSION_SEARCH
    assert breadths[4] > 2 * EXPANSION_SEARCH and breadths[-1] == 1024


@contextmanager
def graph_beside_another_writer(tmp_path, monkeypatch, **inserts):
    """A graph of 93 rows that every search walks, another process on the same store, and a search for a note that
    process is about to write; ``inserts`` override the index settings (QUIET is wide, so a slow machine cannot
    fall quiet between two searches)."""
    import audrey_core.index.vector_inserts as vector_inserts

    monkeypatch.setattr(vector_inserts, "QUIET", 0.3)  # a module constant: how long searches count as a run
    use_index(monkeypatch, exact_below=0, pending_max=8, **inserts)
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        fill(brain)
        brain.rebuild_indexes()
        index = brain._storage.vector_index
        query = np.asarray(brain.embedder.embed(["late kiln glaze note 4"])[0])
        codes = index.codes_for("a", None, lambda scope: True)
        yield index, lambda: index.search(query, 5, codes), other


LATE_NOTES = [f"late kiln glaze note {i}" for i in range(30)]


def test_rows_wait_beside_the_graph_while_searches_keep_coming_and_join_it_when_they_stop(tmp_path, monkeypatch):
    with graph_beside_another_writer(tmp_path, monkeypatch) as (index, search, other):
        search()  # a run of searches is under way
        other.encode_batch(LATE_NOTES)
        busy_until = time.monotonic() + 1.0
        while time.monotonic() < busy_until:  # a validation run: searches back to back
            index.ensure_fresh()
            keys, distances = search()
            assert len(index.waiting) == 30  # no insert took the graph from the searches
        assert len(keys) == 5 and set(keys) & set(index.waiting.keys.tolist())
        deadline = time.monotonic() + 10
        while len(index.waiting) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(index.waiting) == 0 and index.size() == 123
        found, apart = search()  # from the graph: the late note itself, nothing nearer than the exact answer (the
        assert found[0] == keys[0] and apart[0] == 0  # notes tie, and an approximate graph may miss one of them)
        assert np.all(apart >= distances - 1e-6)


def test_a_search_that_waited_for_an_insert_still_belongs_to_its_run(tmp_path, monkeypatch):
    """A search held up longer than QUIET (by an insert holding the graph) is not a quiet moment: the searches that
    follow it back to back keep the background insert away, as any run does."""
    with graph_beside_another_writer(tmp_path, monkeypatch) as (index, search, other):
        search()
        other.encode_batch(LATE_NOTES)
        index.ensure_fresh()  # 30 rows wait; the background insert gives way to the run
        assert index.inserting()
        held, release = threading.Event(), threading.Event()

        def hold_graph() -> None:  # as a slice being inserted does, for longer than QUIET
            with index.graph_lock:
                held.set()
                release.wait(10)

        holder = threading.Thread(target=hold_graph)
        holder.start()
        held.wait(10)
        threading.Timer(0.6, release.set).start()
        search()  # waits for the graph about 0.6 s
        holder.join()
        time.sleep(0.1)  # a gap between two searches of the run, shorter than QUIET
        busy_until = time.monotonic() + 1.0
        while time.monotonic() < busy_until:
            search()
            assert len(index.waiting) == 30
        deadline = time.monotonic() + 10
        while index.inserting() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(index.waiting) == 0 and not index.inserting()  # once the run ends they join the graph


def test_a_validation_run_of_searches_inserts_many_waiting_rows_at_once_and_nothing_else_does(tmp_path, monkeypatch):
    """Once PENDING_BUSY rows wait, the next search of a validation batch's run inserts them all on its own thread;
    recalls back to back (outside a batch) and a batch's search after a pause leave them to the background."""
    import audrey_core.index.vector_inserts as vector_inserts

    monkeypatch.setattr(vector_inserts.GraphInserts, "settle", lambda self: None)  # no background insert
    with graph_beside_another_writer(tmp_path, monkeypatch, pending_busy=20) as (index, search, other):
        other.encode_batch(LATE_NOTES)
        index.ensure_fresh()
        recalled = [search() for _ in range(3)]  # back to back, as a busy server's recalls
        assert len(index.waiting) == 30
        time.sleep(0.4)  # quiet: the batch's next search is a lone one
        with index.caught_up_once():
            lone = search()
            assert len(index.waiting) == 30
            following = search()  # within QUIET of the last: a run
        assert len(index.waiting) == 0 and index.size() == 123
        for answer in recalled:  # the same rows, searched the same way
            assert np.allclose(lone[1], answer[1])
        # Now from the graph: the late note itself, and nothing nearer than the exact answer. Not always all of it:
        # these notes tie (hashed words), and an approximate graph may miss one (about a run in three).
        assert following[0][0] == lone[0][0] and following[1][0] == 0
        assert np.all(following[1] >= lone[1] - 1e-6)


def test_a_larger_graph_takes_wider_looks_when_inserting(tmp_path):
    from audrey_core.index.vector_graph import expansion_add_for
    from audrey_core.index_settings import ADD_WIDER_FROM, EXPANSION_ADD

    assert expansion_add_for(0) == expansion_add_for(ADD_WIDER_FROM - 1) == EXPANSION_ADD
    assert expansion_add_for(ADD_WIDER_FROM) == expansion_add_for(10**7) == 2 * EXPANSION_ADD


def test_a_store_read_ahead_on_open_recalls_and_closes_while_reading(tmp_path, monkeypatch):
    """Above WARM_FROM_BYTES the store and keyword index files are read on a background thread after open, and above
    PREFETCH_FROM a loaded snapshot's files too (the graph's first and copied through memory): recall works
    meanwhile, and closing at once stops the reading (nothing left running, nothing raised)."""
    import threading

    import audrey_core.index.vector as vector_module
    from audrey_core import Audrey, AudreyConfig, IndexConfig
    from audrey_core.index.threads import prefetch
    from audrey_core.testing import DeterministicEmbedder

    path = tmp_path / "warm.db"
    with Audrey(path, embedder=DeterministicEmbedder()) as brain:
        brain.encode_batch([f"note {i} about the harbour" for i in range(50)])
    warm = AudreyConfig(index=IndexConfig(warm_from_bytes=0, prefetch_from=0))
    asked = []

    def recorded(paths, stop, touch=()):
        asked.append(([p.name for p in paths], sorted(p.name for p in touch)))
        return prefetch(paths, stop, touch)

    monkeypatch.setattr(vector_module, "prefetch", recorded)
    with Audrey(path, embedder=DeterministicEmbedder(), config=warm) as brain:
        assert len(brain.recall("harbour", limit=5)) == 5
    [(files, touched)] = asked  # the snapshot's: its graph first, read through memory, then its rows
    assert [name.split(".", 1)[1] for name in files] == ["usearch", "f32.npy"] and touched == files[:1]
    for thread in threading.enumerate():
        if thread.name == "audrey-prefetch":
            thread.join(timeout=5)
            assert not thread.is_alive()


def test_searches_caught_up_once_read_the_log_once_on_this_thread_only(tmp_path, graph_always):
    """Validation's batch scope: a thread's first search catches the vector index up, the rest of the scope does not
    look again; other threads, and the same thread afterwards, catch up as always. The keyword index catches nothing up
    on a search: it reads its last commit and the log since, inside the scope too."""

    def keyword_ids(brain: Audrey) -> list[str]:
        return [r.id for r in brain.recall("raku smoke", limit=5, mode="keyword")]

    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db") as other:
        fill(brain)
        with brain._storage.searches_caught_up_once():
            assert nearest(brain, "kiln note", 5) and keyword_ids(brain) == []  # both caught up here
            late = other.encode("raku smoke note", id="late")
            assert late not in nearest(brain, "raku smoke note", 5) and late in keyword_ids(brain)
            seen: list[str] = []
            reader = threading.Thread(target=lambda: seen.extend(nearest(brain, "raku smoke note", 5)))
            reader.start()
            reader.join()
            assert late in seen  # another thread catches up as always
        assert late in nearest(brain, "raku smoke note", 5) and late in keyword_ids(brain)


def test_index_settings_are_checked_and_reach_the_indexes(tmp_path):
    from audrey_core import Audrey, AudreyConfig, ConfigurationError, IndexConfig
    from audrey_core.testing import DeterministicEmbedder

    for bad in ({"save_after": 0}, {"exact_below": -1}, {"graph_max_share": 0.0}, {"scan_us_per_row": 0}):
        with pytest.raises(ConfigurationError):
            IndexConfig(**bad)
    settings = IndexConfig(exact_below=0, save_after=3, build_inline_upto=7)
    with Audrey(tmp_path / "a.db", embedder=DeterministicEmbedder(), config=AudreyConfig(index=settings)) as brain:
        assert brain._storage.vector_index.config is settings
        assert brain._storage.keyword_index.config is settings
