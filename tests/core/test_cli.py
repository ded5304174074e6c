"""The audrey command, through click's runner: every subcommand, its error paths, snapshots, backfill, reembed."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from audrey_core import Audrey
from audrey_core.admin.cli import cli
from audrey_core.admin.maintenance import reembed
from audrey_core.storage import SQLiteStorage
from audrey_core.testing import DeterministicEmbedder


@pytest.fixture
def run(tmp_path):
    db = tmp_path / "cli" / "audrey.db"
    db.parent.mkdir()

    def invoke(*args, db_path=db, input=None):
        return CliRunner().invoke(cli, ["--db", str(db_path), "--embedder", "deterministic", *args], input=input)

    invoke.db = db
    return invoke


def j(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_encode_recall_and_status(run):
    first = j(run("--json", "encode", "Stripe returned 429 above 100 req/s", "--tag", "stripe", "--salience", "0.9"))
    run("encode", "--source", "told-by-user", input="The user prefers French\n")
    hits = j(run("--json", "recall", "stripe rate limit", "--limit", "1"))
    assert [h["id"] for h in hits] == [first["id"]] and hits[0]["tags"] == ["stripe"]
    human = run("recall", "French", "--type", "episodic")
    assert "told-by-user" in human.output and "The user prefers French" in human.output
    status = j(run("--json", "status"))
    assert status["counts"]["episodic"] == 2 and status["vectors"] == {"with": 2, "without": 0}
    assert status["embedding_model"] == "deterministic-hash" and status["embedding_dimensions"] == 384
    assert "vectors: 2 memories with, 0 without" in run("status").output
    assert status["similarity_baseline"] is None and "unrelated sentences" not in run("status").output
    run("consolidate")  # measures the model's baseline (rules.calibration) and records it with the store
    baseline = j(run("--json", "status"))["similarity_baseline"]
    assert 0.0 < baseline < 0.5 and f"unrelated sentences at cosine {baseline:.2f}" in run("status").output


def test_a_dash_reads_standard_input_and_a_text_over_the_limit_is_refused_with_the_way_out(run):
    stored = j(run("--json", "encode", "-", input="The deploy key lives in the vault\n"))
    hits = j(run("--json", "recall", "deploy key", "--limit", "1"))
    assert [(h["id"], h["content"]) for h in hits] == [(stored["id"], "The deploy key lives in the vault")]
    long_text = "word " * 300
    refused = run("encode", "--max-chars", "1000", input=long_text)
    assert refused.exit_code == 2 and "1,500 characters, over --max-chars 1,000" in refused.output
    assert "--max-chars 1500 to store it" in refused.output
    assert j(run("--json", "encode", "--max-chars", "1500", input=long_text))["id"]


def test_progress_shows_the_count_the_share_and_the_rate_and_a_long_embedding_call_goes_a_slice_at_a_time():
    import io

    from audrey_core.admin.cli_settings import Progress, ProgressEmbedder

    stream = io.StringIO()
    progress = Progress("embedding chunks", None, stream=stream)
    progress.advance(64, total=200)
    assert "embedding chunks: 64/200 (32%), " in stream.getvalue() and stream.getvalue().endswith("/s\x1b[K")
    progress.finish()
    assert stream.getvalue().endswith("\n")
    unknown = Progress("importing", None, stream=io.StringIO())
    unknown.done = 500
    assert unknown.line(unknown.started + 2.0) == "importing: 500, 250/s"
    reports: list[tuple[int, int | None]] = []
    inner = DeterministicEmbedder()
    sliced = ProgressEmbedder(inner, lambda n, total=None: reports.append((n, total)))
    texts = [f"chunk {i}" for i in range(150)]
    assert (sliced.embed(texts) == inner.embed(texts)).all() and sliced.model_name == inner.model_name
    assert reports == [(64, 150), (64, 150), (22, 150)]


def test_consolidate_history_rollback_and_decay(run):
    for source in ("direct-observation", "tool-result", "told-by-user"):
        run("encode", "the nightly export job takes forty minutes", "--source", source)
    consolidated = j(run("--json", "consolidate"))
    assert consolidated["status"] == "completed" and len(consolidated["output_memory_ids"]) == 1
    assert "completed" in run("history").output
    assert j(run("--json", "rollback", consolidated["id"]))["status"] == "rolled_back"
    again = run("rollback", consolidated["id"])
    assert again.exit_code == 5 and "already rolled back" in again.output
    missing = run("rollback", "no-such-run")
    assert missing.exit_code == 4 and "no consolidation run" in missing.output
    assert "`audrey history` lists the runs" in missing.output and "()" not in missing.output  # in the command's terms
    assert j(run("--json", "decay"))["examined"] == 3


def test_encode_with_a_ttl_then_sweep(run):
    import time

    encoded = time.monotonic()
    short = j(run("--json", "encode", "a one-time code 5512", "--ttl", "3"))["id"]
    expired_by = time.monotonic() + 3.05  # its expiry was set before the command returned
    kept = j(run("--json", "encode", "the user's name is Ada"))["id"]
    if time.monotonic() - encoded < 2.5:  # on a loaded machine the first sweep may come too late to find nothing
        assert j(run("--json", "sweep")) == {"swept": []}
    time.sleep(max(0.0, expired_by - time.monotonic()))
    assert [h["id"] for h in j(run("--json", "recall", "one-time code"))] == [kept]
    assert j(run("--json", "sweep")) == {"swept": [short]}
    assert run("sweep").output.strip() == "deleted 0 expired memories"
    bad = run("encode", "x", "--ttl", "-1")
    assert bad.exit_code != 0 and "more than 0" in bad.output


@pytest.mark.parametrize(
    "command",
    [
        ["recall", "x"],
        ["sweep"],
        ["consolidate"],
        ["decay"],
        ["rollback", "r"],
        ["history"],
        ["status"],
        ["export"],
        ["backfill"],
        ["reembed", "--to", "deterministic"],
    ],
)
def test_a_missing_database_says_what_to_do(tmp_path, command):
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "none.db"), *command])
    assert result.exit_code == 3 and "no Audrey database" in result.output and "--db" in result.output
    assert "\n" not in result.output.strip()  # one line


def test_a_file_that_cannot_be_written_is_one_line_not_a_traceback(run, tmp_path):
    run("encode", "seed memory")
    result = run("export", str(tmp_path / "no such folder" / "snap.jsonl"))
    assert result.exit_code == 1 and result.output.startswith("error: No such file or directory")
    assert "\n" not in result.output.strip() and "Traceback" not in result.output


@pytest.mark.parametrize("command", [["status"], ["encode", "hello"], ["recall", "hello"]])
def test_a_file_that_is_not_a_database_is_named_so_by_every_command(tmp_path, command):
    junk = tmp_path / "notes.db"
    junk.write_text("my shopping list, not a database")
    result = CliRunner().invoke(cli, ["--db", str(junk), "--embedder", "deterministic", *command])
    assert result.exit_code == 3 and result.output.startswith(f"error: {junk} is not a database")
    assert junk.read_text() == "my shopping list, not a database"  # left as it was


def test_status_counts_contradictions_in_words(run):
    for source in ("direct-observation", "tool-result", "told-by-user"):
        run("encode", "the deploy window is Thursday at 10", "--source", source)
    run("consolidate")
    run("encode", "the deploy window is Thursday at 11", "--source", "inference")  # contradicts what was observed
    line = next(x for x in run("status").output.splitlines() if x.startswith("contradictions:"))
    total = sum(j(run("--json", "status"))["contradictions"].values())
    assert total > 0 and line.startswith(f"contradictions: {total} ({total} open)") and "{" not in line


def test_a_document_goes_in_as_many_memories_with_its_source_tags_and_scope(run, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text(
        "The billing service retries a failed charge three times.\nIt waits an hour between tries.\n\n"
        "Refunds over 500 EUR need a second approval. The finance team approves them.\n\n\n"
        "The invoice export runs nightly at 02:00.\n"
    )
    stored = j(run("--json", "encode", "--file", str(notes), "--split", "paragraph", "--source", "tool-result",
                   "--tag", "runbook", "--scope", "team/billing"))  # fmt: skip
    assert stored["count"] == 3 and len(stored["ids"]) == 3
    memories = [j(run("--json", "recall", "billing", "--scope", "team/billing", "--limit", "10"))]
    contents = {h["content"] for h in memories[0]}
    assert "The billing service retries a failed charge three times. It waits an hour between tries." in contents
    every = j(run("--json", "recall", "refunds approval", "--limit", "10", "--tag", "runbook"))
    assert all(h["scope"] == ["team", "billing"] and h["source"] == "tool-result" for h in every)
    lines = j(run("--json", "encode", "--split", "line", input="first fact\n\nsecond fact\n"))
    sentences = j(run("--json", "encode", "--split", "sentence", "--file", str(notes)))
    assert lines["count"] == 2 and sentences["count"] == 5
    assert "stored 2 memories, one per line" in run("encode", "--split", "line", input="a b\nc d\n").output
    assert run("encode", "--split", "line", "--key", "k", input="x\n").exit_code == 2  # one key, many pieces
    assert run("encode", "words", "--file", str(notes)).exit_code == 2


def test_a_long_job_in_a_pipe_says_how_far_it_got_every_few_seconds():
    import io

    from audrey_core.admin.cli_settings import PipeProgress

    stream = io.StringIO()
    progress = PipeProgress("stored", None, every=0.0, stream=stream)
    progress.advance(256)
    progress.advance(256)
    assert stream.getvalue().splitlines()[-1].startswith("stored: 512, ") and "\r" not in stream.getvalue()
    progress.finish()  # nothing new to say
    assert len(stream.getvalue().splitlines()) == 2
    quiet = PipeProgress("stored", None, every=60.0, stream=io.StringIO())
    quiet.advance(10)
    quiet.finish()
    assert quiet.stream.getvalue() == ""  # a job shorter than the interval prints nothing


def test_encode_takes_a_scope_a_key_and_metadata_and_recall_filters_as_python_does(run):
    first = j(run("--json", "encode", "Ada lives in Porto", "--scope", "user/ada", "--key", "user.home_city",
                  "--metadata", '{"channel": "chat"}', "--source", "told-by-user"))["id"]  # fmt: skip
    second = j(run("--json", "encode", "Ada lives in Lisbon", "--scope", "user/ada", "--key", "user.home_city"))["id"]
    run("encode", "Bo lives in Leeds", "--scope", "user/bo", "--tag", "people")
    found = j(run("--json", "recall", "where does Ada live", "--scope", "user/ada"))
    assert [h["id"] for h in found] == [second]  # the key replaced the first
    assert j(run("--json", "recall", "lives", "--tag", "people"))[0]["content"] == "Bo lives in Leeds"
    assert j(run("--json", "recall", "lives", "--source", "told-by-user")) == []  # the first is superseded
    assert all(h["id"] != first for h in j(run("--json", "recall", "Ada", "--include-dormant")))
    assert j(run("--json", "recall", "Ada lives", "--min-similarity", "0.99")) == []
    assert run("encode", "x", "--metadata", "[1, 2]").exit_code == 2
    assert "empty label" in run("encode", "x", "--scope", "user//ada").output


def test_a_new_file_goes_in_an_existing_folder(tmp_path):
    missing = tmp_path / "no" / "such" / "x.db"
    result = CliRunner().invoke(cli, ["--db", str(missing), "--embedder", "deterministic", "encode", "hello"])
    assert result.exit_code == 3 and "does not exist" in result.output and "mkdir -p" in result.output
    assert not (tmp_path / "no").exists()  # nothing was made


def test_bad_usage(run):
    assert run("encode", "x", "--source", "rumour").exit_code == 2
    run("encode", "seed memory")
    assert run("recall", "x", "--limit", "0").exit_code == 2
    empty = run("encode", "   ")
    assert empty.exit_code == 2 and "empty" in empty.output


def test_export_then_import_reproduces_everything(run, tmp_path):
    for source in ("direct-observation", "tool-result", "told-by-user"):
        run("encode", "the deploy window is Thursday at 10", "--source", source, "--tag", "deploy")
    run("consolidate")
    # An inference cannot replace what was observed: it contradicts the principle, a contradiction record.
    run("encode", "the deploy window is Thursday at 11", "--source", "inference")
    snapshot = tmp_path / "snap.jsonl"
    assert j(run("--json", "export", str(snapshot)))["records"] > 0
    copy = tmp_path / "copy.db"
    assert j(run("--json", "import", str(snapshot), db_path=copy))["records"] > 0
    original = SQLiteStorage(run.db, model_name="deterministic-hash", dimensions=384)
    restored = SQLiteStorage(copy, model_name="deterministic-hash", dimensions=384)
    try:
        assert list(original.export_records()) == list(restored.export_records())
        counts = [dict(s.counts(None).__dict__) for s in (original, restored)]
        assert counts[0] == counts[1] and counts[0]["contradictions"] and counts[0]["causal_links"] >= 0
        ids = [r["id"] for t, r in original.export_records() if t == "episodes"]
        assert original.get_memories(ids) == restored.get_memories(ids)
        vector = DeterministicEmbedder().embed(["deploy window"])[0]
        assert original.knn(vector, 5, restored_filter()) == restored.knn(vector, 5, restored_filter())
    finally:
        original.close()
        restored.close()
    refused = run("import", str(snapshot), db_path=copy)
    assert refused.exit_code == 5 and "empty database" in refused.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"hello": 1}\n')
    assert run("import", str(bad), db_path=tmp_path / "fresh.db").exit_code == 2
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(snapshot.read_text().splitlines(keepends=True)[:3]) + "not json\n")
    assert run("import", str(broken), db_path=tmp_path / "half.db").exit_code != 0
    assert not list(tmp_path.glob("half.db*"))  # neither the file nor its indexes' folder is left behind


def restored_filter():
    from audrey_core.storage import VectorFilter

    return VectorFilter(agent="default")


def test_import_without_vectors_then_backfill(run, tmp_path):
    run("encode", "first memory to backfill")
    run("encode", "second memory to backfill")
    stripped = tmp_path / "novectors.jsonl"
    assert run("export", "--no-vectors", str(stripped)).exit_code == 0
    assert '"table": "vector"' not in stripped.read_text()
    target = tmp_path / "backfill.db"
    assert run("import", str(stripped), db_path=target).exit_code == 0
    assert j(run("--json", "status", db_path=target))["vectors"] == {"with": 0, "without": 2}
    # Without vectors, keyword search still finds them (hybrid recall degrades to keywords).
    assert j(run("recall", "first memory", "--json", db_path=target))[0]["content"].startswith("first")
    assert j(run("--json", "backfill", db_path=target))["embedded"] == 2
    assert j(run("--json", "status", db_path=target))["vectors"] == {"with": 2, "without": 0}
    assert j(run("--json", "recall", "first memory to backfill", db_path=target))[0]["content"].startswith("first")


class FailingEmbedder(DeterministicEmbedder):
    """Dies on its second call, as an interrupted re-embed would."""

    def embed(self, texts):
        if self.calls == 1:
            self.calls += 1
            raise RuntimeError("interrupted")
        return super().embed(texts)


def test_reembed_is_resumable_and_switches_only_when_complete(run):
    for i in range(7):
        run("encode", f"memory number {i} about caching")
    storage = SQLiteStorage(run.db, model_name="deterministic-hash", dimensions=384)
    with pytest.raises(Exception, match="interrupted"):
        reembed(storage, FailingEmbedder(128), batch_size=3)
    assert storage.reembed_progress() == (3, 7) and storage.model_name == "deterministic-hash"
    storage.close()
    assert j(run("--json", "status"))["reembed_in_progress"] == "deterministic-hash-128"
    assert j(run("--json", "recall", "caching", "--limit", "2")) != []  # still served by the old vectors
    mismatch = run("reembed", "--to", "local")
    assert mismatch.exit_code == 5 and "in progress" in mismatch.output
    finished = CliRunner().invoke(cli, ["--db", str(run.db), "--json", "reembed", "--to", "deterministic-hash-128"])
    assert j(finished)["written"] == 4
    after = CliRunner().invoke(cli, ["--db", str(run.db), "--json", "status"])
    assert j(after)["embedding_model"] == "deterministic-hash-128" and j(after)["embedding_dimensions"] == 128
    hits = CliRunner().invoke(cli, ["--db", str(run.db), "--json", "recall", "memory number 5 about caching"])
    assert j(hits)[0]["content"] == "memory number 5 about caching"
    with pytest.raises(Exception, match="deterministic-hash-128"):
        Audrey(run.db, embedder=DeterministicEmbedder())


@pytest.mark.slow
def test_reembed_to_the_local_model(run):
    for text in ["The user is allergic to peanuts", "Deploys happen on Thursdays", "The staging database is Postgres"]:
        run("encode", text)
    result = CliRunner().invoke(cli, ["--db", str(run.db), "--json", "reembed", "--to", "local", "--batch-size", "2"])
    assert j(result)["model"] == "all-MiniLM-L6-v2"
    hits = j(CliRunner().invoke(cli, ["--db", str(run.db), "--json", "recall", "food I must avoid", "--limit", "1"]))
    assert hits[0]["content"] == "The user is allergic to peanuts"


@pytest.mark.slow
def test_demo_command_tells_the_story_to_the_default_agent_of_the_store_given_and_says_how_to_look(tmp_path):
    result = CliRunner().invoke(cli, ["demo"])
    assert result.exit_code == 0 and "recalled principle" in result.output and "dispute open" in result.output
    db = tmp_path / "story.db"
    told = CliRunner().invoke(cli, ["--db", str(db), "demo"])
    assert told.exit_code == 0 and f"look at it: audrey --db {db} ui" in told.output
    status = j(CliRunner().invoke(cli, ["--db", str(db), "--json", "status"]))  # no --agent: the same agent
    assert status["counts"]["episodic"] == 5 and status["counts"]["semantic"] == 1
    with Audrey(db) as brain:  # the story ends today: nothing dated in the future
        assert max(m.created_at for m in brain.iter_memories(include_dormant=True)) <= brain.clock()


def test_an_agent_without_memories_is_told_which_agents_the_store_holds(run):
    run("--agent", "payments-agent", "encode", "Stripe returned 429")
    run("--agent", "ops", "encode", "The deploy key is in the vault")
    run("--agent", "ops", "encode", "The staging database is small")
    for command in (["status"], ["recall", "stripe"]):
        result = run(*command)
        assert result.exit_code == 0
        assert "note: agent 'default' has no memories in this store; it holds ops (2), payments-agent (1)" in (
            result.output
        )
    assert "note:" not in run("--agent", "ops", "status").output
    assert j(run("--json", "status"))["other_agents"] == {"ops": 2, "payments-agent": 1}  # JSON: in the data
    assert j(run("--json", "recall", "stripe")) == []  # and stdout stays JSON


def test_the_installed_console_script_runs(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "audrey"
    result = subprocess.run([str(script), "--db", str(tmp_path / "x.db"), "status"], capture_output=True, text=True)
    assert result.returncode == 3 and result.stderr.startswith("error: no Audrey database")
    assert subprocess.run([str(script), "--help"], capture_output=True, text=True).returncode == 0
