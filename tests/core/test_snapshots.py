"""Snapshots carry a record count and an end marker: a cut or damaged file is refused with one line, and the
database it was imported into is left as it was (a new file is not left behind)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from audrey_core import Audrey
from audrey_core.admin.cli import cli
from audrey_core.testing import DeterministicEmbedder


def invoke(db, *args):
    return CliRunner().invoke(cli, ["--db", str(db), "--embedder", "deterministic", *args])


@pytest.fixture
def snapshot(tmp_path):
    source = tmp_path / "source.db"
    with Audrey(source, agent="snap", embedder=DeterministicEmbedder()) as brain:
        for i in range(20):
            brain.encode(f"memory number {i} about snapshots", tags=["t"], metadata={"i": i})
    path = tmp_path / "snap.jsonl"
    assert invoke(source, "export", str(path)).exit_code == 0
    return path


def lines_of(path):
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def test_a_whole_snapshot_ends_with_its_count_and_imports(snapshot, tmp_path):
    *records, end = lines_of(snapshot)
    assert json.loads(end) == {"audrey_snapshot_end": {"records": len(records) - 1}}
    target = tmp_path / "copy.db"
    result = invoke(target, "--json", "import", str(snapshot))
    assert result.exit_code == 0 and json.loads(result.output)["records"] == len(records) - 1
    with Audrey(target, agent="snap", embedder=DeterministicEmbedder()) as copy:
        assert len(copy.list_memories(limit=100)) == 20


def damaged_versions(lines):
    vector = next(i for i, line in enumerate(lines) if '"table": "vector"' in line)
    bad_vector = json.loads(lines[vector])
    bad_vector["row"]["vector"] = "not base64!"
    short_vector = json.loads(lines[vector])
    short_vector["row"]["vector"] = "AAAA"
    return {
        "cut at a line boundary": lines[: len(lines) // 2],
        "cut before the end marker": lines[:-1],
        "a line cut in the middle": [*lines[:-2], lines[-2][:10] + "\n", lines[-1]],
        "an invalid vector": [*lines[:vector], json.dumps(bad_vector) + "\n", *lines[vector + 1 :]],
        "a vector of the wrong size": [*lines[:vector], json.dumps(short_vector) + "\n", *lines[vector + 1 :]],
        "a record dropped": [*lines[:3], *lines[4:]],
        "a record after the end": [*lines, lines[3]],
        "a row that is not an object": [*lines[:3], '{"table": "episodes", "row": [1, 2]}\n', *lines[4:]],
    }


def test_damaged_snapshots_are_refused_and_leave_no_trace(snapshot, tmp_path):
    lines = lines_of(snapshot)
    existing = tmp_path / "existing.db"
    Audrey(existing, agent="snap", embedder=DeterministicEmbedder()).close()  # an empty store, already there
    for name, damaged in damaged_versions(lines).items():
        path = tmp_path / "damaged.jsonl"
        path.write_text("".join(damaged), encoding="utf-8")
        fresh = tmp_path / "fresh.db"
        result = invoke(fresh, "import", str(path))
        assert result.exit_code != 0, name
        message = result.output.strip()
        assert message.startswith("error: ") and "\n" not in message and "Traceback" not in message, (name, message)
        assert not fresh.exists(), name  # the file the import created is removed again
        assert invoke(existing, "import", str(path)).exit_code != 0, name
        with Audrey(existing, agent="snap", embedder=DeterministicEmbedder()) as brain:
            assert brain._storage.is_empty(), name


def test_a_snapshot_that_is_not_text_is_refused(tmp_path, snapshot):
    path = tmp_path / "binary.jsonl"
    path.write_bytes(snapshot.read_bytes()[:200] + b"\xff\xfe\x00garbage\n")
    result = invoke(tmp_path / "x.db", "import", str(path))
    assert result.exit_code != 0 and result.output.startswith("error: ") and "Traceback" not in result.output
