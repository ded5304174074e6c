"""One memory shared by many processes: concurrent encodes all land once (PostgreSQL); concurrent consolidations of
the same agent produce one run's principles (PostgreSQL and one SQLite file). Real processes, a real server
(tests/postgres_server.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from audrey_core import Audrey

from ..conftest import SYNC
from ..postgres_server import fresh_database_url
from .helpers import REPO, add_derived, three_topics
from .vectors import PlacedEmbedder

pytestmark = pytest.mark.slow


def start_together(scripts: list[str], go: Path, timeout: float = 600) -> list[subprocess.CompletedProcess]:
    """Run each script in its own process; they wait for ``go`` to exist, so they start at once."""
    processes = [
        subprocess.Popen([sys.executable, "-c", s], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
        for s in scripts
    ]
    time.sleep(1.0)  # let every interpreter import Audrey before the start signal
    go.touch()
    results = []
    for process in processes:
        out, err = process.communicate(timeout=timeout)
        results.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return results


WAIT_FOR_GO = """
import os, time
while not os.path.exists({go!r}):
    time.sleep(0.01)
"""


def test_eight_processes_encoding_at_once_store_every_memory_exactly_once(tmp_path):
    url, go, workers, each = fresh_database_url(), tmp_path / "go", 8, 1000
    Audrey(url, embedder=_deterministic()).close()  # the schema exists before the race (opening is race-safe too)
    script = textwrap.dedent("""
        from audrey_core import Audrey
        from audrey_core.testing import DeterministicEmbedder
        {wait}
        with Audrey({url!r}, agent="fleet", embedder=DeterministicEmbedder()) as brain:
            for i in range({each}):
                brain.encode(f"worker {worker} observation {{i}} about topic {{i % 37}}", source="tool-result")
    """)
    wait = WAIT_FOR_GO.format(go=str(go))
    results = start_together(
        [script.format(wait=wait, url=url, each=each, worker=w) for w in range(workers)], go, timeout=900
    )
    assert [r.returncode for r in results] == [0] * workers, [r.stderr[-2000:] for r in results]
    with Audrey(url, agent="fleet", embedder=_deterministic()) as brain, brain._storage._read() as db:
        counts = db.execute("SELECT COUNT(*), COUNT(DISTINCT id), COUNT(DISTINCT content) FROM episodes").fetchone()
        total, ids, contents = counts
        assert (total, ids, contents) == (workers * each,) * 3
        for table in ("memory_vector_rows", "memory_text_rows", "memory_fts", brain._storage.vector_table):
            assert db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == workers * each, table
        expected = {f"worker {w} observation {i} about topic {i % 37}" for w in range(workers) for i in range(each)}
        assert {r[0] for r in db.execute("SELECT content FROM episodes")} == expected
    with Audrey(url, agent="fleet", embedder=_deterministic()) as brain:
        hit = brain.recall("worker 5 observation 999 about topic 0", limit=1)[0]
        assert hit.content == "worker 5 observation 999 about topic 0"


@pytest.mark.parametrize("store", ["postgres", "sqlite"])
def test_two_consolidations_started_together_give_one_runs_principles(tmp_path, store):
    # On SQLite the processes share a file: the lock beside it serialises them (before it, one raised 5 times in 5).
    url = fresh_database_url() if store == "postgres" else str(tmp_path / "shared.db")
    go = tmp_path / "go"
    placed = PlacedEmbedder(dimensions=256)
    with Audrey(url, agent="tester", embedder=placed, config=SYNC) as brain:
        three_topics(brain, placed)
    vectors = {t: v.tolist() for t, v in placed.vectors.items()}
    script = textwrap.dedent("""
        import json, time
        from audrey_core import Audrey, AudreyConfig
        from audrey_core.stages import consolidate as stage
        from audrey_core.config import ValidationConfig
        from tests.core.vectors import TableEmbedder

        real = stage.extract
        def slow_extract(*args):
            time.sleep(0.4)  # keep the run open long enough for the other process to arrive mid-run
            return real(*args)
        stage.extract = slow_extract
        brain = Audrey({url!r}, agent="tester", embedder=TableEmbedder({vectors!r}, "placed"),
                       config=AudreyConfig(validation=ValidationConfig(background=False)))
        {wait}
        run = brain.consolidate()
        print(json.dumps({{"run": run.id, "outputs": list(run.output_memory_ids)}}))
        brain.close()
    """)
    wait = WAIT_FOR_GO.format(go=str(go))
    results = start_together([script.format(vectors=vectors, url=url, wait=wait)] * 2, go)
    assert [r.returncode for r in results] == [0, 0], [r.stderr[-2000:] for r in results]
    runs = [json.loads(r.stdout.strip().splitlines()[-1]) for r in results]
    assert runs[0]["run"] != runs[1]["run"]
    assert sorted(len(r["outputs"]) for r in runs) == [0, 3]  # one run did the work; the other found it done
    with Audrey(url, agent="tester", embedder=placed, config=SYNC) as brain:
        principles = brain.list_memories(types=["semantic", "procedural"], limit=100)
        assert len(principles) == 3 == len({p.content for p in principles})
        assert {p.id for p in principles} == {i for r in runs for i in r["outputs"]}
        assert all(run.status == "completed" for run in brain.consolidation_history())


def _deterministic():
    from audrey_core.testing import DeterministicEmbedder

    return DeterministicEmbedder()


def test_concurrent_reinforcements_of_one_principle_are_all_counted(tmp_path):
    """Validation in several processes reinforcing the same principle: every piece of evidence counts (the
    principle's row is locked for each read-modify-write)."""
    url, go, workers, each = fresh_database_url(), tmp_path / "go", 4, 5
    placed = PlacedEmbedder(dimensions=64)
    texts = [placed.place(f"the nightly export finishes by 02:00 (report {i})", 0.97) for i in range(workers * each)]
    principle = placed.place("the nightly export finishes by 02:00", 0.99)
    with Audrey(url, agent="tester", embedder=placed, config=SYNC) as brain:
        target = add_derived(brain, principle, evidence_episode_ids=())
        before = brain.get(target).evidence_count
    vectors = {t: v.tolist() for t, v in placed.vectors.items()}
    script = textwrap.dedent("""
        from audrey_core import Audrey, AudreyConfig
        from audrey_core.config import ValidationConfig
        from tests.core.vectors import TableEmbedder

        brain = Audrey({url!r}, agent="tester", embedder=TableEmbedder({vectors!r}, "placed"),
                       config=AudreyConfig(validation=ValidationConfig(background=False)))
        {wait}
        for text in {mine!r}:
            brain.encode(text, source="tool-result")
        brain.close()
    """)
    wait = WAIT_FOR_GO.format(go=str(go))
    scripts = [
        script.format(vectors=vectors, url=url, wait=wait, mine=texts[w * each : (w + 1) * each])
        for w in range(workers)
    ]
    results = start_together(scripts, go)
    assert [r.returncode for r in results] == [0] * workers, [r.stderr[-2000:] for r in results]
    with Audrey(url, agent="tester", embedder=placed, config=SYNC) as brain:
        after = brain.get(target)
        assert after.evidence_count == before + workers * each
        assert len(set(after.evidence_episode_ids)) == len(after.evidence_episode_ids) >= workers * each


def test_processes_creating_one_new_sqlite_file_at_once_all_open_it_and_refuse_another_model(tmp_path):
    """Six processes open a file that does not exist yet, at the same moment (workers of a fresh deployment): each
    opens it and stores its memories; two of them name another embedding model, and are refused by the check, not by
    an error of whoever lost the race. A soak found both races: the switch to WAL answered "database is locked"
    (SQLite skips the busy wait there) and two processes stored the new store's configuration twice."""
    path, go = tmp_path / "new.db", tmp_path / "go"
    script = textwrap.dedent("""
        import sys
        from audrey_core import Audrey
        from audrey_core.errors import EmbeddingMismatchError
        from audrey_core.testing import DeterministicEmbedder
        {wait}
        try:
            brain = Audrey({path!r}, agent="w{worker}", embedder=DeterministicEmbedder(dimensions={dimensions}))
        except EmbeddingMismatchError as exc:
            print("refused:", exc)
            sys.exit(3)
        brain.encode_batch([f"worker {worker} note {{i}}" for i in range(20)])
        brain.close()
    """)
    wait = WAIT_FOR_GO.format(go=str(go))
    dimensions = [64, 64, 64, 64, 32, 32]
    scripts = [script.format(wait=wait, path=str(path), worker=w, dimensions=d) for w, d in enumerate(dimensions)]
    results = start_together(scripts, go)
    codes = [r.returncode for r in results]
    assert set(codes) <= {0, 3} and 0 in codes, [r.stderr[-2000:] for r in results]
    opened = [d for d, code in zip(dimensions, codes) if code == 0]
    assert len(set(opened)) == 1, codes  # one model won the store; every process of the other was refused
    assert all("was built with embedding model" in r.stdout for r in results if r.returncode == 3)
    from audrey_core.testing import DeterministicEmbedder

    with Audrey(path, embedder=DeterministicEmbedder(dimensions=opened[0])) as brain, brain._storage._read() as db:
        assert db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0] == 20 * len(opened)
