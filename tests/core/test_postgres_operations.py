"""Operating a PostgreSQL store: the pool's size and recalls sent to a read replica (``PostgresConfig``), and what
``audrey status`` says of the server's indexes.

The replica here is a copy of the primary taken at one moment, in another schema, opened read-only: what the primary
gets afterwards is what a lagging replica has not replayed yet. A recall that read the primary would find it.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import replace
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from audrey_core import Audrey, AudreyConfig, ConfigurationError, PostgresConfig
from audrey_core.admin.cli import cli
from audrey_core.testing import DeterministicEmbedder, ManualClock

from ..conftest import SYNC
from ..postgres_server import fresh_database_url

BEFORE = "The staging database runs PostgreSQL 16 on the blue cluster."
AFTER = "The billing export uploads its invoices to the orange bucket every night."


def open_brain(path, config: AudreyConfig = SYNC) -> Audrey:
    return Audrey(path, agent="tester", embedder=DeterministicEmbedder(), clock=ManualClock(), config=config)


def with_options(url: str, *settings: str) -> str:
    """``url`` (ending in the test schema's ``options=``) with more server settings for its sessions."""
    assert "options=" in url
    return url + quote("".join(f" -c{setting}" for setting in settings))


@pytest.fixture
def primary_and_replica() -> tuple[str, str]:
    primary, replica = fresh_database_url(), fresh_database_url()
    with open_brain(primary) as brain:
        brain.encode(BEFORE, source="told-by-user")
    result = CliRunner().invoke(cli, ["--db", "unused.db", "migrate-store", "--from", primary, "--to", replica])
    assert result.exit_code == 0, result.output
    return primary, replica


@pytest.mark.parametrize("mode", ["hybrid", "vector", "keyword"])
def test_recall_reads_the_replica_and_everything_else_the_primary(primary_and_replica, mode):
    primary, replica = primary_and_replica
    read_only = with_options(replica, "default_transaction_read_only=on")  # a write sent there would fail
    config = replace(SYNC, postgres=PostgresConfig(replica_url=read_only))
    with open_brain(primary, config) as brain:
        new = brain.encode(AFTER, source="told-by-user")  # on the primary; the replica has not "replayed" it
        assert [r.content for r in brain.recall("staging database PostgreSQL", mode=mode)][:1] == [BEFORE]
        assert AFTER not in [r.content for r in brain.recall("billing export invoices orange bucket", mode=mode)]
        assert brain.get(new).content == AFTER  # reads outside recall go to the primary
        assert AFTER in [m.content for m in brain.list_memories()]
    with open_brain(primary) as brain:  # the same store without a replica finds it
        assert brain.recall("billing export invoices orange bucket", mode=mode)[0].content == AFTER
    with open_brain(replica) as brain:  # and nothing was written to the replica
        assert [m.content for m in brain.list_memories()] == [BEFORE]


def test_a_replica_that_cannot_be_reached_is_reported_when_the_store_opens(primary_and_replica):
    primary, _ = primary_and_replica
    gone = "postgresql://me:s3cret@127.0.0.1:1/nothing?connect_timeout=1"
    config = replace(SYNC, postgres=PostgresConfig(replica_url=gone))
    with pytest.raises(Exception, match=r"127\.0\.0\.1") as error:
        open_brain(primary, config)
    assert "s3cret" not in str(error.value)


def test_the_pool_holds_at_most_pool_size_connections():
    name = f"audrey-pool-{uuid.uuid4().hex[:8]}"
    url = fresh_database_url() + f"&application_name={name}"
    config = replace(SYNC, postgres=PostgresConfig(pool_size=2))
    with open_brain(url, config) as brain:
        brain.encode_batch([f"Note {i} about the {i % 7} service's deploy on day {i}." for i in range(40)])
        errors: list[BaseException] = []

        def recall_often() -> None:
            try:
                for i in range(15):
                    brain.recall(f"service {i % 7} deploy day {i}")
            except BaseException as exc:  # reported by the test below
                errors.append(exc)

        threads = [threading.Thread(target=recall_often) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors
        with brain._storage._read() as db:  # one of the pool's own connections counts them all
            count = db.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", [name]).fetchone()
        assert 1 <= count[0] <= 2


def test_bad_connection_settings_are_refused(tmp_path):
    for size in (0, -1, 1.5, True, 1001):
        with pytest.raises(ConfigurationError, match="pool_size"):
            PostgresConfig(pool_size=size)
    with pytest.raises(ConfigurationError, match="replica_url"):
        PostgresConfig(replica_url="replica.db")
    config = replace(SYNC, postgres=PostgresConfig(replica_url="postgresql://db/memory"))
    with pytest.raises(ConfigurationError, match="PostgreSQL store"):
        open_brain(tmp_path / "audrey.db", config)
    assert "s3cret" not in repr(PostgresConfig(replica_url="postgresql://me:s3cret@db/memory"))


def test_status_shows_the_server_indexes_and_one_a_failed_build_left_invalid():
    url = fresh_database_url()
    with open_brain(url) as brain:
        brain.encode_batch([f"Note {i} about the {i % 7} service's deploy." for i in range(30)])
        with brain._storage._read() as db:
            db.execute("ANALYZE episodes, memory_vectors, memory_fts")
            with pytest.raises(Exception, match="could not create unique index"):  # duplicates: the build fails
                db.execute("CREATE UNIQUE INDEX CONCURRENTLY episodes_one_per_agent ON episodes(agent)")
        indexes = {i["kind"]: i for i in brain.introspect().indexes}
    assert indexes["vector"]["engine"].startswith("pgvector") and indexes["vector"]["engine"].endswith("hnsw")
    assert indexes["vector"]["rows"] == 30 and indexes["vector"]["valid"] and indexes["vector"]["bytes"] > 0
    assert indexes["keyword"]["index"] == "memory_fts_document" and indexes["keyword"]["rows"] == 30
    assert indexes["vector"]["analysed"] is not None
    assert indexes["vector"]["graph"] == {"m": 16, "ef_construction": 128}
    assert indexes["lookup"]["indexes"] > 10 and indexes["lookup"]["invalid"] == ["episodes_one_per_agent"]
    shown = CliRunner().invoke(cli, ["--db", url, "--embedder", "deterministic", "--agent", "tester", "status"])
    assert shown.exit_code == 0, shown.output
    assert "vector index memory_vectors_hnsw (pgvector" in shown.output and "about 30 rows" in shown.output
    assert "NOT VALID: episodes_one_per_agent" in shown.output
    assert "graph m 16, ef_construction 128" in shown.output


def test_hnsw_graphs_link_as_widely_as_sqlites_in_new_stores_and_migrated_ones():
    from audrey_core.index_settings import HNSW_EF_CONSTRUCTION

    def width(db) -> list[str] | None:
        return db.execute("SELECT reloptions FROM pg_class WHERE oid = 'memory_vectors_hnsw'::regclass").fetchone()[0]

    url = fresh_database_url()
    with open_brain(url) as brain:
        brain.encode("The deploy switches traffic blue-green.")
        with brain._storage._read() as db:
            assert width(db) == [f"ef_construction={HNSW_EF_CONSTRUCTION}"]
            # as a store made before migration 11 has it: built with pgvector's defaults
            db.execute("DROP INDEX memory_vectors_hnsw")
            db.execute("CREATE INDEX memory_vectors_hnsw ON memory_vectors USING hnsw (embedding vector_cosine_ops)")
            db.execute("DROP TABLE claim_readings")  # migration 12's, run again after 11
            db.execute("DELETE FROM schema_migrations WHERE version >= 11")
            assert width(db) is None
        assert {i["kind"]: i for i in brain.introspect().indexes}["vector"]["graph"]["ef_construction"] == 64
    with open_brain(url) as brain:
        with brain._storage._read() as db:
            assert width(db) == [f"ef_construction={HNSW_EF_CONSTRUCTION}"]
        brain.encode("The deploy waits for the health check.")
        assert len(brain.recall_by_vector(brain.embedder.embed(["deploy"])[0], limit=5)) == 2
