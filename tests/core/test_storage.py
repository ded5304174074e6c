"""The SQLite store: persistence, embedding-model checks, migrations, atomic writes and the connection fallback."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

from audrey_core import Audrey, EmbeddingMismatchError, MigrationError, StorageError
from audrey_core.storage import SQLiteStorage
from audrey_core.storage.sqlite.connection import can_load_extensions, connect, select_sqlite_module, sqlite_module
from audrey_core.storage.sqlite.schema import LATEST_VERSION
from audrey_core.testing import DeterministicEmbedder

from .helpers import add_derived, table_counts


def test_reopening_a_file_keeps_everything(db_path, embedder, clock):
    with Audrey(db_path, agent="tester", embedder=embedder, clock=clock) as brain:
        first = brain.encode(
            "the office wifi password rotates monthly",
            source="told-by-user",
            salience=0.9,
            tags=["office"],
            metadata={"k": [1, 2]},
            causal={"trigger": "security audit"},
        )
        second = brain.encode("the wifi password now rotates weekly", supersedes=first)
        principle = add_derived(brain, "passwords rotate on a schedule", evidence_episode_ids=(first, second))
        hits_before = [(r.id, r.similarity) for r in brain.recall("wifi password", states=["active", "superseded"])]
        brain.wait_for_idle()  # the recall's reinforcement of the principle is written by a worker
        before = {m: brain.get(m) for m in (first, second, principle)}
        assert before[principle].retrieval_count == 1
    with Audrey(db_path, agent="tester", embedder=embedder, clock=clock) as reopened:
        assert {m: reopened.get(m) for m in before} == before
        hits_after = [(r.id, r.similarity) for r in reopened.recall("wifi password", states=["active", "superseded"])]
        assert [h[0] for h in hits_after] == [h[0] for h in hits_before]
        assert [h[1] for h in hits_after] == pytest.approx([h[1] for h in hits_before])
        assert [r.id for r in reopened.recall("office", tags=["office"], states=["superseded"])] == [first]


@pytest.mark.sqlite_only
def test_the_file_is_wal_with_foreign_keys(db_path, embedder):
    with Audrey(db_path, embedder=embedder) as brain:
        db = brain._storage._conn
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert db.execute("PRAGMA busy_timeout").fetchone()[0] > 0


@pytest.mark.sqlite_only
def test_opening_a_new_file_another_connection_is_writing_waits_for_wal_instead_of_failing(tmp_path):
    # A new file is still in rollback-journal mode until its first write; while another process writes it (creating
    # the same store), SQLite answers the switch to WAL with "database is locked" at once, without the busy wait.
    import threading

    path = str(tmp_path / "new.db")
    writer = sqlite_module().connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE t (x)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO t VALUES (1)")
    threading.Timer(0.3, lambda: writer.execute("COMMIT")).start()
    connection = connect(path, vectors=False)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("SELECT x FROM t").fetchall() == [(1,)]
    connection.close()
    writer.close()


def test_a_different_model_or_dimension_is_refused_by_name(db_path):
    with Audrey(db_path, embedder=DeterministicEmbedder(384)) as brain:
        brain.encode("built with the hash embedder")
    other_model = DeterministicEmbedder(384, model_name="another-model")
    with pytest.raises(EmbeddingMismatchError, match=r"deterministic-hash.*384.*another-model.*384"):
        Audrey(db_path, embedder=other_model)
    with pytest.raises(EmbeddingMismatchError, match=r"deterministic-hash.*384.*deterministic-hash-128.*128"):
        Audrey(db_path, embedder=DeterministicEmbedder(128))
    with Audrey(db_path, embedder=DeterministicEmbedder(384)) as brain:  # nothing was damaged
        assert brain.recall("hash embedder")[0].content == "built with the hash embedder"
        config = brain._storage.config()
        config.pop("store_id", None)  # an SQLite store's identity, for the indexes beside its file
        assert config == {
            "embedding_model": "deterministic-hash",
            "embedding_dimensions": "384",
            "vector_table": "memory_vectors",
        }


def latest_version(backend):
    if backend == "postgres":
        from audrey_core.storage.postgres.schema import LATEST_VERSION as latest

        return latest
    return LATEST_VERSION


def test_migrations_are_recorded_and_not_rerun(db_path, embedder, backend):
    Audrey(db_path, embedder=embedder).close()
    with Audrey(db_path, embedder=embedder) as brain, brain._storage._read() as db:
        rows = db.execute("SELECT version, name FROM schema_migrations").fetchall()
    assert [r[0] for r in rows] == list(range(1, latest_version(backend) + 1))


def test_a_newer_schema_is_refused(db_path, embedder):
    with Audrey(db_path, embedder=embedder) as brain, brain._storage._write() as db:
        db.execute("INSERT INTO schema_migrations VALUES (999, 'from the future', '2030-01-01')")
    with pytest.raises(MigrationError, match=r"schema version 999.*upgrade"):
        Audrey(db_path, embedder=embedder)


def test_a_failed_write_leaves_no_memory_without_its_vector(brain):
    brain.encode("a memory before the failure")
    before = table_counts(brain)
    episode = brain.get(brain.encode("template"))
    before = table_counts(brain)
    clone = type(episode)(**{**episode.__dict__, "id": "01FAILEDWRITE0000000000000"})
    with pytest.raises(StorageError):  # a 3-dimensional vector makes the vec0 insert fail mid-transaction
        brain._storage.insert_memories([clone], np.ones((1, 3), dtype=np.float32))
    assert table_counts(brain) == before
    assert brain.get("01FAILEDWRITE0000000000000") is None


def test_a_process_killed_mid_write_leaves_nothing_half_written(db_path, embedder):
    with Audrey(db_path, embedder=embedder) as brain:
        target = brain.encode("the episode the killed batch tries to supersede")
        before = table_counts(brain)
    script = textwrap.dedent(f"""
        import os
        from audrey_core import Audrey
        from audrey_core.storage.sql.records import SQLRecords
        from audrey_core.testing import DeterministicEmbedder

        # Die after the batch's rows, vectors and supersession are written, at its audit entry, before COMMIT.
        SQLRecords.audit = lambda self, *args: os._exit(17)
        brain = Audrey({str(db_path)!r}, embedder=DeterministicEmbedder())
        items = [{{"content": "c" + str(i)}} for i in range(50)]
        brain.encode_batch(items + [{{"content": "x", "supersedes": {target!r}}}])
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 17, result.stderr
    with Audrey(db_path, embedder=embedder) as brain:
        assert table_counts(brain) == before
        assert brain.get(target).state == "active"


def test_memory_path_and_parent_folders(tmp_path, embedder):
    nested = tmp_path / "a" / "b" / "audrey.db"
    with Audrey(nested, embedder=embedder) as brain:
        brain.encode("created with its folders")
    assert nested.exists()
    with Audrey(":memory:", embedder=embedder) as brain:
        brain.encode("in memory")
        assert brain.recall("memory")[0].content == "in memory"


# -- the connection layer on a Python whose sqlite3 cannot load extensions ---------------------------------------


def without_extension_loading(name: str = "sqlite3") -> types.ModuleType:
    """A DB-API module like many macOS / distribution builds of sqlite3: no enable_load_extension."""

    class Connection:  # what such a build exposes: a Connection class lacking enable_load_extension
        def execute(self, *args):  # pragma: no cover - never called
            raise AssertionError("should not be used")

    fake = types.ModuleType(name)
    fake.Connection = Connection
    fake.connect = lambda *a, **k: Connection()
    return fake


def test_falls_back_to_an_extension_capable_sqlite():
    crippled = without_extension_loading()
    assert not can_load_extensions(crippled)
    chosen = select_sqlite_module([crippled, "sqlean", "pysqlite3.dbapi2"])
    assert chosen.__name__.startswith("sqlean")
    db = connect(":memory:", module=chosen)
    assert db.execute("SELECT vec_version()").fetchone()[0].startswith("v")


def test_no_capable_sqlite_names_what_to_install():
    with pytest.raises(StorageError, match=r"pip install sqlean\.py") as info:
        select_sqlite_module([without_extension_loading(), "module_that_is_not_installed"])
    assert "cannot load extensions" in str(info.value) and "not installed" in str(info.value)


def test_this_python_gets_a_working_module():
    import sqlite3

    module = sqlite_module()
    assert can_load_extensions(module)
    if not can_load_extensions(sqlite3):  # this machine's case: the standard module cannot, so we fell back
        assert module is not sqlite3
    storage = SQLiteStorage(":memory:", model_name="m", dimensions=4)
    storage.close()


def test_reads_by_id_take_more_ids_than_one_statement_holds(brain):
    ids = [brain.encode(f"note {i}") for i in range(3)]
    many = [f"missing-{i}" for i in range(70_000)] + ids  # beyond PostgreSQL's 65,535 parameters per statement
    assert set(brain._storage.get_memories(many)) == set(ids)
    assert set(brain._storage.get_vectors(many)) == set(ids)


def test_a_batch_of_neighbour_searches_answers_as_each_search_alone(both_brains):
    """Validation searches a batch's neighbours together (on PostgreSQL one statement, a lateral walk per query):
    the same neighbours, in the same order, as one search each; filters hold for every query."""
    from audrey_core.storage import VectorFilter

    texts = [f"{animal} note {i}" for i in range(12) for animal in ("otter", "heron", "badger")]
    for brain in both_brains:
        brain.encode_batch(texts)
        brain.encode("otter note in another scope", scope=("elsewhere",))
        queries = np.asarray(brain.embedder.embed(["otter note 4", "heron", "badger note 11"]), dtype=np.float32)
        where = VectorFilter(agent=brain.agent, states=("active",), scope=())
        storage = brain._storage
        together = storage.knn_many(queries, 5, where)
        alone = [storage.knn(query, 5, where) for query in queries]
        assert [[h.memory_id for h in hits] for hits in together] == [[h.memory_id for h in hits] for hits in alone]
        assert all(len(hits) == 5 for hits in together)
        scoped = storage.get_memories([h.memory_id for hits in together for h in hits])
        assert all(m.scope == () for m in scoped.values())  # the other scope's note is never a neighbour


def test_a_read_by_ids_alone_finds_every_type_of_memory_together(both_brains):
    """Reads by id without the types ask the episodes first and the other tables only for what is left: a principle
    and a procedure among episodes are found all the same, and an unknown id stays missing."""
    from audrey_core.models import Procedural, Semantic

    for n, brain in enumerate(both_brains):
        episodes = brain.encode_batch(["otter note", "heron note"])
        now = brain.clock()
        common = {"agent": brain.agent, "source": "inference", "source_reliability": 0.7, "created_at": now}
        principle = Semantic(id=f"s-{n}", content="otters like rivers", **common)
        procedure = Procedural(id=f"p-{n}", content="check the river first", **common)
        vectors = np.asarray(brain.embedder.embed([principle.content, procedure.content]), dtype=np.float32)
        brain._storage.insert_memories([principle, procedure], vectors)
        wanted = [principle.id, episodes[0], "missing", procedure.id, episodes[1]]
        found = brain._storage.get_memories(wanted)
        assert {i: m.memory_type for i, m in found.items()} == {
            principle.id: "semantic",
            episodes[0]: "episodic",
            procedure.id: "procedural",
            episodes[1]: "episodic",
        }
        assert found[principle.id].content == "otters like rivers"
        assert brain._storage.get_memory(procedure.id).content == "check the river first"
        assert brain._storage.get_memory("missing") is None


def test_records_found_by_a_value_in_any_of_two_columns(both_brains):
    """A contradiction is found by either side in one read, once even when both sides are asked for, oldest first,
    under the other columns' conditions; an unknown column is refused and no value finds nothing."""
    from datetime import timedelta

    from audrey_core.models import Contradiction

    for brain in both_brains:
        now = brain.clock()
        made = [
            Contradiction(f"c-{i}", brain.agent, a, b, state, None, now + timedelta(seconds=i))
            for i, (a, b, state) in enumerate(
                [("x", "y", "open"), ("z", "x", "open"), ("y", "w", "resolved"), ("v", "x", "resolved")]
            )
        ]
        brain._storage.insert_records(made)
        find = brain._storage.find_records_in_any
        sides = ("claim_a_id", "claim_b_id")
        assert [c.id for c in find(Contradiction, sides, ["x"])] == ["c-0", "c-1", "c-3"]
        assert [c.id for c in find(Contradiction, sides, ["x", "y"], state="open")] == ["c-0", "c-1"]
        assert [c.id for c in find(Contradiction, sides, ["y"], state=["open", "resolved"])] == ["c-0", "c-2"]
        assert [c.id for c in find(Contradiction, ("claim_b_id",), ["x"], claim_a_id="v")] == ["c-3"]
        assert find(Contradiction, sides, []) == [] and find(Contradiction, sides, ["x"], state=[]) == []
        for values in (["x"], []):
            with pytest.raises(StorageError, match="no column 'side'"):
                find(Contradiction, ("side",), values)
