"""Search at scale: hybrid, vector-only and keyword-only recall by text query over stores of real sentences with
their real all-MiniLM-L6-v2 embeddings (``benchmarks.corpus``), with index build, catch-up and open times, memory and
disk per memory, and the share of the exact top 10 the vector search returns. Used by ``benchmarks.speed``.

Beyond the corpus (about 99k sentences), memories repeat its sentences with a distinguishing suffix, and their
vectors are the sentence's embedding plus a small random offset (cosine ~0.96 to it), so the store keeps real
neighbourhoods without identical vectors. Queries are LoCoMo's questions, embedded once; the query embedding is
excluded from every time. The store is populated through the encode stage without validation, whose throughput is
measured apart (``encode_rate``), so a million memories load in minutes.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import numpy as np

from audrey_core import Audrey
from audrey_core.index_settings import PENDING_MAX
from audrey_core.rules.arguments import request_from_item
from audrey_core.rules.recall_options import check_options
from audrey_core.stages.encode import encode

from .corpus import LOCOMO, cache_folder, embedded_corpus
from .locomo import load
from .timing import timings_ms

CORPUS = 99_000
CATCH_UP = 1_000  # changes another process writes, caught up by the measuring one (three rounds)
COPY_OFFSET = 0.3  # norm of the random offset added to a repeated sentence's unit vector


class CorpusEmbedder:
    """The store's identity is the real model's; every vector is supplied, so nothing is embedded here."""

    model_name = "all-MiniLM-L6-v2"
    dimensions = 384

    def embed(self, texts):
        raise RuntimeError("the scale benchmark supplies every vector")


def memories(size: int) -> tuple[list[str], np.ndarray]:
    """``size`` rows of the corpus's real sentences and their vectors, repeated past its end (:func:`repeated`)."""
    return repeated(*embedded_corpus(CORPUS), size)


def repeated(texts: list[str], vectors: np.ndarray, size: int) -> tuple[list[str], np.ndarray]:
    """``size`` rows of ``texts`` in order, then again from the first: row i is text ``i % len(texts)`` (with the
    round's suffix after the first) and that text's vector, offset by :data:`COPY_OFFSET` in a random direction
    after the first round, so no two rows share a vector."""
    rng = np.random.default_rng(size)
    out = np.tile(vectors, (-(-size // len(texts)), 1))[:size]
    noise = rng.standard_normal(out[len(texts) :].shape).astype(np.float32)
    out[len(texts) :] += COPY_OFFSET * noise / np.linalg.norm(noise, axis=1, keepdims=True)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    suffix = [("" if i < len(texts) else f" (#{i // len(texts)})") for i in range(size)]
    return [texts[i % len(texts)] + suffix[i] for i in range(size)], out


def queries(count: int) -> tuple[list[str], np.ndarray]:
    """LoCoMo questions and their embeddings (cached beside the corpus)."""
    texts = [q.question for c in load(LOCOMO) for q in c.questions][:count]
    path = cache_folder() / f"minilm-questions-{len(texts)}.npy"
    if not path.exists():
        from audrey_core import SentenceTransformerEmbedder

        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, np.asarray(SentenceTransformerEmbedder().embed(texts), dtype=np.float32))
    return texts, np.load(path)


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def disk_mb(path: Path) -> float:
    files = [p for p in path.parent.glob(path.name + "*") if p.is_file()]
    files += [p for p in path.parent.glob(path.name + "-indexes/**/*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 1e6


def populate(brain: Audrey, texts: list[str], vectors: np.ndarray, batch: int = 5000) -> tuple[float, list[str]]:
    """Memories per second through the encode stage (no validation), and their ids in order."""
    start = time.perf_counter()
    ids = []
    for first in range(0, len(texts), batch):
        requests = [request_from_item({"content": t}, i) for i, t in enumerate(texts[first : first + batch])]
        ids.extend(encode(brain._context, requests, vectors=vectors[first : first + batch], queued=False))
    return len(texts) / (time.perf_counter() - start), ids


def graph_settled(index) -> None:
    """Wait until the graph has taken the rows waiting beside it, all but fewer than PENDING_MAX (so few never start
    an insert: they wait, searched exactly, for more, so waiting for none of them could wait for ever)."""
    while index is not None and len(index.waiting) >= PENDING_MAX:
        time.sleep(0.01)


def indexes_built(brain: Audrey) -> None:
    """Wait until no index is being rebuilt in the background (searches go to the database until then)."""
    for index in (brain._storage.keyword_index, brain._storage.vector_index):
        while index is not None and index.building():
            time.sleep(0.05)


def graph_at_rest(index) -> None:
    """Wait until no background insert is under way: the rows caught up from another process have joined the graph
    (fewer than PENDING_MAX never start one: they stay beside it, searched exactly). Back-to-back recalls keep the
    insert away (it gives way to a run of searches), so rows caught up just before them wait through all of them."""
    while index is not None and index.inserting():
        time.sleep(0.01)


def encode_rate(folder: Path, size: int, burst: int = 5000, sustained: int = 20000, statements: int = 10000) -> dict:
    """encode_batch with supplied vectors into a store of ``size``: per second until encode returns, until
    ``wait_for_idle()`` returns (background validation done and, since it waits for the indexes too, every new row
    in the graph), and until the graph has taken in the new rows (:func:`graph_settled`; rows wait beside it,
    searched exactly, until then). For a burst of ``burst`` memories; once the graph has taken
    them in, for a longer run of ``sustained``; then for ``statements`` short one-statement texts (with the corpus's
    vectors), which validation compares with their nearest memories of every type (a graph search or two each),
    where a conversation turn is compared with principles only."""
    texts, vectors = memories(size + burst + sustained + statements)
    texts = texts[: size + burst + sustained] + [f"Order {i} shipped on day {i % 97}." for i in range(statements)]
    path = folder / f"encode-{size}.db"
    row: dict = {"memories": size}
    with Audrey(path, embedder=CorpusEmbedder()) as brain:
        populate(brain, texts[:size], vectors[:size])
        brain.recall_by_vector(vectors[0], limit=1)  # a bulk load: the indexes are rebuilt in the background
        indexes_built(brain)  # the steady state is timed (searches meanwhile go to the database)
        first = size
        index = brain._storage.vector_index
        for name, count in (("", burst), ("sustained_", sustained), ("statements_", statements)):
            graph_settled(index)  # the previous run's rows in the graph first
            start = time.perf_counter()
            for at in range(first, first + count, 500):
                brain.encode_batch(texts[at : at + 500], vectors=vectors[at : at + 500])
            returned = time.perf_counter() - start
            brain.wait_for_idle()
            validated = time.perf_counter() - start
            waiting = len(index.waiting) if index is not None else 0
            graph_settled(index)
            indexed = time.perf_counter() - start
            row.update({f"{name}encode_per_s": count / returned, f"{name}validated_per_s": count / validated})
            row.update({f"{name}waiting_when_validated": waiting, f"{name}indexed_per_s": count / indexed})
            first += count
    return row


def measure(size: int, query_count: int, folder: Path) -> dict:
    texts, vectors = memories(size + 3 * CATCH_UP)  # the last ones are written by another handle, to be caught up
    qtexts, qvectors = queries(query_count)
    path = folder / f"scale-{size}.db"
    row: dict = {"memories": size}
    with Audrey(path, embedder=CorpusEmbedder()) as brain:
        row["populate_per_s"], ids = populate(brain, texts[:size], vectors[:size])
        for kind, index in (("keyword", brain._storage.keyword_index), ("vector", brain._storage.vector_index)):
            start = time.perf_counter()
            index.rebuild()
            row[f"{kind}_build_s"] = time.perf_counter() - start
    before = rss_mb()
    start = time.perf_counter()
    brain = Audrey(path, embedder=CorpusEmbedder())
    row["open_s"] = time.perf_counter() - start
    try:
        keyword_ms, vector_ms = [], []
        for first in range(size, size + 3 * CATCH_UP, CATCH_UP):  # three rounds: the median is reported
            with Audrey(path, embedder=CorpusEmbedder()) as other:
                ids += populate(other, texts[first : first + CATCH_UP], vectors[first : first + CATCH_UP])[1]
            for times, index in ((keyword_ms, brain._storage.keyword_index), (vector_ms, brain._storage.vector_index)):
                start = time.perf_counter()
                index.ensure_fresh()
                times.append((time.perf_counter() - start) * 1000)
        row["catch_up_1000_ms"] = statistics.median(k + v for k, v in zip(keyword_ms, vector_ms))
        row["catch_up_keyword_ms"], row["catch_up_vector_ms"] = keyword_ms, vector_ms
        pairs = list(zip(qtexts, qvectors))
        for _ in range(2):  # warm the caches
            timings_ms(lambda p: brain.recall(p[0], limit=10, query_vector=p[1]), pairs[:20])
        index = brain._storage.vector_index
        row["waiting_rows"] = len(index.waiting) if index is not None else 0
        waiting = timings_ms(lambda p: brain.recall(p[0], limit=10, query_vector=p[1]), pairs)
        graph_at_rest(index)
        hybrid = timings_ms(lambda p: brain.recall(p[0], limit=10, query_vector=p[1]), pairs)
        again = timings_ms(lambda p: brain.recall(p[0], limit=10, query_vector=p[1]), pairs)  # its pages now touched
        vector = timings_ms(lambda p: brain.recall_by_vector(p[1], limit=10), pairs)
        keyword = timings_ms(lambda p: brain.recall(p[0], limit=10, mode="keyword"), pairs)
        row["rss_mb_per_1k"] = (rss_mb() - before) / size * 1000
        where = check_options(agent=brain.agent, limit=10).where
        position = {memory_id: i for i, memory_id in enumerate(ids)}
        exact_ms, overlap = [], []
        for v in qvectors:
            start = time.perf_counter()
            top = np.argpartition(-(vectors @ v), 10)[:10]
            exact_ms.append((time.perf_counter() - start) * 1000)
            found = {position[h.memory_id] for h in brain._storage.knn(v, 10, where)}
            overlap.append(len(found & set(top.tolist())) / 10)
    finally:
        brain.close()
    row.update(
        {
            "waiting_p50_ms": statistics.median(waiting),
            "waiting_p95_ms": float(np.percentile(waiting, 95)),
            "hybrid_p50_ms": statistics.median(hybrid),
            "hybrid_p95_ms": float(np.percentile(hybrid, 95)),
            "hybrid_again_p50_ms": statistics.median(again),
            "hybrid_again_p95_ms": float(np.percentile(again, 95)),
            "vector_p50_ms": statistics.median(vector),
            "keyword_p50_ms": statistics.median(keyword),
            "numpy_exact_p50_ms": statistics.median(exact_ms),
            "exact_top10_recall": float(np.mean(overlap)),
            "disk_kb_per_memory": disk_mb(path) * 1000 / size,
        }
    )
    return row


def measure_postgres(size: int, query_count: int, server_url: str) -> dict:
    """The same workload on PostgreSQL + pgvector (HNSW; keyword candidates from the rarest terms first)."""
    from .postgres import analyze, drop_schema, fresh_schema, schema_mb

    texts, vectors = memories(size)
    qtexts, qvectors = queries(query_count)
    name = f"scale_{size}"
    url = fresh_schema(server_url, name)
    row: dict = {"memories": size, "backend": "postgres"}
    try:
        with Audrey(url, embedder=CorpusEmbedder()) as brain:
            row["populate_per_s"], _ = populate(brain, texts, vectors)
            analyze(brain)
            pairs = list(zip(qtexts, qvectors))
            timings_ms(lambda p: brain.recall(p[0], limit=10, query_vector=p[1]), pairs[:20])
            hybrid = timings_ms(lambda p: brain.recall(p[0], limit=10, query_vector=p[1]), pairs)
            vector = timings_ms(lambda p: brain.recall_by_vector(p[1], limit=10), pairs)
            keyword = timings_ms(lambda p: brain.recall(p[0], limit=10, mode="keyword"), pairs)
        row.update(
            {
                "hybrid_p50_ms": statistics.median(hybrid),
                "hybrid_p95_ms": float(np.percentile(hybrid, 95)),
                "vector_p50_ms": statistics.median(vector),
                "keyword_p50_ms": statistics.median(keyword),
                "disk_kb_per_memory": schema_mb(server_url, name)[0] * 1000 / size,
            }
        )
    finally:
        drop_schema(server_url, name)
    return row
