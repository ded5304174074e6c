"""Recall by text end to end, query embedding included, against a hand-written baseline measured interleaved in the
same run: sentence-transformers embeds the question and numpy scans the same vectors exactly (what a user could
write in ten lines instead of using Audrey). Used by ``benchmarks.speed``; runs alone too:

    python -m benchmarks.text_recall [--size 10000] [--queries 200]

The store holds ``--size`` corpus sentences with their all-MiniLM-L6-v2 vectors (``benchmarks.scale``), settled by
``wait_for_idle()``. Each LoCoMo question is asked once of each (a question never repeats: the query cache would
answer it), in blocks of ten taking turns, the order rotating. Reported: the default local embedder's query
embedding alone, Audrey's recall by text with it and with sentence-transformers, the baseline, and the ratio of
medians. Prints a JSON line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from audrey_core import Audrey, SentenceTransformerEmbedder, local_embedder
from audrey_core.providers.local_models import packaged_model_path

from .corpus import LOCOMO
from .locomo import load
from .scale import CorpusEmbedder, memories, populate
from .timing import percentile

WARM = 20  # questions asked first, untimed (loads, caches, the graph's pages)
# Questions each contender answers before the next takes over. One question each in turn put both models' thread
# pools in each other's way (ONNX Runtime's threads spin briefly after a run, torch's too): 5.5 and 33 ms a query
# embedding instead of 2.6 and 7.
BLOCK = 10
# The baseline scans with one BLAS thread: after a torch forward pass, torch's OpenMP threads still spin, and numpy's
# OpenBLAS threads beside them made each scan take ~80 ms on two cores (a query 88 ms instead of 8).


def baseline(texts: list[str], vectors: np.ndarray):
    """The hand-written recall: a SentenceTransformer and an exact scan; returns the ten nearest texts."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(packaged_model_path("all-MiniLM-L6-v2"), device="cpu")

    def recall(question: str) -> list[str]:
        query = model.encode([question], normalize_embeddings=True)[0]
        top = np.argpartition(-(vectors @ query), 10)[:10]
        return [texts[i] for i in top[np.argsort(-(vectors[top] @ query))]]

    return recall


def measure(size: int, query_count: int, folder: Path) -> dict:
    texts, vectors = memories(size)
    questions = [q.question for c in load(LOCOMO) for q in c.questions][: query_count + WARM]
    path = folder / f"text-{size}.db"
    with Audrey(path, embedder=CorpusEmbedder()) as brain:
        populate(brain, texts, vectors)
        brain.wait_for_idle()
    default, st = local_embedder(), SentenceTransformerEmbedder()
    by_hand = baseline(texts, vectors)
    times: dict[str, list[float]] = {"embed": [], "audrey": [], "audrey_st": [], "baseline": []}
    with Audrey(path, embedder=default) as fast, Audrey(path, embedder=st) as slow:
        fast.wait_for_idle()
        calls = {
            "embed": lambda q: default.embed([q + " ?"]),  # not the recall's text: its query cache stays cold
            "audrey": lambda q: fast.recall(q, limit=10),
            "audrey_st": lambda q: slow.recall(q, limit=10),
            "baseline": by_hand,
        }
        for call in calls.values():  # untimed: loads, caches, the graph's pages
            for question in questions[:WARM]:
                call(question)
        timed = questions[WARM:]
        for first in range(0, len(timed), BLOCK):  # in turn, a block each: see BLOCK
            block = timed[first : first + BLOCK]
            for name in list(calls)[(first // BLOCK) % len(calls) :] + list(calls)[: (first // BLOCK) % len(calls)]:
                with threadpool_limits(1, "blas") if name == "baseline" else contextlib.nullcontext():
                    for question in block:
                        start = time.perf_counter()
                        calls[name](question)
                        times[name].append((time.perf_counter() - start) * 1000)
    row = {"memories": size, "embedder": type(default).__name__}
    for name, values in times.items():
        row[f"{name}_p50_ms"] = statistics.median(values)
        row[f"{name}_p95_ms"] = percentile(values, 95)
    row["audrey_over_baseline"] = row["audrey_p50_ms"] / row["baseline_p50_ms"]
    return row


def report(row: dict) -> None:
    print(f"\nRecall by text end to end, query embedding included ({row['memories']:,} memories; p50 / p95 ms,")
    print("every question new to the query cache; the baseline: sentence-transformers + an exact numpy scan)")
    for name, label in (
        ("embed", f"query embedding ({row['embedder']})"),
        ("audrey", f"Audrey.recall ({row['embedder']})"),
        ("audrey_st", "Audrey.recall (SentenceTransformerEmbedder)"),
        ("baseline", "hand-written baseline"),
    ):
        print(f"  {label:48s}{row[name + '_p50_ms']:>8.2f}{row[name + '_p95_ms']:>8.2f}")
    print(f"  Audrey / baseline (medians, same run): {row['audrey_over_baseline']:.2f}")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="audrey-text-") as tmp:
        row = measure(args.size, args.queries, Path(tmp))
    report(row)
    print(json.dumps({"benchmark": "text_recall", **row}))
    return row


if __name__ == "__main__":
    main()
