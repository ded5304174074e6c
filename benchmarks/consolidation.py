"""Consolidation at scale with a fake LLM: time and LLM calls for 1k and 10k episodes.

    python -m benchmarks.consolidation [--sizes 1000,10000] [--cluster-size 5]

Episodes come in topics of ``cluster-size`` paraphrases (pairwise similarity about 0.9, sources rotating so every
topic has independent evidence), embedded by a synthetic embedder so the figures measure Audrey, not a model. The
LLM is ``ScriptedLLM``, grouping by topic as a person would (``same_lesson``, 16 pairs a call) and extracting one
principle per qualifying cluster: every call is counted.
Prints a table and a final JSON line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from audrey_core import Audrey, AudreyConfig
from audrey_core.config import SOURCES, ValidationConfig
from audrey_core.stages import consolidate as stage
from audrey_core.testing import ScriptedLLM, lesson_pairs

DIMENSIONS = 384
NOISE = 0.017  # per-dimension noise around a topic: cosine between two paraphrases is about 0.9


class TopicEmbedder:
    """'topic T ...' texts land near topic T's direction; anything else gets its own direction."""

    model_name = "synthetic-topics"
    dimensions = DIMENSIONS

    def embed(self, texts):
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for i, text in enumerate(texts):
            words = text.split()
            topic = words[1] if words[0] == "topic" else text
            base = np.random.default_rng(self._seed(topic)).standard_normal(DIMENSIONS)
            base /= np.linalg.norm(base)
            out[i] = base + np.random.default_rng(self._seed(text)).standard_normal(DIMENSIONS) * NOISE
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    @staticmethod
    def _seed(text: str) -> int:
        return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def principle(messages):
    first = messages[1]["content"].splitlines()[1]  # "- [source, conf] topic T variant V"
    return {"principle": "principle of " + " ".join(first.split("] ", 1)[1].split()[:2]), "evidence_diverse": True}


def same_topic(messages):
    """Grouping as a person would: two reports are one lesson when they are of one topic."""
    same = [(n, a.split()[:2] == b.split()[:2]) for n, a, b in lesson_pairs(messages)]
    return {"judgements": [{"pair": n, "same": verdict} for n, verdict in same]}


def measure(size: int, cluster_size: int, folder: Path) -> dict:
    llm = ScriptedLLM(
        {
            "same_lesson": same_topic,
            "principle_extraction": principle,
            "contradiction_check": {"relation": "unrelated"},
        }
    )
    config = AudreyConfig(validation=ValidationConfig(background=False))
    with Audrey(folder / f"consolidate-{size}.db", embedder=TopicEmbedder(), llm=llm, config=config) as brain:
        topics = size // cluster_size
        items = [
            {"content": f"topic {t} variant {v} observed", "source": SOURCES[(t + v) % 4]}
            for t in range(topics)
            for v in range(cluster_size)
        ]
        start = time.perf_counter()
        for first in range(0, len(items), 1000):
            brain.encode_batch(items[first : first + 1000])
        encode_s = time.perf_counter() - start

        planning = {"s": 0.0}
        real_cluster = stage.cluster_ids

        def timed_cluster(*args):
            began = time.perf_counter()
            try:
                return real_cluster(*args)
            finally:
                planning["s"] += time.perf_counter() - began

        stage.cluster_ids = timed_cluster
        try:
            start = time.perf_counter()
            run = brain.consolidate()
            total_s = time.perf_counter() - start
        finally:
            stage.cluster_ids = real_cluster
        calls = len(llm.calls)
        extraction_calls = len(llm.calls_for("principle_extraction"))
        grouping_calls = len(llm.calls_for("same_lesson"))
    return {
        "episodes": len(items),
        "topics": topics,
        "clusters_promoted": len(run.plan),
        "principles": len(run.output_memory_ids),
        "llm_calls": calls,
        "extraction_calls": extraction_calls,
        "grouping_calls": grouping_calls,
        "consolidate_s": total_s,
        "clustering_s": planning["s"],
        "promotion_s": total_s - planning["s"],
        "encode_s": encode_s,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--cluster-size", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="audrey-bench-") as tmp:
        rows = [measure(int(s), args.cluster_size, Path(tmp)) for s in args.sizes.split(",") if s]
    print("Consolidation with a fake LLM (synthetic topics of", args.cluster_size, "paraphrases)")
    print(
        f"{'episodes':>9}{'clusters':>10}{'principles':>11}{'LLM calls':>10}{'total s':>9}{'cluster s':>10}"
        f"{'promote s':>10}{'encode s':>9}"
    )
    for r in rows:
        print(
            f"{r['episodes']:>9}{r['clusters_promoted']:>10}{r['principles']:>11}{r['llm_calls']:>10}"
            f"{r['consolidate_s']:>9.1f}{r['clustering_s']:>10.1f}{r['promotion_s']:>10.1f}{r['encode_s']:>9.1f}"
        )
    result = {"benchmark": "consolidation", "runs": rows}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
