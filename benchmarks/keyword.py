"""Keyword search at scale: the tantivy index against SQLite FTS5 on the same store, in the same run.

    python -m benchmarks.keyword [--sizes 10000,100000] [--queries 300]

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
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from audrey_core import Audrey
from audrey_core.ids import new_ulid
from audrey_core.keywords import query_terms
from audrey_core.models import Episode
from audrey_core.storage import VectorFilter

from .locomo import load
from .speed import RandomEmbedder
from .timing import timings_ms

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"


def store(brain: Audrey, texts: list[str]) -> None:
    now = datetime.now(timezone.utc)
    rng = np.random.default_rng(len(texts))
    for first in range(0, len(texts), 5000):
        batch = texts[first : first + 5000]
        episodes = [
            Episode(id=new_ulid(now), agent=brain.agent, content=t, source="told-by-user", source_reliability=0.9,
                    created_at=now)
            for t in batch
        ]  # fmt: skip
        vectors = rng.standard_normal((len(batch), 384)).astype(np.float32)
        brain.storage.insert_memories(episodes, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))


def median_ms(call, items) -> float:
    return statistics.median(timings_ms(call, items))


def measure(size: int, turns: list[str], questions: list[str], folder: Path) -> dict:
    path = folder / f"keyword-{size}.db"
    with Audrey(path, agent="bench", embedder=RandomEmbedder()) as brain:
        store(brain, [f"{turns[i % len(turns)]} ({i})" for i in range(size)])
        storage, index = brain.storage, brain.storage.keyword_index
        start = time.perf_counter()
        index.ensure_fresh()  # catches up every row stored above
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--data", default=str(DATA))
    args = parser.parse_args()
    conversations = load(args.data)
    turns = [t.text for c in conversations for t in c.turns]
    questions = [q.question for c in conversations for q in c.questions][: args.queries]
    with tempfile.TemporaryDirectory(prefix="audrey-keyword-") as tmp:
        rows = [measure(int(s), turns, questions, Path(tmp)) for s in args.sizes.split(",")]
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
    print(json.dumps({"benchmark": "keyword", "results": rows}))


if __name__ == "__main__":
    main()
