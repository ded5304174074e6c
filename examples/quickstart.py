"""Quickstart: encode a few observations into a SQLite file, recall them by meaning, reopen the file.

Runs offline on the embedded default: a SQLite file and the local all-MiniLM-L6-v2 model
(from a clone: pip install -e .).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from audrey_core import Audrey


def show(title: str, results: list) -> None:
    print(f"\n{title}")
    for r in results:
        print(
            f"  score {r.score:.3f} = relevance {r.relevance:.3f} x confidence {r.confidence:.3f}  "
            f"[{r.source}, {r.memory_type}, {r.state}] {r.content}"
        )


def main() -> int:
    path = Path(tempfile.mkdtemp(prefix="audrey-quickstart-")) / "audrey.db"
    with Audrey(path=path, agent="quickstart") as brain:
        first = brain.encode(
            "Stripe returned HTTP 429 when we sent more than 100 requests per second",
            source="direct-observation",
            salience=0.8,
            tags=["stripe", "rate-limit"],
            causal={"trigger": "batch-payment-processing", "consequence": "payment-queue-backed-up"},
        )
        brain.encode_batch(
            [
                {"content": "The user prefers answers in French", "source": "told-by-user", "tags": ["preferences"]},
                {"content": "The nightly export job takes about 40 minutes", "source": "tool-result"},
                {"content": "Stripe probably allows bursts above the limit", "source": "model-generated"},
            ]
        )
        brain.encode(
            "Stripe returns HTTP 429 above 100 requests per second in live mode",
            source="tool-result",
            supersedes=first,
            tags=["stripe", "rate-limit"],
        )
        show(
            "recall('how fast can we call the payments API?'):",
            brain.recall("how fast can we call the payments API?", limit=3),
        )
        show(
            "recall('what language does the user want?', limit=1):",
            brain.recall("what language does the user want?", limit=1),
        )
        stats = brain.introspect()
        print(f"\nstored: {stats.counts}, sources: {stats.source_type_diversity}")
        print(f"embedding model: {stats.embedding_model} ({stats.embedding_dimensions} dimensions)")

    with Audrey(path=path, agent="quickstart") as reopened:
        hits = reopened.recall("Stripe 429 requests per second", limit=1, include_provenance=True)
        top = hits[0]
        print(f"\nreopened {path}: top memory is still there -> {top.content!r}")
        print(
            f"  it corrects {len(top.provenance.supersedes)} older observation(s): "
            f"{[m.content for m in top.provenance.supersedes]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
