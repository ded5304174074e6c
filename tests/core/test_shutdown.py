"""Ending a process or an Audrey instance: a fresh interpreter that exits without close() (as most scripts do) ends
cleanly whatever its background threads are doing, validation it left is finished by the next open, and close()
returns while other threads recall, another handle closes, or another process holds an index's writer lock."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import textwrap
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from audrey_core import Audrey, ClosedError
from audrey_core.testing import DeterministicEmbedder

pytestmark = pytest.mark.sqlite_only

HANG = 240  # seconds: a child (or a close) still running after this is hung, not slow


def run_child(code: str, path: Path) -> subprocess.CompletedProcess[str]:
    script = "import sys\nfrom dataclasses import replace\nfrom audrey_core import Audrey\n"
    script += "from audrey_core.testing import DeterministicEmbedder\n"
    script += f"path = {str(path)!r}\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG)


def assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr[-2000:]}"
    assert "terminate called" not in result.stderr
    assert "Traceback" not in result.stderr, result.stderr[-2000:]


ENCODE_AND_EXIT = """
    brain = Audrey(path, embedder=DeterministicEmbedder(64))
    brain.encode_batch([f"memory number {i} about topic {i % 97} and thing {i % 13}" for i in range(20_000)])
    for i in range(20):
        brain.encode(f"extra {i}")
    print(brain._background.validator.pending, flush=True)
"""


def test_a_script_that_encodes_thousands_and_exits_without_close_ends_cleanly(tmp_path):
    # Before the thread registry, 4 of 4 such runs aborted (exit 134): validation was a daemon inside usearch.
    for run in range(2):  # benchmarks/exit_soak.py runs it 50 times
        assert_clean(run_child(ENCODE_AND_EXIT, tmp_path / f"run{run}.db"))
    assert count(tmp_path / "run0.db", "episodes") == 20_020  # every committed write kept


def count(path: Path, table: str) -> int:
    from audrey_core.storage.sqlite.connection import connect, sqlite_module

    connection = connect(str(path), module=sqlite_module(), vectors=False)
    try:
        return int(connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        connection.close()


def queued(path: Path) -> int:
    return count(path, "validation_queue")


def test_validation_a_process_left_at_exit_is_finished_by_the_next_open(tmp_path):
    path = tmp_path / "a.db"
    result = run_child(
        """
        brain = Audrey(path, embedder=DeterministicEmbedder(64))
        brain.encode_batch([f"filler note {i} on subject {i % 89}" for i in range(2_000)])
        brain.encode("The staging database password is kept in the blue vault", id="first")
        brain.encode("The staging database password is kept in the blue vault", id="again")
        print(brain._background.validator.pending, flush=True)
        """,
        path,
    )
    assert_clean(result)
    assert int(result.stdout.split()[-1]) > 0  # the child exited with episodes still to validate
    assert queued(path) > 0
    with Audrey(path, embedder=DeterministicEmbedder(64)) as brain:
        assert brain.wait_for_idle(timeout=HANG)
        assert queued(path) == 0
        assert brain.get("first").evidence_count == 2  # the restatement was found: "again" was validated


@pytest.mark.parametrize(
    "work",
    [
        "threading.Thread(target=brain._storage.rebuild_search_indexes).start()",  # a rebuild under way
        "index = brain._storage.vector_index; index.config = replace(index.config, save_after=500)",  # saves in a row
        "brain.encode_batch([f'late note {i}' for i in range(3_000)])",  # a bulk insert into the graph
    ],
    ids=["rebuild", "save", "bulk-insert"],
)
def test_exit_while_index_upkeep_runs_ends_cleanly(tmp_path, work):
    result = run_child(
        f"""
        import threading
        brain = Audrey(path, embedder=DeterministicEmbedder(64))
        brain.encode_batch([f"memory number {{i}} about topic {{i % 97}}" for i in range(8_000)])
        brain.recall("memory number 3", limit=3)
        {work}
        for i in range(50):
            brain.encode(f"extra {{i}}")
        brain.recall("extra 3", limit=3)
        """,
        tmp_path / "a.db",
    )
    assert_clean(result)
    assert count(tmp_path / "a.db", "episodes") >= 8_050  # every committed write kept
    assert queued(tmp_path / "a.db") > 0  # what validation had not reached waits for the next open


def filled(path: Path, size: int = 1_000) -> Audrey:
    brain = Audrey(path, embedder=DeterministicEmbedder(64))
    brain.encode_batch([f"memory number {i} about topic {i % 97}" for i in range(size)])
    return brain


def closes_within(brain: Audrey, seconds: float = HANG) -> None:
    closer = threading.Thread(target=brain.close)
    closer.start()
    closer.join(seconds)
    assert not closer.is_alive(), "close() hung"


def test_two_handles_on_one_store_close_at_the_same_time(tmp_path):
    first, second = filled(tmp_path / "a.db"), filled(tmp_path / "a.db", 100)
    closers = [threading.Thread(target=b.close) for b in (first, second)]
    for closer in closers:
        closer.start()
    for closer in closers:
        closer.join(HANG)
        assert not closer.is_alive()
    with pytest.raises(ClosedError):
        first.recall("memory")


def test_close_while_another_thread_recalls(tmp_path):
    brain = filled(tmp_path / "a.db")
    outcome: list[BaseException | int] = []

    def recall_until_closed() -> None:
        count = 0
        try:
            while True:
                brain.recall(f"memory number {count % 50}", limit=5)
                count += 1
        except ClosedError:
            outcome.append(count)
        except BaseException as exc:  # anything else is a failure of close()
            outcome.append(exc)

    reader = threading.Thread(target=recall_until_closed)
    reader.start()
    while reader.is_alive() and not brain.recall("memory", limit=1):
        pass
    closes_within(brain)
    reader.join(HANG)
    assert not reader.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], int), outcome


def test_close_returns_while_another_process_holds_the_index_writer_lock(tmp_path, monkeypatch):

    brain = filled(tmp_path / "a.db")
    brain.wait_for_idle()
    lock_file = tmp_path / "a.db-indexes" / "vector" / "writer.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import fcntl, sys, time
            handle = open({str(lock_file)!r}, "a+b")
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            print("held", flush=True)
            time.sleep({HANG})
        """)],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with open(lock_file, "a+b") as handle, pytest.raises(BlockingIOError):
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # really held by the other process
        index = brain._storage.vector_index  # the next catch-up starts a save, which waits for the lock
        index.config = replace(index.config, save_after=10)
        brain.encode_batch([f"new note {i}" for i in range(200)])
        brain.recall("new note 5", limit=1)
        saver = brain._storage.vector_index.saves.thread
        assert saver is not None and saver.is_alive()  # waiting for the other process
        closes_within(brain, 30)
        assert not saver.is_alive()
    finally:
        holder.kill()
        holder.wait()
    with Audrey(tmp_path / "a.db", embedder=DeterministicEmbedder(64)) as again:  # nothing lost: the log had it
        assert again.recall("new note 5", limit=1)[0].content == "new note 5"
