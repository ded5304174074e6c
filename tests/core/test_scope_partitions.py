"""Scopes are vec0 partitions: a scoped KNN equals the exact answer over that scope alone, look-alike labels never
match, and stores made before scopes were partitions are rebuilt on open without losing a vector."""

from __future__ import annotations

import numpy as np
import pytest

from audrey_core import Audrey
from audrey_core.storage import VectorFilter
from audrey_core.storage.sqlite.connection import connect

from ..conftest import SYNC
from .vectors import RandomVectorEmbedder

SCOPES = [
    (),
    ("user",),
    ("user", "john"),
    ("user", "john", "session-1"),
    ("user", "john_doe"),
    ("user", "john%"),
    ("user", "john doe"),  # a space sorts right after the separator: the range's upper edge
    ("user", "johm"),
    ("user", "*"),
    ("users", "john"),
]


SCOPE_FILTERS = [
    ({"scope": ("user", "john")}, lambda s: s == ("user", "john")),
    ({"scope": ()}, lambda s: s == ()),
    ({"scope_prefix": ("user", "john")}, lambda s: s[:2] == ("user", "john")),
    ({"scope_prefix": ("user",)}, lambda s: s[:1] == ("user",)),
    ({"scope_prefix": ("user", "*")}, lambda s: s == ("user", "*")),
    ({"scope_prefix": ()}, lambda s: True),
    ({"scoped": True}, lambda s: s != ()),
    ({"scoped": True, "scope_prefix": ("user", "john%")}, lambda s: s == ("user", "john%")),
    ({"scope": ("user", "john"), "scope_prefix": ("user",)}, lambda s: s == ("user", "john")),
]


@pytest.fixture
def scoped_brain(db_path):
    with Audrey(db_path, agent="a", embedder=RandomVectorEmbedder(32), config=SYNC) as brain:
        for i, scope in enumerate(SCOPES):
            brain.encode_batch([{"content": f"note {j} in scope {i}", "scope": scope} for j in range(12)])
        brain.wait_for_idle()  # the keyword index caught up: it ranks alone (the log's tail goes to FTS5)
        yield brain


def exact(brain, query, k, keep):
    memories = brain.list_memories(scope_prefix=(), limit=10_000)
    vectors = brain.vectors([m.id for m in memories])
    q = brain.embedder.embed([query])[0]
    kept = [m for m in memories if keep(m.scope)]
    sims = {m.id: float(vectors[m.id] @ q / np.linalg.norm(vectors[m.id]) / np.linalg.norm(q)) for m in kept}
    return sorted(sims, key=lambda i: -sims[i])[:k]


@pytest.mark.parametrize("where,keep", SCOPE_FILTERS)
def test_scoped_knn_is_the_exact_answer_within_the_scope(scoped_brain, where, keep):
    for query in ("note 3", "scope 4", "something else entirely"):
        q = scoped_brain.embedder.embed([query])[0]
        hits = scoped_brain._storage.knn(q, 15, VectorFilter(agent="a", **where))
        assert [h.memory_id for h in hits] == exact(scoped_brain, query, 15, keep)


@pytest.mark.parametrize("where,keep", SCOPE_FILTERS)
def test_scoped_keyword_search_ranks_as_the_whole_index_filtered_to_the_scope(scoped_brain, where, keep):
    storage = scoped_brain._storage
    scope_of = {m.id: m.scope for m in scoped_brain.list_memories(scope_prefix=(), limit=10_000)}
    for terms in (["note", "3"], ["scope", "4", "note"], ["nothing"]):
        everything = storage.keyword_search(terms, 10_000, VectorFilter(agent="a"))
        expected = [(h.memory_id, h.score) for h in everything if keep(scope_of[h.memory_id])][:8]
        got = storage.keyword_search(terms, 8, VectorFilter(agent="a", **where))
        assert [h.memory_id for h in got] == [i for i, _ in expected]
        assert [h.score for h in got] == pytest.approx([s for _, s in expected])


def test_a_store_made_before_scope_partitions_is_rebuilt_on_open(tmp_path):
    path = tmp_path / "old.db"
    with Audrey(path, agent="a", embedder=RandomVectorEmbedder(32), config=SYNC) as brain:
        for i, scope in enumerate(SCOPES):
            brain.encode_batch([{"content": f"note {j} in scope {i}", "scope": scope} for j in range(5)])
        before = {s: [r.id for r in brain.recall("note 2 in scope 3", scope=s, mode="vector")] for s in SCOPES}
        table, count = (
            brain._storage.vector_table,
            len(brain.vectors([m.id for m in brain.list_memories(scope_prefix=(), limit=100)])),
        )
    db = connect(str(path))  # put the vectors back into the layout of earlier releases
    db.execute(
        "CREATE VIRTUAL TABLE legacy USING vec0(agent TEXT PARTITION KEY, memory_type TEXT PARTITION KEY, "
        "embedding float[32] distance_metric=cosine, state TEXT, source TEXT, consolidated INTEGER, scope TEXT, "
        "+memory_id TEXT)"
    )
    db.execute(
        "INSERT INTO legacy (rowid, agent, memory_type, embedding, state, source, consolidated, scope, memory_id) "
        f"SELECT rowid, agent, memory_type, embedding, state, source, consolidated, scope, memory_id FROM {table}"
    )
    db.execute(f"DROP TABLE {table}")
    db.execute("UPDATE audrey_config SET value = 'legacy' WHERE key = 'vector_table'")
    db.commit()
    db.close()
    with Audrey(path, agent="a", embedder=RandomVectorEmbedder(32), config=SYNC) as brain:
        assert brain._storage.vector_table != "legacy"
        create = brain._storage._conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = ?", (brain._storage.vector_table,)
        ).fetchone()[0]
        assert "scope TEXT PARTITION KEY" in create and "memory_type TEXT PARTITION KEY" in create
        assert brain._storage._conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'legacy'").fetchone() is None
        ids = [m.id for m in brain.list_memories(scope_prefix=(), limit=100)]
        assert len(brain.vectors(ids)) == count == len(SCOPES) * 5
        after = {s: [r.id for r in brain.recall("note 2 in scope 3", scope=s, mode="vector")] for s in SCOPES}
        assert after == before
