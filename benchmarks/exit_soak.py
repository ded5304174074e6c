"""Exit soak: a fresh interpreter encodes and exits without ``close()``, as most scripts do, many times over.

    python -m benchmarks.exit_soak [--runs 50] [--memories 20000] [--extra 20] [--timeout 300]

Each run: ``Audrey(path, embedder=DeterministicEmbedder(64))``, ``encode_batch`` of ``--memories`` memories,
``--extra`` single encodes, end of script (validation, graph inserts and snapshot saves still under way). Counts
exit codes (134 is SIGABRT: a thread inside native code at finalisation), runs still alive after ``--timeout``
seconds (hangs), and checks each store afterwards: every memory stored. Prints each run, the totals, the median time
to exit and a JSON line; not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import sys
from audrey_core import Audrey
from audrey_core.testing import DeterministicEmbedder
path, memories, extra = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
brain = Audrey(path, embedder=DeterministicEmbedder(64))
brain.encode_batch([f"memory number {i} about topic {i % 97} and thing {i % 13}" for i in range(memories)])
for i in range(extra):
    brain.encode(f"extra {i}")
print(brain._background.validator.pending, flush=True)
"""


def stored(path: Path) -> int:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # plain tables: no extension needed
    try:
        return int(connection.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--extra", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    aborts = hangs = other = lost = 0
    exit_times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="audrey-exit-soak-") as folder:
        for run in range(args.runs):
            path = Path(folder) / f"run{run}.db"
            command = [sys.executable, "-c", CHILD, str(path), str(args.memories), str(args.extra)]
            began = time.perf_counter()
            try:
                result = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                hangs += 1
                print(f"run {run}: still running after {args.timeout:.0f} s (hang)")
                continue
            took = time.perf_counter() - began
            exit_times.append(took)
            code = result.returncode
            aborts += code in (134, -6)
            other += code not in (0, 134, -6)
            count = stored(path)
            lost += count != args.memories + args.extra
            pending = result.stdout.split()[-1] if result.stdout.split() else "?"
            print(f"run {run}: exit {code} in {took:.1f} s, {count} stored, {pending} left to validate")
            if code != 0:
                print(result.stderr[-500:])
            for leftover in Path(folder).glob(f"run{run}.db*"):  # keep the disk small over 50 runs
                subprocess.run(["rm", "-rf", str(leftover)], check=False)
    median = statistics.median(exit_times) if exit_times else float("nan")
    print(f"{args.runs} runs: {aborts} aborts, {hangs} hangs, {other} other failures, {lost} stores short")
    print(f"median time from start to exit: {median:.1f} s")
    figures = {
        "benchmark": "exit_soak",
        "runs": args.runs,
        "memories": args.memories,
        "aborts": aborts,
        "hangs": hangs,
        "other_failures": other,
        "stores_short": lost,
        "median_run_s": round(median, 2),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
