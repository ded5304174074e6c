"""Batch embedding through each local runtime: texts per second for short conversation turns and for long texts that
Audrey chunks, the same model (all-MiniLM-L6-v2) through ONNX Runtime and through sentence-transformers.

    python -m benchmarks.embedding_speed [--short 2000] [--long 100] [--rounds 3]

Short: LoCoMo turns, embedded 500 a call (as ``encode_batch`` hands them over). Long: texts of ~30 corpus sentences
each (~600 tokens), stored through ``encode_batch`` into an in-memory store, so Audrey's chunking (token windows of the
model) is in the time; the chunks per second are printed too. Rounds alternate the runtimes; medians are reported.
Prints a table and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from audrey_core import Audrey, OnnxEmbedder, SentenceTransformerEmbedder
from audrey_core.providers.embedding import chunk_spans

from .corpus import LOCOMO, embedded_corpus
from .locomo import load

SENTENCES_PER_LONG_TEXT = 30


def short_rate(embedder, turns: list[str]) -> float:
    start = time.perf_counter()
    for first in range(0, len(turns), 500):
        embedder.embed(turns[first : first + 500])
    return len(turns) / (time.perf_counter() - start)


def long_rate(embedder, texts: list[str]) -> tuple[float, float]:
    """(texts/s, chunks/s) until encode_batch returns (validation follows on its thread, untimed)."""
    with Audrey(":memory:", embedder=embedder) as brain:
        start = time.perf_counter()
        brain.encode_batch(texts)
        seconds = time.perf_counter() - start
    chunks = sum(len(chunk_spans(embedder, text)) for text in texts)
    return len(texts) / seconds, chunks / seconds


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--short", type=int, default=2000, help="conversation turns")
    parser.add_argument("--long", type=int, default=100, help="long texts")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    turns = [t.text for c in load(LOCOMO) for t in c.turns][: args.short]
    sentences = embedded_corpus(99_000)[0]
    step = SENTENCES_PER_LONG_TEXT
    long_texts = [" ".join(sentences[i * step : (i + 1) * step]) for i in range(args.long)]
    runtimes = {"onnx": OnnxEmbedder(), "sentence-transformers": SentenceTransformerEmbedder()}
    for embedder in runtimes.values():
        embedder.embed(["warm up: load the model outside the timing"])
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in runtimes}
    for round_ in range(args.rounds):
        for name in list(runtimes)[:: 1 if round_ % 2 == 0 else -1]:
            embedder = runtimes[name]
            runs[name].append((short_rate(embedder, turns), *long_rate(embedder, long_texts)))
    rows = {
        name: {
            "short_per_s": statistics.median(r[0] for r in values),
            "long_per_s": statistics.median(r[1] for r in values),
            "long_chunks_per_s": statistics.median(r[2] for r in values),
        }
        for name, values in runs.items()
    }
    print(f"Texts per second, medians of {args.rounds} rounds", end=" ")
    print(f"({len(turns):,} short turns; {len(long_texts)} long texts)")
    print(f"{'runtime':<24}{'short':>10}{'long':>10}{'chunks':>10}")
    for name, row in rows.items():
        print(f"{name:<24}{row['short_per_s']:>10.0f}{row['long_per_s']:>10.1f}{row['long_chunks_per_s']:>10.1f}")
    result = {"benchmark": "embedding_speed", "rows": rows, "runs": runs}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
