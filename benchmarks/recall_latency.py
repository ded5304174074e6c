"""Recall latency of one checkout against another, on the same data in the same run of the machine.

    python -m benchmarks.recall_latency [--code PATH] [--memories 5000] [--queries 300]

Stores LoCoMo turns (repeated with a distinguishing suffix to reach ``--memories``) with deterministic vectors,
then times ``recall(question, limit=10, query_vector=...)`` for LoCoMo questions: the query embedding is excluded,
the ranking, filtering, provenance and reinforcement are not. ``--code`` imports ``audrey_core`` from another
checkout (``git worktree add /tmp/before COMMIT``), so two commits can be compared in alternating runs. Prints the
median and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", help="a checkout whose audrey_core to time (default: this one)")
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--data", default=str(DATA))
    args = parser.parse_args()
    from .locomo import load  # before --code changes what "audrey_core" means, never what "benchmarks" means

    if args.code:
        sys.path.insert(0, str(Path(args.code).resolve()))
    from audrey_core import Audrey
    from audrey_core.testing import DeterministicEmbedder

    conversations = load(args.data)
    turns = [t.text for c in conversations for t in c.turns]
    questions = [q.question for c in conversations for q in c.questions][: args.queries]
    texts = [f"{turns[i % len(turns)]} ({i})" for i in range(args.memories)]
    embedder = DeterministicEmbedder()
    with (
        tempfile.TemporaryDirectory() as folder,
        Audrey(Path(folder) / "a.db", agent="bench", embedder=embedder) as brain,
    ):
        for start in range(0, len(texts), 500):
            brain.encode_batch(texts[start : start + 500])
        brain.wait_for_idle()
        vectors = [embedder.embed([q])[0] for q in questions]
        for question, vector in zip(questions[:20], vectors):  # warm caches
            brain.recall(question, limit=10, query_vector=vector)
        times = []
        for question, vector in zip(questions, vectors):
            start = time.perf_counter()
            brain.recall(question, limit=10, query_vector=vector)
            times.append(1000 * (time.perf_counter() - start))
    source = str(Path(sys.modules["audrey_core"].__file__).parent.parent)
    p50 = statistics.median(times)
    print(f"{source}: {len(texts)} memories, {len(questions)} queries, recall p50 {p50:.3f} ms")
    print(json.dumps({"benchmark": "recall_latency", "code": source, "memories": len(texts), "recall_ms_p50": p50}))


if __name__ == "__main__":
    main()
