"""PostgreSQL's plans for validation's batched searches, read from the real server: a filter matching few rows (the
principles, while a bulk load has left the planner's statistics stale) is scored exactly, not walked through the
HNSW graph until ``hnsw.max_scan_tuples``; a filter matching many rows orders the table itself, for the graph; a
writer refreshes the statistics once the tables have grown. Both answer as numpy's exact top k."""

from __future__ import annotations

import numpy as np
import pytest

from audrey_core import Audrey
from audrey_core.config import AudreyConfig, ValidationConfig
from audrey_core.storage import VectorFilter
from audrey_core.storage.postgres import connection, store

from ..postgres_server import fresh_database_url
from .helpers import add_derived

QUIET = AudreyConfig(validation=ValidationConfig(background=False, resume=False))


@pytest.fixture
def pg_brain(embedder):
    brain = Audrey(fresh_database_url(), agent="plans", embedder=embedder, config=QUIET)
    brain._background.encoded = lambda ids: None  # stored, never validated: these tests read searches alone
    yield brain
    brain.close()


def planned(brain: Audrey, monkeypatch: pytest.MonkeyPatch, search) -> tuple[list[str], object]:
    """The plan of each statement ``search()`` sends with its vectors in binary, and what ``search()`` returned."""
    plans: list[str] = []
    send = connection.Session.execute_vectors

    def explained(session, sql, params):
        text = connection.to_pyformat(sql).replace("%s::vector[]", "%b::vector[]")
        rows = session.connection.execute("EXPLAIN " + text, tuple(params)).fetchall()
        plans.append("\n".join(row[0] for row in rows))
        return send(session, sql, params)

    monkeypatch.setattr(connection.Session, "execute_vectors", explained)
    return plans, search()


def exact(brain: Audrey, queries: np.ndarray, ids: list[str], k: int) -> np.ndarray:
    """The ``k`` best cosines of each query among ``ids``' vectors, by numpy (ties make ids ambiguous)."""
    vectors = brain._storage.get_vectors(ids)
    stored = np.stack([vectors[i] for i in ids])
    stored /= np.linalg.norm(stored, axis=1, keepdims=True)
    cosines = (queries / np.linalg.norm(queries, axis=1, keepdims=True)) @ stored.T
    return -np.sort(-cosines, axis=1)[:, :k]


def similarities(found) -> np.ndarray:
    return np.asarray([[h.similarity for h in hits] for hits in found])


def test_a_batch_against_few_principles_scores_them_exactly(pg_brain, monkeypatch):
    pg_brain.encode_batch([f"deploy log line {i} of the nightly run" for i in range(300)])
    principles = [add_derived(pg_brain, f"rule {i}: retry the {topic} after a timeout") for i, topic in
                  enumerate(["upload", "payment", "export", "import", "webhook"])]  # fmt: skip
    queries = np.asarray(pg_brain.embedder.embed(["retry the upload", "payment timeout", "webhook"]), np.float32)
    where = VectorFilter(agent="plans", memory_types=("semantic",), states=("active",), scope=())
    plans, found = planned(pg_brain, monkeypatch, lambda: pg_brain._storage.knn_many(queries, 2, where))
    assert len(plans) == 1 and "CTE Scan on few" in plans[0] and "hnsw" not in plans[0]
    assert np.allclose(similarities(found), exact(pg_brain, queries, principles, 2), atol=1e-5)


def test_a_batch_over_many_rows_searches_the_table_itself(pg_brain, monkeypatch):
    """Over more than FEW_ROWS the statement orders the vector table itself, which lets the planner walk the HNSW
    index (at 10k rows it does, with the batch's smaller candidate list; a test table this small is read whole)."""
    monkeypatch.setattr(store, "FEW_ROWS", 20)
    ids = pg_brain.encode_batch([f"{animal} sighting number {i}" for i in range(40) for animal in ("otter", "heron")])
    with pg_brain._storage._read() as db:
        db.execute("ANALYZE")
    queries = np.asarray(pg_brain.embedder.embed(["otter sighting", "heron sighting number 7"]), np.float32)
    where = VectorFilter(agent="plans", states=("active",), scope=())
    plans, found = planned(pg_brain, monkeypatch, lambda: pg_brain._storage.knn_many(queries, 6, where))
    assert len(plans) == 1 and "few" not in plans[0] and "on memory_vectors" in plans[0]
    assert np.allclose(similarities(found), exact(pg_brain, queries, ids, 6), atol=1e-5)
    with pg_brain._storage._read() as db:  # the walk's candidate list was set for the batch, then put back
        assert db.execute("SHOW hnsw.ef_search").fetchone()[0] == str(connection.DEFAULT_EF_SEARCH)


def test_a_writer_refreshes_the_statistics_once_the_tables_grew(pg_brain, monkeypatch):
    monkeypatch.setattr(store, "ANALYZE_AFTER_ROWS", 50)

    def analysed() -> bool:
        with pg_brain._storage._read() as db:
            query = "SELECT last_analyze FROM pg_stat_user_tables WHERE relid = ?::regclass"
            return db.execute(query, [pg_brain._storage.vector_table]).fetchone()[0] is not None

    pg_brain.encode_batch([f"note {i}" for i in range(30)])
    assert not analysed()
    pg_brain.encode_batch([f"note {i}" for i in range(30, 60)])
    assert analysed()
    assert pg_brain._storage._rows_analysed == 60
