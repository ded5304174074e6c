"""Tenants: does one scope's volume slow another scope's recall?

    python -m benchmarks.scopes [--volumes 0,10000,100000] [--tenants 200] [--queries 200]

One agent; a large tenant ``("user", "big")`` holding ``volume`` memories beside ``tenants`` small tenants of 10
memories each. Times recall of one small tenant (vector and hybrid, exact scope and the tenant's subtree), recall of
the large tenant, and reports the file size. Queries are vectors (no model); 384 dimensions; a real SQLite file.
Prints a table and a final JSON line. Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np

from audrey_core import Audrey

from .synthetic import RandomEmbedder, sentence
from .timing import percentile, timings_ms

SMALL = ("user", "small-7")


def fill(brain: Audrey, volume: int, tenants: int) -> None:
    rng = np.random.default_rng(volume)
    for first in range(0, volume, 2000):
        count = min(2000, volume - first)
        brain.encode_batch([{"content": sentence(rng, 12), "scope": ("user", "big")} for _ in range(count)])
    for tenant in range(tenants):
        brain.encode_batch([{"content": sentence(rng, 12), "scope": ("user", f"small-{tenant}")} for _ in range(10)])
    brain.wait_for_idle()  # validation of the new episodes runs in the background; time recall on a settled store


def timed(call, vectors, texts) -> float:
    """p50 ms of ``call(vector, text)`` over the queries, after 5 warm-up calls."""
    return percentile(timings_ms(lambda q: call(*q), list(zip(vectors, texts)), warm=5), 50)


def measure(volume: int, tenants: int, queries: int, folder: Path) -> dict:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((queries, 384)).astype(np.float32)
    texts = [sentence(rng, 4) for _ in range(queries)]
    path = folder / f"scopes-{volume}.db"
    with Audrey(path, embedder=RandomEmbedder()) as brain:
        fill(brain, volume, tenants)
        row = {
            "volume": volume,
            "tenants": tenants,
            "small_vector_p50_ms": timed(lambda v, t: brain.recall_by_vector(v, scope=SMALL), vectors, texts),
            "small_subtree_p50_ms": timed(lambda v, t: brain.recall_by_vector(v, scope_prefix=SMALL), vectors, texts),
            "small_hybrid_p50_ms": timed(lambda v, t: brain.recall(t, query_vector=v, scope=SMALL), vectors, texts),
            "big_vector_p50_ms": timed(lambda v, t: brain.recall_by_vector(v, scope=("user", "big")), vectors, texts),
        }
    row["file_mb"] = sum(p.stat().st_size for p in folder.glob(f"scopes-{volume}.db*")) / 1e6
    return row


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--volumes", default="0,10000,100000")
    parser.add_argument("--tenants", type=int, default=200)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="audrey-bench-") as tmp:
        rows = [measure(int(v), args.tenants, args.queries, Path(tmp)) for v in args.volumes.split(",") if v]
    print(f"Recall p50 (ms) of one 10-memory tenant beside a large tenant; {args.tenants} small tenants")
    print(
        f"{'large tenant':>13}{'small vector':>14}{'small subtree':>15}{'small hybrid':>14}"
        f"{'large vector':>14}{'file MB':>9}"
    )
    for r in rows:
        print(
            f"{r['volume']:>13}{r['small_vector_p50_ms']:>14.2f}{r['small_subtree_p50_ms']:>15.2f}"
            f"{r['small_hybrid_p50_ms']:>14.2f}{r['big_vector_p50_ms']:>14.2f}{r['file_mb']:>9.1f}"
        )
    result = {"benchmark": "scopes", "rows": rows}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
