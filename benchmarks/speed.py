"""Speed of the core engine: encode throughput and recall latency at 1k / 10k / 100k memories.

    python -m benchmarks.speed [--sizes 1000,10000,100000] [--queries 200] [--skip-local]

Recall latency excludes embedding the query (queries are vectors, through ``recall_by_vector``). Memories are
384-dimensional; the store is a real SQLite file in a temporary folder. Prints a table, a breakdown of where recall
time goes, and a final JSON line. Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from audrey_core import Audrey
from audrey_core.config import SOURCES
from audrey_core.recall import check_options, pool_size, score_hits
from audrey_core.testing import DeterministicEmbedder

DIMENSIONS = 384


class RandomEmbedder:
    """Seeded random unit vectors: free to compute, so population measures storage, not a model."""

    model_name = "random-384"
    dimensions = DIMENSIONS

    def embed(self, texts):
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out[i] = np.random.default_rng(seed).standard_normal(DIMENSIONS)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def timings_ms(call, items, warm: int = 0) -> list[float]:
    """Milliseconds of ``call(item)`` for each item, after ``warm`` untimed calls on the first items."""
    for item in items[:warm]:
        call(item)
    times = []
    for item in items:
        start = time.perf_counter()
        call(item)
        times.append((time.perf_counter() - start) * 1000)
    return times


def encode_throughput(embedder, label: str, single: int, batch: int, folder: Path) -> dict:
    """Episodes per second for ``single`` encode() calls and for encode_batch of ``batch`` items."""
    with Audrey(folder / f"encode-{label}.db", embedder=embedder) as brain:
        brain.encode("warm-up")  # loads a model, if any, outside the timing
        start = time.perf_counter()
        for i in range(single):
            brain.encode(f"single observation number {i} about topic {i % 17}", source=SOURCES[i % 5])
        single_rate = single / (time.perf_counter() - start)
        items = [{"content": f"batched observation {i} on topic {i % 23}", "tags": ["bench"]} for i in range(batch)]
        start = time.perf_counter()
        for first in range(0, batch, 500):
            brain.encode_batch(items[first : first + 500])
        batch_rate = batch / (time.perf_counter() - start)
    return {"embedder": label, "single_per_s": single_rate, "batch_per_s": batch_rate}


VOCABULARY = [f"w{i}" for i in range(5000)]  # Zipf-distributed words, so full-text postings look like real text


def sentence(rng: np.random.Generator, words: int) -> str:
    ranks = np.minimum(rng.zipf(1.3, size=words), len(VOCABULARY)) - 1
    return " ".join(VOCABULARY[r] for r in ranks)


def populate(brain: Audrey, count: int) -> None:
    rng = np.random.default_rng(count)
    chunk = 2000
    for first in range(0, count, chunk):
        brain.encode_batch(
            [
                {"content": sentence(rng, 12), "source": SOURCES[i % 5], "salience": (i % 10) / 10}
                for i in range(first, min(count, first + chunk))
            ]
        )


def recall_latency(size: int, queries: int, limit: int, folder: Path) -> dict:
    """p50 / p95 of recall_by_vector over ``queries`` random queries, with a breakdown of the median query."""
    rng = np.random.default_rng(size)
    vectors = rng.standard_normal((queries, DIMENSIONS)).astype(np.float32)
    with Audrey(folder / f"recall-{size}.db", embedder=RandomEmbedder()) as brain:
        start = time.perf_counter()
        populate(brain, size)
        brain.wait_for_idle()  # validation runs in the background; time recall on a settled store
        populate_s = time.perf_counter() - start
        timings = timings_ms(lambda v: brain.recall_by_vector(v, limit=limit), vectors, warm=5)  # warm the cache
        queries = [sentence(rng, 4) for _ in vectors]
        hybrid = timings_ms(lambda q: brain.recall(q[0], limit=limit, query_vector=q[1]), list(zip(queries, vectors)))
        # Where the time goes: the KNN query alone, then fetching + scoring its candidates.
        options = check_options(agent=brain.agent, limit=limit)
        k = pool_size(options, brain.config.recall)
        knn_ms, score_ms = [], []
        for v in vectors:
            start = time.perf_counter()
            hits = brain.storage.knn(v, k, options.where)
            middle = time.perf_counter()
            score_hits(brain.storage, hits, 0.0, brain.clock(), brain.config.confidence)
            knn_ms.append((middle - start) * 1000)
            score_ms.append((time.perf_counter() - middle) * 1000)
        file_mb = sum(p.stat().st_size for p in folder.glob(f"recall-{size}.db*")) / 1e6
    return {
        "memories": size,
        "p50_ms": percentile(timings, 50),
        "p95_ms": percentile(timings, 95),
        "hybrid_p50_ms": percentile(hybrid, 50),
        "hybrid_p95_ms": percentile(hybrid, 95),
        "knn_p50_ms": statistics.median(knn_ms),
        "fetch_score_p50_ms": statistics.median(score_ms),
        "candidates": k,
        "populate_s": populate_s,
        "file_mb": file_mb,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--skip-local", action="store_true", help="skip the local sentence-transformers model")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]

    with tempfile.TemporaryDirectory(prefix="audrey-bench-") as tmp:
        folder = Path(tmp)
        encodes = [encode_throughput(DeterministicEmbedder(), "deterministic", 500, 5000, folder)]
        if not args.skip_local:
            from audrey_core import SentenceTransformerEmbedder

            encodes.append(encode_throughput(SentenceTransformerEmbedder(), "all-MiniLM-L6-v2", 100, 1000, folder))
        recalls = [recall_latency(size, args.queries, args.limit, folder) for size in sizes]

    print("Encode throughput (episodes/s, real SQLite file)")
    print(f"{'embedder':<20}{'single':>10}{'batch':>10}")
    for row in encodes:
        print(f"{row['embedder']:<20}{row['single_per_s']:>10.0f}{row['batch_per_s']:>10.0f}")
    print(f"\nRecall latency, limit {args.limit}, excluding the query embedding ({args.queries} queries each);")
    print("p50 / p95 are vector recall, hybrid adds full-text search and fusion (4-word queries, 12-word memories)")
    header = f"{'memories':>10}{'p50 ms':>9}{'p95 ms':>9}{'knn p50':>9}{'fetch+score':>13}{'k':>5}"
    print(header + f"{'populate s':>12}{'file MB':>9}{'hybrid p50':>12}{'hybrid p95':>12}")
    for row in recalls:
        print(
            f"{row['memories']:>10}{row['p50_ms']:>9.2f}{row['p95_ms']:>9.2f}{row['knn_p50_ms']:>9.2f}"
            f"{row['fetch_score_p50_ms']:>13.2f}{row['candidates']:>5}{row['populate_s']:>12.1f}{row['file_mb']:>9.1f}"
            f"{row['hybrid_p50_ms']:>12.2f}{row['hybrid_p95_ms']:>12.2f}"
        )
    result = {"benchmark": "speed", "encode": encodes, "recall": recalls}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
