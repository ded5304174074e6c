"""Two processes on one SQLite file: what one agent's recalls meet while another writes, and while an index's writer
lock is held elsewhere (as a rebuild holds it, for minutes at 1M rows).

    python -m benchmarks.two_processes [--size 20000] [--encode 40000] [--batch 500] [--hold 8]

First a store of ``--size`` real corpus sentences (their all-MiniLM-L6-v2 vectors supplied: see ``benchmarks.scale``),
validated and indexed, then closed. Then:

1. **beside a writer**: another process encodes ``--encode`` more, ``encode_batch`` of ``--batch`` at a time, while
   this one recalls LoCoMo's questions by text (hybrid, query vectors supplied) back to back until it is done;
2. **beside a held writer lock**: a third process holds both indexes' writer locks for ``--hold`` seconds while this
   one encodes a memory and at once recalls it, again and again (before, a recall after its own write caught the
   keyword index up, and waited for the lock).

Reported for each: recall p50 / p95 / p99 / worst in ms, and how many recalls; for the second, whether every recall
found the memory just written. Prints a table and a JSON line; not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from audrey_core import Audrey

from .scale import CorpusEmbedder, memories, queries
from .timing import percentile

ROOT = Path(__file__).resolve().parents[1]

WRITER = """
import sys
sys.path.insert(0, {root!r})
from audrey_core import Audrey
from benchmarks.scale import CorpusEmbedder, memories
path, first, count, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
texts, vectors = memories(first + count)
with Audrey(path, embedder=CorpusEmbedder()) as brain:
    print("ready", flush=True)
    for at in range(first, first + count, batch):
        brain.encode_batch(texts[at : at + batch], vectors=vectors[at : at + batch])
print("done", flush=True)
"""

HOLDER = """
import fcntl, sys, time
handles = []
for folder in sys.argv[2:]:
    handle = open(folder + "/writer.lock", "a+b")
    fcntl.flock(handle, fcntl.LOCK_EX)
    handles.append(handle)
print("held", flush=True)
time.sleep(float(sys.argv[1]))
"""


def figures(times: list[float]) -> dict:
    return {
        "recalls": len(times),
        "p50_ms": statistics.median(times),
        "p95_ms": percentile(times, 95),
        "p99_ms": percentile(times, 99),
        "max_ms": max(times),
    }


def build(path: Path, size: int) -> None:
    texts, vectors = memories(size)
    with Audrey(path, embedder=CorpusEmbedder()) as brain:
        for at in range(0, size, 5000):
            brain.encode_batch(texts[at : at + 5000], vectors=vectors[at : at + 5000])
        brain.wait_for_idle()


def beside_a_writer(path: Path, size: int, count: int, batch: int, asked: list[tuple[str, np.ndarray]]) -> dict:
    script = WRITER.format(root=str(ROOT))
    writer = subprocess.Popen(
        [sys.executable, "-c", script, str(path), str(size), str(count), str(batch)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    times: list[float] = []
    with Audrey(path, embedder=CorpusEmbedder()) as brain:
        assert writer.stdout.readline().strip() == "ready"
        began = time.perf_counter()
        while writer.poll() is None:
            text, vector = asked[len(times) % len(asked)]
            start = time.perf_counter()
            brain.recall(text, limit=10, query_vector=vector)
            times.append((time.perf_counter() - start) * 1000)
        took = time.perf_counter() - began
    if writer.returncode != 0:
        raise RuntimeError(f"the writer process failed ({writer.returncode})")
    return {**figures(times), "writer_s": took, "writer_per_s": count / took}


def beside_a_held_lock(path: Path, hold: float) -> dict:
    folders = [str(Path(f"{path}-indexes") / kind) for kind in ("keyword", "vector")]
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(hold), *folders], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    times: list[float] = []
    found = 0
    rng = np.random.default_rng(7)
    with Audrey(path, embedder=CorpusEmbedder()) as brain:
        assert holder.stdout.readline().strip() == "held"
        while holder.poll() is None:
            vector = rng.standard_normal(384).astype(np.float32)
            vector /= np.linalg.norm(vector)
            word = f"okapi{len(times)}"
            memory_id = brain.encode_batch([f"the {word} enclosure needs a new gate"], vectors=vector[None, :])[0]
            start = time.perf_counter()
            results = brain.recall(f"{word} enclosure gate", limit=5, query_vector=vector)
            times.append((time.perf_counter() - start) * 1000)
            found += any(r.id == memory_id for r in results)
    return {**figures(times), "found_own_write": found}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=20_000)
    parser.add_argument("--encode", type=int, default=40_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--hold", type=float, default=8.0)
    args = parser.parse_args(argv)
    qtexts, qvectors = queries(200)
    asked = list(zip(qtexts, qvectors))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "shared.db"
        build(path, args.size)
        writer = beside_a_writer(path, args.size, args.encode, args.batch, asked)
        held = beside_a_held_lock(path, args.hold)
    print(f"store of {args.size:,}; another process encodes {args.encode:,} ({args.batch} a call); then a third holds")
    print(f"both indexes' writer locks for {args.hold:.0f} s while this one encodes and recalls; times in ms")
    print(f"{'':<28}{'recalls':>8}{'p50':>8}{'p95':>8}{'p99':>8}{'worst':>8}")
    for label, row in (("beside a writer", writer), ("beside a held writer lock", held)):
        print(
            f"{label:<28}{row['recalls']:>8}{row['p50_ms']:>8.2f}{row['p95_ms']:>8.2f}{row['p99_ms']:>8.2f}"
            f"{row['max_ms']:>8.1f}"
        )
    print(f"writer: {writer['writer_per_s']:.0f}/s; own write found right after: {held['found_own_write']} of "
          f"{held['recalls']}")  # fmt: skip
    result = {"benchmark": "two_processes", **vars(args), "beside_writer": writer, "beside_held_lock": held}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
