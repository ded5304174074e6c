"""The read path only reads: a search never catches an index up, writes its files or waits for another process that
holds an index's writer lock (a rebuild holds it for minutes at 1M rows); it reads the index's last commit and ranks
the rows changed since through the database."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from audrey_core import Audrey
from audrey_core.storage import VectorFilter

from .index_helpers import open_brain

pytest.importorskip("tantivy")
pytest.importorskip("fcntl")

HOLDER = """
import fcntl, sys
handles = []
for folder in sys.argv[1:]:
    handle = open(folder + "/writer.lock", "a+b")
    fcntl.flock(handle, fcntl.LOCK_EX)
    handles.append(handle)
print("held", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""

DATABASE_WRITER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("writing", flush=True)
sys.stdin.read()  # until the test closes our stdin
connection.execute("ROLLBACK")
"""


class WriterLocks:
    """Another process holding the writer lock of each index folder of a store, as a rebuild there would."""

    def __init__(self, db: Path, kinds: tuple[str, ...] = ("keyword", "vector")) -> None:
        folders = [str(Path(f"{db}-indexes") / kind) for kind in kinds]
        for folder in folders:
            Path(folder).mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDER, *folders], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def __enter__(self) -> WriterLocks:
        assert self.process.stdout is not None and self.process.stdout.readline().strip() == "held"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def keyword_ids(brain: Audrey, terms: str, k: int = 10) -> list[str]:
    return [h.memory_id for h in brain._storage.keyword_search(terms.split(), k, VectorFilter(agent=brain.agent))]


def files_written(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and modification time (SQLite's shared-memory file aside: a reader
    marks its place there)."""
    return {
        str(p): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith("-shm")
    }


def fill(brain: Audrey) -> None:
    brain.encode_batch([f"kiln note {i}: the glaze cracked at cone {i % 9}" for i in range(40)])
    brain.encode("porcelain needs a slower cool-down than stoneware", id="porcelain")
    assert brain.wait_for_idle(60)


def test_a_recall_while_another_process_holds_the_writer_locks_answers_at_once_and_writes_nothing(tmp_path):
    db = tmp_path / "a.db"
    with open_brain(db) as brain:
        fill(brain)
        with WriterLocks(db):
            brain.encode("a zebra crossing painted outside the kiln shed", id="zebra")
            brain.forget(["porcelain"])
            before = files_written(tmp_path)
            began = time.monotonic()
            found = keyword_ids(brain, "zebra porcelain")
            recalled = [r.id for r in brain.recall("zebra crossing", limit=3)]
            took = time.monotonic() - began
            assert found == ["zebra"]  # the new row from the log's tail; the forgotten one left the index's results
            assert recalled[0] == "zebra"
            assert took < 10  # waiting for the writer lock would take WRITER_WAIT_S (600 s)
            assert files_written(tmp_path) == before
            keyword = brain._storage.keyword_index
            assert keyword.view().applied < keyword.view().head  # nothing caught up: the lock is still held
        assert brain.wait_for_idle(60)  # the lock released, the catch-up thread applies the log
        view = brain._storage.keyword_index.view()
        assert view.applied == view.head
        assert keyword_ids(brain, "zebra porcelain") == ["zebra"]


def test_a_store_opened_while_another_process_holds_the_writer_locks_opens_at_once_and_reads(tmp_path):
    """A fresh process meets another's rebuild: it opens without waiting for it (a rebuild at 1M rows holds the lock
    for minutes), finds what was written since the indexes' last commit, and catches up once the lock is free."""
    from audrey_core.storage.sqlite.store import OPEN_WAIT_S

    db = tmp_path / "a.db"
    with open_brain(db) as brain:
        fill(brain)
    with WriterLocks(db):
        with open_brain(db) as brain:  # written while the locks are held: no index can commit it
            brain.encode("a zebra crossing painted outside the kiln shed", id="zebra")
        began = time.monotonic()
        with open_brain(db) as brain:
            opened = time.monotonic() - began
            assert opened < 2 * OPEN_WAIT_S + 5  # the index writer's own wait is WRITER_WAIT_S (600 s)
            assert keyword_ids(brain, "zebra porcelain") == ["zebra", "porcelain"]  # the tail, through FTS5
            assert [r.id for r in brain.recall("zebra crossing", limit=1)] == ["zebra"]
            keyword = brain._storage.keyword_index
            assert keyword.view().applied < keyword.view().head
    with open_brain(db) as brain:  # the lock free: caught up as it opens
        view = brain._storage.keyword_index.view()
        assert view.applied == view.head


def test_the_log_tail_ranks_as_the_caught_up_index_does(tmp_path):
    db = tmp_path / "a.db"
    with open_brain(db) as brain:
        fill(brain)
        with WriterLocks(db, ("keyword",)):
            brain.encode_batch([f"kiln log {i}: cone {i % 5} glaze crawled" for i in range(12)])
            assert brain._storage.keyword_index.view().applied < brain._storage.search_log_head()
            from_tail = keyword_ids(brain, "glaze crawled cone 3", 8)
        assert brain.wait_for_idle(60)
        assert keyword_ids(brain, "glaze crawled cone 3", 8) == from_tail


def test_a_recall_that_returns_a_principle_writes_nothing_itself_and_its_reinforcement_follows(tmp_path):
    """Another process holds the database's write lock: the recall answers at once; the retrieval it records is the
    worker's to write, once the lock is free."""
    from audrey_core.testing import DeterministicEmbedder

    from .helpers import add_derived

    db = tmp_path / "a.db"
    with Audrey(db, agent="a", embedder=DeterministicEmbedder()) as brain:  # background work, as by default
        fill(brain)
        principle = add_derived(brain, "porcelain cools slowly or it cracks in the kiln")
        assert brain.wait_for_idle(60)
        # another process's write transaction under way (in this process, another SQLite library's locks would
        # not be seen: POSIX locks are per process)
        writer = subprocess.Popen(
            [sys.executable, "-c", DATABASE_WRITER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert writer.stdout is not None and writer.stdout.readline().strip() == "writing"
        try:
            before = files_written(tmp_path)
            began = time.monotonic()
            recalled = [r.id for r in brain.recall("porcelain cracks in the kiln", limit=3)]
            assert time.monotonic() - began < 2  # the database's busy timeout is 5 s: no wait for the writer
            assert principle in recalled
            assert files_written(tmp_path) == before
            assert brain.get(principle).retrieval_count == 0  # not yet: the worker waits for the lock
        finally:
            assert writer.stdin is not None
            writer.stdin.close()
            writer.wait(timeout=30)
        assert brain.wait_for_idle(60)
        assert brain.get(principle).retrieval_count == 1


def test_a_stream_read_after_its_instance_closed_ends_quietly(tmp_path):
    from audrey_core.testing import DeterministicEmbedder

    from .helpers import add_derived

    brain = Audrey(tmp_path / "a.db", agent="a", embedder=DeterministicEmbedder())
    principle = add_derived(brain, "porcelain cools slowly or it cracks in the kiln")
    stream = brain.recall_stream("porcelain cracks", limit=3)
    assert next(stream).id == principle
    brain.close()
    stream.close()  # its reinforcement has nowhere to go: dropped, no error


def test_a_tail_longer_than_keyword_tail_max_sends_the_whole_search_to_fts5(tmp_path, monkeypatch):
    from audrey_core import ConfigurationError, IndexConfig
    from audrey_core.errors import IndexNotReady

    from .index_helpers import use_index

    with pytest.raises(ConfigurationError):
        IndexConfig(keyword_tail_max=-1)
    use_index(monkeypatch, keyword_tail_max=3)
    db = tmp_path / "a.db"
    with open_brain(db) as brain:
        fill(brain)
        with WriterLocks(db, ("keyword",)):
            storage = brain._storage
            brain.encode_batch([f"zebra crossing number {i}" for i in range(2)])
            assert storage._keyword_tail(storage.keyword_index.view())  # two rows: ranked beside the index
            brain.encode_batch([f"zebra crossing number {i}" for i in range(2, 5)])
            with pytest.raises(IndexNotReady):
                storage._keyword_tail(storage.keyword_index.view())
            assert len(keyword_ids(brain, "zebra")) == 5  # FTS5 answers the whole search
