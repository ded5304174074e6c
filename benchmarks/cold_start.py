"""Cold start: a fresh process that opens a store and answers one recall by text, as a CLI call, an MCP server start or
a serverless agent does; beside a process that only imports sentence_transformers (what loading the model through
torch costs before any work), and one that answers through sentence-transformers.

    python -m benchmarks.cold_start [--size 10000] [--runs 5]

The store holds ``--size`` sentences of the benchmark corpus with their all-MiniLM-L6-v2 vectors (benchmarks.corpus;
built once in a temporary folder, indexes settled); each run is a new interpreter timed from its start to the recall's
result. The ONNX runs need the model's ONNX export in the cache (the first local embedding makes it; this benchmark
makes it before timing). Prints each kind's median and range, the ratio of medians, and a JSON line.
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

from .scale import CorpusEmbedder, indexes_built, memories, populate

RECALL = (
    "import sys, time; start = time.perf_counter(); import audrey_core; "
    "brain = audrey_core.Audrey({path!r}{embedder}); hit = brain.recall('what did the user say about rate limits?'); "
    "print(type(brain.embedder).__name__, file=sys.stderr); print(time.perf_counter() - start, 'torch' in sys.modules)"
)
IMPORT_ONLY = (
    "import time; start = time.perf_counter(); import sentence_transformers; print(time.perf_counter() - start, True)"
)


def timed(script: str) -> tuple[float, float, bool]:
    """(seconds from launching the interpreter to its answer, seconds it measured inside, torch imported)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"a run failed: {done.stderr[-2000:]}")
    inside, torch = done.stdout.split()[-2:]
    return wall, float(inside), torch == "True"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    from audrey_core import Audrey, OnnxEmbedder

    OnnxEmbedder().embed(["export the model once, if it is not cached yet"])
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "cold.db")
        texts, vectors = memories(args.size)
        with Audrey(path, embedder=CorpusEmbedder()) as brain:
            populate(brain, texts, vectors)
            brain.recall("settle", query_vector=vectors[0])
            indexes_built(brain)
        kinds = {
            "default (onnx): open and recall": RECALL.format(embedder="", path=path),
            "sentence-transformers: open and recall": RECALL.format(
                embedder=", embedder=audrey_core.SentenceTransformerEmbedder()", path=path
            ),
            "import sentence_transformers only": IMPORT_ONLY,
        }
        results: dict[str, list[tuple[float, float, bool]]] = {kind: [] for kind in kinds}
        for _ in range(args.runs):  # interleaved, so a slow moment of the machine touches every kind
            for kind, script in kinds.items():
                results[kind].append(timed(script))
    summary: dict = {"benchmark": "cold_start", "size": args.size, "runs": args.runs, "kinds": {}}
    print(f"a fresh process, {args.size:,} memories, {args.runs} runs each (seconds, wall clock from launch)")
    for kind, runs in results.items():
        walls = [w for w, _, _ in runs]
        row = {
            "median_s": round(statistics.median(walls), 3),
            "min_s": round(min(walls), 3),
            "max_s": round(max(walls), 3),
            "torch_imported": any(t for _, _, t in runs),
        }
        summary["kinds"][kind] = row
        span = f"({row['min_s']:.3f}-{row['max_s']:.3f})"
        print(f"  {kind:40s} median {row['median_s']:.3f}  {span}, torch imported: {row['torch_imported']}")
    onnx = summary["kinds"]["default (onnx): open and recall"]["median_s"]
    importing = summary["kinds"]["import sentence_transformers only"]["median_s"]
    summary["onnx_over_importing_st"] = round(onnx / importing, 3)
    print(f"onnx open-and-recall / importing sentence_transformers: {summary['onnx_over_importing_st']}")
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
