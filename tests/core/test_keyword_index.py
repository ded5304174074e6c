"""The keyword index (tantivy) is a derived copy of the database: it agrees with an exact reference under every
filter, and a deleted folder, a killed writer, another process's writes, a pruned log or a store made before it
existed lose nothing."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from audrey_core import Audrey
from audrey_core.rules.filters import parse_filter
from audrey_core.storage import VectorFilter

from .helpers import add_derived
from .index_helpers import BEFORE_TURNS, downgrade, killed_writer, open_brain

pytest.importorskip("tantivy")
WORDS = "kiln oven glaze clay wheel kiln porcelain stoneware firing".split()
FILTERS = [
    {},
    {"memory_types": ("semantic",)},
    {"memory_types": ("episodic", "procedural")},
    {"tags": ("pottery",)},
    {"sources": ("tool-result",)},
    {"metadata": parse_filter({"batch": {"$gte": 3}})},
    {"scope_prefix": ("user", "ann")},
    {"scope": ("user", "bob"), "tags": ("pottery",)},
]


def fill(brain: Audrey, count: int = 60) -> None:
    items = []
    for i in range(count):
        text = f"{WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]} note {i}"
        items.append(
            {
                "content": text,
                "scope": [(), ("user", "ann"), ("user", "bob")][i % 3],
                "tags": ["pottery"] if i % 4 == 0 else [],
                "source": "tool-result" if i % 5 == 0 else "told-by-user",
                "metadata": {"batch": i % 6},
            }
        )
    brain.encode_batch(items)
    add_derived(brain, "kiln firing needs a slow cool-down")
    add_derived(brain, "glaze the clay before the second firing", memory_type="procedural")
    brain._storage.keyword_index.ensure_fresh()  # the index alone ranks (the log's tail goes to FTS5, scored alike)


def keyword_ids(brain: Audrey, query: str) -> list[str]:
    """The keyword ranking alone (recall would also weigh confidence, which moves with the clock)."""
    hits = brain._storage.keyword_search(query.split(), 1000, VectorFilter(agent=brain.agent))
    return [h.memory_id for h in hits]


@pytest.mark.parametrize("extra", FILTERS)
def test_the_index_agrees_with_the_exact_reference_under_every_filter(tmp_path, extra):
    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db", agent="other") as other:
        fill(brain)
        fill(other)  # another agent's rows must neither appear nor crowd out
        storage = brain._storage
        where = VectorFilter(agent="a", **extra)
        allowed = {m.id for m in storage.list_memories(where, 10_000)}
        for terms in (["kiln"], ["glaze", "clay"], ["note", "7"], ["nothing"]):
            everything = storage.keyword_search(terms, 10_000, VectorFilter(agent="a"))
            expected = [h.memory_id for h in everything if h.memory_id in allowed][:5]
            assert [h.memory_id for h in storage.keyword_search(terms, 5, where)] == expected
            index = storage.keyword_index.search(terms, 10_000, count=True)
            assert len(index.hits) == index.total  # the index alone: every matching row of every agent


def test_the_index_filters_by_agent_type_and_scope_itself_unless_every_row_passes(tmp_path):
    """The database confirms every filter, so these are about the index's own answer: a search asked for one agent
    (type, scope) returns that agent's rows only once another agent's rows are in it (beside a forgotten row of its
    own); while every row passes a filter, the answer is the same with it or without it."""
    from audrey_core.rules.keywords import query_terms
    from audrey_core.storage.sql.filters import encode_scope, scope_match

    def index_rows(brain: Audrey, **filters) -> set[int]:
        hits = brain._storage.keyword_index.search(query_terms("kiln glaze"), 10_000, **filters).hits
        return {rowid for rowid, _ in hits}

    def rows_of(brain: Audrey, agent: str, scope: tuple[str, ...] | None = None) -> set[int]:
        """The text rows of ``agent``'s episodes (in ``scope``) that hold either word, from the database."""
        with brain._storage._read() as db:
            found = db.execute(
                "SELECT t.rowid, e.content, e.scope FROM memory_text_rows t JOIN episodes e ON e.id = t.memory_id "
                "WHERE e.agent = ?",
                [agent],
            ).fetchall()
        wanted = None if scope is None else encode_scope(scope)
        return {
            rowid
            for rowid, content, where in found
            if ("kiln" in content or "glaze" in content) and wanted in (None, where)
        }

    with open_brain(tmp_path / "a.db") as brain, open_brain(tmp_path / "a.db", agent="other") as other:
        fill(brain)
        mine = rows_of(brain, "a")
        assert index_rows(brain, agent="a") == index_rows(brain) >= mine  # one agent: the same answer
        brain.forget([brain.encode("kiln glaze, soon forgotten")])
        other.encode("kiln glaze from the other agent")
        brain._storage.keyword_index.ensure_fresh()
        assert index_rows(brain, agent="a", memory_types=("episodic",)) == mine
        assert index_rows(brain, agent="other") == rows_of(brain, "other") != set()
        fill(other)
        brain._storage.keyword_index.ensure_fresh()
        assert index_rows(brain, agent="a") & rows_of(brain, "a") == mine
        assert not index_rows(brain, agent="a") & rows_of(brain, "other")
        assert index_rows(brain, agent="other", memory_types=("episodic",)) == rows_of(brain, "other")
        bob = index_rows(brain, agent="a", scope_words=tuple(scope_match(("user", "bob"), None)))
        assert bob == rows_of(brain, "a", ("user", "bob"))
        principles = index_rows(brain, agent="a", memory_types=("semantic",))
        assert principles and not principles & mine  # the episodes' rows left out


def test_the_index_weighs_a_turns_length_as_fts5_does_with_its_neighbours_words(tmp_path):
    """FTS5 normalises BM25 by the whole row's length (a turn's own words and its neighbours'), tantivy by one field's:
    the index pads the text field to the row's length, so a one-word turn does not outrank a longer one that says
    the term twice just because its own text is short, and both paths rank alike."""
    filler = [
        "We should plan something for the long weekend soon.",
        "The weather forecast says sunshine until Thursday at least.",
        "My sister wants to come along if there is room for her.",
    ]
    told = "We rented two kayaks at the lake, and the kayaks were light enough for the kids to carry."
    items = [
        *({"content": text, "session": "a", "speaker": "ann"} for text in filler),
        {"content": "Kayaks!", "session": "a", "speaker": "bob"},
        *({"content": text, "session": "a", "speaker": "ann"} for text in filler),
        *({"content": text, "session": "b", "speaker": "ann"} for text in filler),
        {"content": told, "session": "b", "speaker": "bob"},
        *({"content": text, "session": "b", "speaker": "ann"} for text in filler),
    ]
    with open_brain(tmp_path / "a.db") as brain:
        ids = brain.encode_batch(items)
        storage = brain._storage
        storage.keyword_index.ensure_fresh()
        where = VectorFilter(agent="a")
        through_index = [h.memory_id for h in storage.keyword_search(["kayaks"], 3, where)]
        through_fts5 = [h.memory_id for h in storage._fts_keyword_search(["kayaks"], 3, where)]
    assert through_index[0] == through_fts5[0] == ids[len(filler) * 3 + 1]  # the turn that says it twice
    assert set(through_index[:2]) == set(through_fts5[:2]) == {ids[len(filler)], ids[len(filler) * 3 + 1]}


def test_a_deleted_index_folder_is_rebuilt_from_the_database(tmp_path):
    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
        before = keyword_ids(brain, "kiln glaze")
    shutil.rmtree(tmp_path / "a.db-indexes")
    with open_brain(tmp_path / "a.db") as brain:
        assert keyword_ids(brain, "kiln glaze") == before
        assert brain._storage.keyword_index.status()["documents"] == 62


def test_a_pruned_log_rebuilds_the_index(tmp_path):
    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
        before = keyword_ids(brain, "porcelain")
        brain.encode("porcelain cracks when cooled fast", id="late")
        brain._storage.prune_search_log(brain._storage.search_log_head())  # the log no longer reaches the index
        state = tmp_path / "a.db-indexes" / "keyword" / "state.json"
        assert json.loads(state.read_text())["applied"] < brain._storage.search_log_head()
        assert set(keyword_ids(brain, "porcelain")) == {*before, "late"}


def test_writes_of_a_killed_process_are_found_by_the_next_recall(tmp_path):
    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        fill(brain)
        assert keyword_ids(brain, "zebra") == []  # this process's index is now current
        killed_writer(path)
        assert len(keyword_ids(brain, "zebra")) == 25  # another process's writes, on the next recall
    with open_brain(path) as brain:
        assert len(keyword_ids(brain, "zebra")) == 25


def test_a_store_made_before_the_index_builds_it_once(tmp_path):
    path = tmp_path / "a.db"
    with open_brain(path) as brain:
        fill(brain)
        before = keyword_ids(brain, "stoneware wheel")
    shutil.rmtree(tmp_path / "a.db-indexes")
    downgrade(
        path,
        [  # back to schema 4: no change log, no triggers, no turns
            *BEFORE_TURNS,
            "DROP TRIGGER memory_text_added",
            "DROP TRIGGER memory_text_removed",
            "DROP TABLE search_changes",
            "DROP TRIGGER memory_vector_added",
            "DROP TRIGGER memory_vector_removed",
            "DROP TABLE vector_changes",
            "DROP TABLE validation_queue",
            "DELETE FROM schema_migrations WHERE version >= 5",
        ],
    )
    with open_brain(path) as brain:
        assert keyword_ids(brain, "stoneware wheel") == before
        brain.encode("stoneware mugs sold out", id="new")
        assert "new" in keyword_ids(brain, "stoneware")
    assert os.path.isdir(tmp_path / "a.db-indexes" / "keyword")


def test_without_tantivy_keyword_search_runs_through_fts5_with_one_warning(tmp_path, monkeypatch):
    import audrey_core.index.keyword as keyword
    import audrey_core.storage.sqlite.store as sqlite

    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
        indexed = keyword_ids(brain, "glaze clay")
    monkeypatch.setattr(keyword, "tantivy", None)
    monkeypatch.setattr(sqlite, "_warned_without_index", False)
    with pytest.warns(RuntimeWarning, match="tantivy"), open_brain(tmp_path / "a.db") as brain:
        assert brain._storage.keyword_index is None and brain.introspect().indexes[0]["engine"] == "fts5"
        assert set(keyword_ids(brain, "glaze clay")) == set(indexed)  # the same matches, ranked by FTS5


def test_status_and_reindex_show_the_index(tmp_path):
    from click.testing import CliRunner

    from audrey_core.admin.cli import cli

    with open_brain(tmp_path / "a.db") as brain:
        fill(brain)
    runner = CliRunner()
    status = runner.invoke(cli, ["--db", str(tmp_path / "a.db"), "--json", "status"])
    index = next(i for i in json.loads(status.output)["indexes"] if i["kind"] == "keyword")
    assert index["engine"] == "tantivy" and index["documents"] == 62 and index["lag"] == 0
    rebuilt = runner.invoke(cli, ["--db", str(tmp_path / "a.db"), "reindex"])
    assert rebuilt.exit_code == 0 and "62 documents" in rebuilt.output
