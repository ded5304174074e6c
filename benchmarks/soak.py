"""Kill -9 soak: writer and reader processes on one SQLite file, one of them killed at random and restarted, then
a check that nothing that returned was lost and nothing forgotten came back.

    python -m benchmarks.soak [--seconds 240] [--writers 3] [--readers 1] [--kill-every 3,15] [--pause 0.2]
                              [--delete-indexes-every N]

Writers encode batches of 1-100 memories (random 384-d vectors, each with a word of its own) and now and then forget
some of their own; readers recall by keyword, vector and both. Each worker appends what returned to a log, fsynced,
before its next step: an encode listed there committed. ``--pause`` seconds per 100 memories slow each writer (0: as
fast as it can; on two cores three writers then outrun every process's graph, see README). Afterwards, once every
worker is dead, a new handle in the driving process checks that every logged memory is stored, found by its word
(keyword recall) and by its vector (top 10), and no forgotten one is stored or found; then the same after deleting
the index folder. Vector misses are the graph's, on random vectors (the hard case): the rebuilt graph misses as
many. ``--delete-indexes-every N`` also deletes the index folder every N-th kill, under the running workers (as an
operator might to force a rebuild); an index that fails as its files go sends its searches to the database for a
while (logged, counted). Prints figures and a JSON line; not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DIMENSIONS = 384
FALLBACK = "searches run through the database"  # logged when an index fails (its folder deleted as it wrote)
REBUILDING = "rebuilding it"  # logged when an index's files cannot be used and it is built again
ROOT = Path(__file__).resolve().parents[1]


def _vector(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=DIMENSIONS).astype(np.float32)


def _open(path: str):
    from audrey_core import Audrey
    from audrey_core.testing import DeterministicEmbedder

    return Audrey(path, agent="soak", embedder=DeterministicEmbedder(dimensions=DIMENSIONS))


def worker(path: str, role: str, logs: Path, pause: float) -> None:
    """Write (or recall) until killed; log each step that returned, fsynced."""
    rng = random.Random(os.getpid())
    started = time.perf_counter()
    brain = _open(path)
    with open(logs / f"{role}.{os.getpid()}", "a") as log:

        def note(line: str) -> None:
            log.write(line + "\n")
            log.flush()
            os.fsync(log.fileno())

        note(f"O {time.perf_counter() - started:.3f}")
        mine: list[str] = []
        while True:
            if not role.startswith("w"):
                query = rng.choice(["soak note", "from w1", _word(rng), "note"])
                brain.recall(query, limit=10, mode=rng.choice(["hybrid", "keyword", "vector"]))
                time.sleep(0.01)
                continue
            n = rng.choice([1, 5, 20, 100])
            words, seeds = [_word(rng) for _ in range(n)], [rng.randrange(2**31) for _ in range(n)]
            items = [{"content": f"soak note {w} from {role}"} for w in words]
            ids = brain.encode_batch(items, vectors=np.stack([_vector(s) for s in seeds]))
            note("\n".join(f"E {i} {w} {s}" for i, w, s in zip(ids, words, seeds)))
            mine.extend(ids)
            if rng.random() < 0.1:
                gone = rng.sample(mine, min(len(mine), rng.randint(1, 10)))
                mine = [m for m in mine if m not in gone]
                note("F? " + " ".join(gone))  # killed before the next line: either outcome is right
                note("F " + " ".join(brain.forget(gone)))
            time.sleep(pause * n / 100)


def _tracebacks(lines: list[str]) -> list[list[str]]:
    """Each traceback in the workers' stderr: from "Traceback" to the first unindented line, the error."""
    found: list[list[str]] = []
    open_one = False
    for line in lines:
        if line.startswith("Traceback"):
            found.append([line])
            open_one = True
        elif open_one:
            found[-1].append(line)
            open_one = line.startswith((" ", "\t"))
    return found


def _word(rng: random.Random) -> str:
    return "u" + "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(11))


def drive(
    path: str,
    logs: Path,
    seconds: float,
    roles: list[str],
    kill_every: tuple[float, float],
    pause: float,
    delete_every: int = 0,
) -> tuple[int, int, int]:
    """Run the workers for ``seconds``, killing one at random every ``kill_every`` seconds and starting it again,
    and deleting the index folder every ``delete_every``-th kill (0: never). Returns kills, workers that ended by
    themselves, deletions."""
    rng = random.Random(7)
    command = [sys.executable, "-m", "benchmarks.soak", "--worker", "--pause", str(pause), "--store", path]

    def start(role: str) -> subprocess.Popen:
        with open(logs / f"stderr.{role}", "a") as errors:  # the child keeps its own copy of the file
            return subprocess.Popen([*command, "--role", role, "--logs", str(logs)], stderr=errors, cwd=ROOT)

    processes = {role: start(role) for role in roles}
    kills, failures, deletions, end = 0, 0, 0, time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(rng.uniform(*kill_every))
        for role, process in processes.items():
            if process.poll() is not None:  # ended by itself: an error, in its stderr file
                failures += 1
                processes[role] = start(role)
        victim = rng.choice(roles)
        processes[victim].send_signal(signal.SIGKILL)
        processes[victim].wait()
        processes[victim] = start(victim)
        kills += 1
        if delete_every and kills % delete_every == 0:
            shutil.rmtree(f"{path}-indexes", ignore_errors=True)  # a worker may be writing in it: whatever is left
            deletions += 1
    for process in processes.values():
        process.send_signal(signal.SIGKILL)
        process.wait()
    return kills, failures, deletions


def read_logs(logs: Path) -> tuple[dict[str, tuple[str, int]], set[str], set[str], list[float]]:
    encoded, forgotten, in_flight, opens = {}, set(), set(), []
    for file in logs.glob("[wr]*.*"):
        lines = file.read_text().split("\n")[:-1]  # the last is empty, or cut short by a kill
        for line in lines:
            kind, *rest = line.split() or [""]
            if kind == "E":
                encoded[rest[0]] = (rest[1], int(rest[2]))
            elif kind == "F":
                forgotten.update(rest)
            elif kind == "F?":
                in_flight.update(rest)
            elif kind == "O":
                opens.append(float(rest[0]))
    return encoded, forgotten, in_flight - forgotten, opens


def check(path: str, encoded: dict, forgotten: set[str], in_flight: set[str], sample: int) -> dict:
    """Open in this process and look every logged memory up, and a sample of them by word and by vector."""
    started = time.perf_counter()
    brain = _open(path)
    opened = time.perf_counter() - started
    indexes = [i for i in (brain._storage.keyword_index, brain._storage.vector_index) if i is not None]
    while any(index.building() for index in indexes):  # a large rebuild runs in the background: the lookups below
        time.sleep(0.1)  # are of the indexes (the database answers meanwhile, exactly but slower)
    ready = time.perf_counter() - started
    kept = [i for i in encoded if i not in forgotten and i not in in_flight]
    stored = _stored(brain, kept)
    chosen = random.Random(0).sample(sorted(encoded), min(sample, len(encoded)))
    word_misses = vector_misses = resurfaced = 0
    for memory_id in chosen:
        word, seed = encoded[memory_id]
        by_word = {r.id for r in brain.recall(word, limit=5, mode="keyword")}
        by_vector = {r.id for r in brain.recall_by_vector(_vector(seed), limit=10)}
        if memory_id in forgotten:
            resurfaced += memory_id in by_word or memory_id in by_vector
        elif memory_id not in in_flight:
            word_misses += memory_id not in by_word
            vector_misses += memory_id not in by_vector
    still_there = len(_stored(brain, sorted(forgotten)))
    brain.close()
    return {
        "open_s": round(opened, 2),
        "ready_s": round(ready, 2),
        "lost": len(kept) - len(stored),
        "forgotten_still_stored": still_there,
        "sample": len(chosen),
        "keyword_misses": word_misses,
        "vector_misses": vector_misses,
        "forgotten_found": resurfaced,
    }


def _stored(brain, ids: list[str]) -> set[str]:
    """Which of ``ids`` the store holds, looked up 500 at a time."""
    return {m.id for start in range(0, len(ids), 500) for m in brain.get_many(ids[start : start + 500]) if m}


def snapshot_lag(path: str) -> dict[str, int]:
    """How far each index's saved state is behind its change log (read before any process opens the store, which
    would catch the indexes up)."""
    from audrey_core.index.folder import IndexFolder
    from audrey_core.storage.sqlite.connection import connect

    db = connect(path, vectors=False)
    heads = dict(db.execute("SELECT name, seq FROM sqlite_sequence").fetchall())
    db.close()
    lag = {}
    for kind, log in (("keyword", "search_changes"), ("vector", "vector_changes")):
        applied = IndexFolder(Path(f"{path}-indexes") / kind).read_state().get("applied", 0)
        lag[kind] = int(heads.get(log, 0)) - int(applied)
    return lag


def main(argv: list[str] | None = None) -> dict | None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=240)
    parser.add_argument("--writers", type=int, default=3)
    parser.add_argument("--readers", type=int, default=1)
    parser.add_argument("--kill-every", default="3,15", help="seconds between kills: MIN,MAX")
    parser.add_argument("--pause", type=float, default=0.2, help="seconds a writer sleeps per 100 memories")
    parser.add_argument("--sample", type=int, default=3000, help="memories looked up by word and vector")
    parser.add_argument(
        "--delete-indexes-every", type=int, default=0, help="delete the index folder every N-th kill (0: never)"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("--logs", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.store, args.role, Path(args.logs), args.pause)
        return None
    try:
        low, high = (float(x) for x in args.kill_every.split(","))
    except ValueError:
        parser.error(f"--kill-every takes MIN,MAX in seconds, got {args.kill_every!r}")
    if not 0 < low <= high or args.writers < 1 or args.readers < 0 or args.seconds <= 0:
        parser.error("need --writers >= 1, --readers >= 0, --seconds > 0 and --kill-every 0 < MIN <= MAX")
    if args.delete_indexes_every < 0:
        parser.error("--delete-indexes-every takes N >= 0 (0: never)")
    roles = [f"w{i}" for i in range(1, args.writers + 1)] + [f"r{i}" for i in range(1, args.readers + 1)]
    with tempfile.TemporaryDirectory(prefix="audrey-soak-") as folder:
        path, logs = str(Path(folder) / "soak.db"), Path(folder) / "logs"
        logs.mkdir()
        _open(path).close()  # created before the workers (creating it together is tested in test_many_writers)
        kills, failures, deletions = drive(
            path, logs, args.seconds, roles, (low, high), args.pause, args.delete_indexes_every
        )
        lines = [line for f in logs.glob("stderr.*") for line in f.read_text().splitlines()]
        tracebacks = _tracebacks(lines)
        fallbacks = sum(FALLBACK in line for line in lines)  # an index failed; its searches ran through the database
        rebuilds = sum(REBUILDING in line for line in lines)
        errors = sorted({line for line in lines if "Error" in line and FALLBACK not in line and REBUILDING not in line})
        lag = snapshot_lag(path)
        encoded, forgotten, in_flight, opens = read_logs(logs)
        after = check(path, encoded, forgotten, in_flight, args.sample)
        shutil.rmtree(f"{path}-indexes")
        rebuilt = check(path, encoded, forgotten, in_flight, args.sample)
    summary = {
        "benchmark": "soak",
        "seconds": args.seconds,
        "roles": roles,
        "pause": args.pause,
        "kills": kills,
        "index_folder_deletions": deletions,
        "workers_failed": failures,
        "errors": errors[:20],
        "index_failures": fallbacks,
        "index_rebuilds_logged": rebuilds,
        "encoded": len(encoded),
        "forgotten": len(forgotten),
        "worker_opens": len(opens),
        "worker_open_s_median": round(statistics.median(opens), 2) if opens else None,
        "worker_open_s_max": round(max(opens), 2) if opens else None,
        "snapshot_lag_at_end": lag,
        "after": after,
        "after_deleting_indexes": rebuilt,
    }
    print(
        f"{len(roles)} workers, {args.seconds:.0f} s, {kills} kills, {failures} failed by themselves, "
        f"index folder deleted {deletions} times under them"
    )
    print(f"index failures (searches sent to the database for a while): {fallbacks}; rebuilds logged: {rebuilds}")
    print(f"{len(encoded)} memories encoded, {len(forgotten)} forgotten; snapshots behind the log at the end: {lag}")
    print(
        f"worker opens: {len(opens)}, median {summary['worker_open_s_median']} s, max {summary['worker_open_s_max']} s"
    )
    for label, found in (("after the soak", after), ("after deleting the indexes", rebuilt)):
        print(
            f"{label}: opened in {found['open_s']} s, indexes ready in {found['ready_s']} s; lost {found['lost']}, "
            f"forgotten still stored "
            f"{found['forgotten_still_stored']}; of {found['sample']} looked up: keyword misses "
            f"{found['keyword_misses']}, vector misses {found['vector_misses']}, "
            f"forgotten found {found['forgotten_found']}"
        )
    for line in errors[:20]:
        print("error:", line)
    for lines in tracebacks[:3]:  # where a worker died, or a thread failed
        print("\n".join(lines))
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
