"""``audrey migrate-store``: a whole store copied SQLite -> PostgreSQL -> SQLite, vectors included, with the same
memories, records and recall answers at every step; refusals leave the destination untouched.

Not a per-backend test (it uses both backends at once, so it takes no ``db_path`` and runs once); it needs the test
PostgreSQL (``tests/postgres_server.py``) and skips with the reason where there is none.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner

from audrey_core import Audrey, AudreyConfig
from audrey_core.admin.cli import cli
from audrey_core.config import STATES, ValidationConfig
from audrey_core.testing import DeterministicEmbedder, ManualClock

from ..postgres_server import fresh_database_url

SYNC = AudreyConfig(validation=ValidationConfig(background=False))
AGENTS = ("tester", "helper")
FILLER = [f"filler{i}" for i in range(60)]
LONG = " ".join(FILLER[:25] + ["the", "vault", "code", "is", "orange", "falcon"] + FILLER[25:])
QUERIES = [
    "Alice peanut allergy",
    "dark mode editor",
    "vault code orange falcon",
    "staging database PostgreSQL",
    "deploy window Thursday",
    "nightly export job",
    "office wifi password",
    "filler40 filler41",
]
CHUNK_QUERY = "vault code orange falcon"  # found through the long text's middle chunk
# Queries with one clearly right answer (content it starts with): hybrid recall must put it first on every backend.
UNAMBIGUOUS = {
    "Alice peanut allergy": "Alice is allergic to peanuts",
    "dark mode editor": "Bob prefers dark mode",
    "vault code orange falcon": "filler0",
    "staging database PostgreSQL": "The staging database",
}


def open_brain(path, agent: str = "tester", clock: ManualClock | None = None) -> Audrey:
    embedder = DeterministicEmbedder(max_tokens=12)  # long texts are split into chunks, one vector each
    return Audrey(path, agent=agent, embedder=embedder, clock=clock or ManualClock(), config=SYNC)


def migrate(source, target, *options: str):
    """``audrey --db <unrelated> migrate-store --from SOURCE --to TARGET``: the store's own model, nothing else."""
    args = ["--db", "unused.db", *options, "migrate-store", "--from", str(source), "--to", str(target)]
    return CliRunner().invoke(cli, args)


def copied(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def sqlite_store(tmp_path):
    """An SQLite store with scopes, tags, metadata, a chunked text, two consolidation runs (one rolled back), causal
    links, a contradiction, a forgotten memory, a reinforced principle and a second agent."""
    path = tmp_path / "source.db"
    clock = ManualClock()
    with open_brain(path, clock=clock) as brain:
        brain.encode(
            "Alice is allergic to peanuts",
            source="told-by-user",
            tags=["health", "alice"],
            metadata={"priority": 2, "team": "support"},
            scope=["user", "alice"],
            key="allergy",
        )
        clock.advance(minutes=5)
        brain.encode(
            "Bob prefers dark mode in every editor",
            tags=["ui"],
            metadata={"priority": 1, "nested": {"a": [1, 2.5, None], "ok": True}},
            scope=["user", "bob"],
        )
        brain.encode(
            "The staging database runs PostgreSQL 16",
            source="tool-result",
            salience=0.9,
            tags=["infra", "db"],
            metadata={"env": "staging", "ratio": 0.25},
            scope=["team", "infra"],
            event_time=datetime(2025, 6, 1, 12, 30, tzinfo=timezone.utc),
        )
        brain.encode("The office wifi password is hunter2", tags=["office"])
        brain.encode(LONG, metadata={"kind": "long"})
        doomed = brain.encode("a memory the user asked to forget")
        brain.forget([doomed])
        clock.advance(hours=1)
        for source in ("direct-observation", "tool-result", "told-by-user"):
            brain.encode(
                "the deploy window is Thursday at 10",
                source=source,
                tags=["deploy"],
                causal={"trigger": "release train", "consequence": "deploy window"},
            )
        assert brain.consolidate().output_memory_ids
        clock.advance(hours=1)
        brain.encode("the deploy window is Thursday at 11", source="inference")  # contradicts the principle
        for source in ("direct-observation", "tool-result", "told-by-user"):
            brain.encode("the nightly export job takes forty minutes", source=source)
        second = brain.consolidate()
        assert second.output_memory_ids
        brain.rollback(second.id)
        clock.advance(days=2)
        brain.recall("deploy window Thursday")  # reinforces the principle: retrieval counts and times to copy
        assert brain.contradictions() and brain.causal_links() and len(brain.consolidation_history()) == 2
    with open_brain(path, agent="helper", clock=clock) as helper:
        helper.encode("The helper agent keeps its own notes", tags=["helper"], scope=["notes"])
    return path


def view(path) -> dict:
    """Everything observable about a store, per agent (recall aside)."""
    found = {}
    for agent in AGENTS:
        with open_brain(path, agent) as brain:
            memories = brain.list_memories(limit=1000, states=list(STATES))
            ids = [m.id for m in memories]
            found[agent] = {
                "memories": memories,
                "vectors": {memory_id: vector.tolist() for memory_id, vector in brain.vectors(ids).items()},
                "contradictions": brain.contradictions(),
                "runs": brain.consolidation_history(),
                "links": brain.causal_links(),
                "audit": brain._storage.audit_entries(agent),
                "introspection": replace(brain.introspect(), indexes=[]),  # derived, local to each store
                "scopes": brain.scopes(),
                "claim_support": {memory_id: brain._storage.claim_support(memory_id) for memory_id in ids},
            }
    return found


def records(path) -> list:
    with open_brain(path) as brain:
        return list(brain._storage.export_records())


def recall_answers(path, clock: ManualClock) -> dict:
    """For every query: vector-mode (id, score, chunk) lists and hybrid recall's top answer, at one simulated time."""
    answers = {}
    with open_brain(path, clock=clock) as brain:
        for query in QUERIES:
            vector = brain.recall(query, mode="vector", limit=20)
            hybrid = brain.recall(query, limit=20)
            answers[query] = {
                "vector": [(h.id, h.score, h.chunk) for h in vector],
                "hybrid_top": hybrid[0].content if hybrid else None,
            }
    return answers


def assert_same_recall(expected: dict, actual: dict) -> None:
    for query in QUERIES:
        want, got = expected[query]["vector"], actual[query]["vector"]
        assert [i for i, _, _ in got] == [i for i, _, _ in want], query
        assert [s for _, s, _ in got] == pytest.approx([s for _, s, _ in want], rel=1e-5, abs=1e-6), query
    # The chunk a long memory is found through is the one nearest the query (where one is: an unrelated query is
    # about as far from every chunk, and either backend may name any of them).
    assert actual[CHUNK_QUERY]["vector"][0][2] == expected[CHUNK_QUERY]["vector"][0][2]
    assert "orange falcon" in expected[CHUNK_QUERY]["vector"][0][2]
    for query, start in UNAMBIGUOUS.items():
        assert expected[query]["hybrid_top"].startswith(start), query
        assert actual[query]["hybrid_top"].startswith(start), query


def test_sqlite_to_postgres_and_back_keeps_everything(sqlite_store, tmp_path):
    url = fresh_database_url()
    original_view, original_records = view(sqlite_store), records(sqlite_store)
    to_postgres = copied(migrate(sqlite_store, url, "--json"))
    memories = sum(len(v["memories"]) for v in original_view.values())
    vectors = sum(1 for table, _ in original_records if table == "vector")
    assert to_postgres["records"] == len(original_records)
    assert (to_postgres["memories"], to_postgres["vectors"], to_postgres["without_vectors"]) == (memories, vectors, 0)
    assert vectors > memories  # the long text brought several chunk vectors
    assert view(url) == original_view
    assert records(url) == original_records

    back = tmp_path / "back.db"
    human = migrate(url, back)
    assert human.exit_code == 0, human.output
    assert human.stdout.strip() == (
        f"copied {len(original_records)} records ({memories} memories, {vectors} vectors) from "
        f"{to_postgres['to']} to {back}"
    )
    assert view(back) == original_view
    assert records(back) == original_records

    # Recall answers the same everywhere (each store asked the same questions at the same simulated time, since
    # recall reinforces what it returns).
    later = datetime(2026, 2, 1, tzinfo=timezone.utc)
    expected = recall_answers(sqlite_store, ManualClock(later))
    assert_same_recall(expected, recall_answers(url, ManualClock(later)))
    assert_same_recall(expected, recall_answers(back, ManualClock(later)))


@pytest.mark.parametrize("target", ["sqlite", "postgres"])
def test_a_superseded_episode_is_copied(tmp_path, target):
    source = tmp_path / "source.db"
    with open_brain(source) as brain:
        old = brain.encode("The office wifi password is hunter2")
        new = brain.encode("The office wifi password is now swordfish", supersedes=old)
    destination = fresh_database_url() if target == "postgres" else tmp_path / "copy.db"
    copied(migrate(source, destination, "--json"))
    with open_brain(destination) as brain:
        assert brain.get(old).state == "superseded" and brain.get(old).superseded_by == new
        assert brain.recall("office wifi password", mode="vector")[0].id == new


def test_a_destination_that_is_not_empty_is_refused_and_left_as_it_was(sqlite_store, tmp_path):
    url = fresh_database_url()
    with open_brain(url) as brain:
        brain.encode("already here")
    before = records(url)
    refused = migrate(sqlite_store, url)
    assert refused.exit_code == 5 and "already holds memories" in refused.output and "empty" in refused.output
    assert "\n" not in refused.output.strip()
    assert records(url) == before

    other_model = tmp_path / "other.db"
    with Audrey(other_model, embedder=DeterministicEmbedder(128), config=SYNC):
        pass  # an empty store made with another embedding model
    mismatch = migrate(sqlite_store, other_model)
    assert mismatch.exit_code == 5 and "deterministic-hash-128" in mismatch.output
    with Audrey(other_model, embedder=DeterministicEmbedder(128), config=SYNC) as brain:
        assert brain._storage.is_empty()

    reembedding = tmp_path / "reembedding.db"
    with open_brain(reembedding) as brain:
        brain._storage.begin_reembed("deterministic-hash-128", 128)  # empty, but half-way to another model
    pending = migrate(sqlite_store, reembedding)
    assert pending.exit_code == 5 and "re-embed" in pending.output
    with open_brain(reembedding) as brain:
        assert brain._storage.is_empty()

    before = records(sqlite_store)
    same = migrate(sqlite_store, sqlite_store)
    assert same.exit_code == 2 and "both name" in same.output and records(sqlite_store) == before


def test_a_missing_source_is_an_error_and_creates_nothing(tmp_path):
    target = tmp_path / "copy.db"
    missing = migrate(tmp_path / "none.db", target)
    assert missing.exit_code == 3 and "no Audrey database" in missing.output and "--from" in missing.output
    assert "\n" not in missing.output.strip() and not target.exists() and not (tmp_path / "none.db").exists()
    empty_server = migrate(fresh_database_url(), target)  # a database without Audrey's tables
    assert empty_server.exit_code == 3 and "no Audrey database" in empty_server.output and not target.exists()


def test_a_source_read_without_vectors_is_copied_for_a_backfill(tmp_path):
    source = tmp_path / "source.db"
    with open_brain(source) as brain:
        brain.encode("first memory to backfill")
        brain.encode("second memory to backfill")
    stripped = tmp_path / "novectors.jsonl"
    CliRunner().invoke(cli, ["--db", str(source), "export", "--no-vectors", str(stripped)])
    bare = tmp_path / "bare.db"  # memories without vectors, as a store read without sqlite-vec exports them
    assert CliRunner().invoke(cli, ["--db", str(bare), "import", str(stripped)]).exit_code == 0
    url = fresh_database_url()
    result = migrate(bare, url, "--json")
    summary = copied(result)
    assert summary["from"] == str(bare) and summary["to"].startswith("postgresql://")
    assert (summary["records"], summary["memories"], summary["vectors"], summary["without_vectors"]) == (2, 2, 0, 2)
    assert "2 memories have no vector" in result.stderr and "backfill" in result.stderr
    assert copied(CliRunner().invoke(cli, ["--db", url, "--json", "backfill"]))["embedded"] == 2
    status = copied(CliRunner().invoke(cli, ["--db", url, "--agent", "tester", "--json", "status"]))
    assert status["vectors"] == {"with": 2, "without": 0}


def test_a_reembed_in_progress_in_the_source_is_left_behind(tmp_path):
    source = tmp_path / "source.db"
    with open_brain(source) as brain:
        memory_id = brain.encode("the cache is warmed at midnight")
        brain._storage.begin_reembed("deterministic-hash-128", 128)
    url = fresh_database_url()
    result = migrate(source, url)
    assert result.exit_code == 0, result.output
    assert "re-embed to deterministic-hash-128" in result.stderr and "reembed --to" in result.stderr
    status = copied(CliRunner().invoke(cli, ["--db", url, "--agent", "tester", "--json", "status"]))
    assert status["embedding_model"] == "deterministic-hash" and status["reembed_in_progress"] is None
    with open_brain(url) as brain:
        assert brain.recall("cache warmed", mode="vector")[0].id == memory_id


def test_the_cli_works_on_a_postgresql_url_and_never_shows_its_password(tmp_path):
    url = fresh_database_url()
    cli_on = ["--db", url, "--embedder", "deterministic"]
    nothing = CliRunner().invoke(cli, [*cli_on, "status"])
    assert nothing.exit_code == 3 and "no Audrey database" in nothing.output  # no Audrey tables there yet
    memory_id = copied(CliRunner().invoke(cli, [*cli_on, "--json", "encode", "Stripe returns 429 above 100 req/s"]))
    hits = copied(CliRunner().invoke(cli, ["--db", url, "--json", "recall", "stripe rate limit"]))
    assert [h["id"] for h in hits] == [memory_id["id"]]
    status = copied(CliRunner().invoke(cli, ["--db", url, "--json", "status"]))
    assert status["counts"]["episodic"] == 1 and status["embedding_model"] == "deterministic-hash"
    snapshot = tmp_path / "snap.jsonl"
    assert copied(CliRunner().invoke(cli, ["--db", url, "--json", "export", str(snapshot)]))["records"] == 2
    into = fresh_database_url()
    assert copied(CliRunner().invoke(cli, ["--db", into, "--json", "import", str(snapshot)]))["records"] == 2
    assert records(into) == records(url)

    secret = "postgresql://alice:s3cr3t-pw@127.0.0.1:1/audrey"  # nothing listens on port 1
    with open_brain(tmp_path / "x.db") as brain:
        brain.encode("something to copy")
    for args in (["--db", secret, "status"], ["migrate-store", "--from", str(tmp_path / "x.db"), "--to", secret]):
        failed = CliRunner().invoke(cli, args)
        assert failed.exit_code == 1 and "alice:***@127.0.0.1:1" in failed.output, failed.output
        assert "s3cr3t" not in failed.output and "\n" not in failed.output.strip()
