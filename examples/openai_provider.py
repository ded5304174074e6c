"""Audrey on OpenAI (or any OpenAI-compatible server): OpenAI embeddings, and an LLM that judges contradictions,
groups the reports of one lesson and extracts principles.

Needs OPENAI_API_KEY; set OPENAI_BASE_URL for a compatible server, AUDREY_EMBEDDING_MODEL / AUDREY_LLM_MODEL to pick
models (defaults text-embedding-3-small and gpt-4o-mini). Without a key it says so and exits 0.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from audrey_core import Audrey, AudreyConfig, ConsolidationConfig, OpenAICompatibleLLM, OpenAIEmbedder


def main() -> int:
    if not os.environ.get("OPENAI_API_KEY"):
        print(
            "OPENAI_API_KEY is not set, so this example has nothing to call; set it (and OPENAI_BASE_URL for a "
            "compatible server) to run it. The offline demos are quickstart.py and stripe_demo.py."
        )
        return 0
    base_url = os.environ.get("OPENAI_BASE_URL")
    embedder = OpenAIEmbedder(os.environ.get("AUDREY_EMBEDDING_MODEL", "text-embedding-3-small"), base_url=base_url)
    llm = OpenAICompatibleLLM(os.environ.get("AUDREY_LLM_MODEL", "gpt-4o-mini"), base_url=base_url)
    path = Path(tempfile.mkdtemp(prefix="audrey-openai-")) / "audrey.db"
    config = AudreyConfig(consolidation=ConsolidationConfig(min_episodes=2))
    with Audrey(path, agent="openai-demo", embedder=embedder, llm=llm, config=config) as brain:
        brain.encode_batch(
            [
                {
                    "content": "Stripe returned 429 when the batch job sent more than 100 requests per second",
                    "source": "direct-observation",
                    "causal": {"trigger": "batch payments", "consequence": "queue backlog"},
                },
                {
                    "content": "Stripe returned 429 when the refund job sent more than 100 requests per second",
                    "source": "tool-result",
                    "causal": {"trigger": "nightly refunds", "consequence": "queue backlog"},
                },
            ]
        )
        run = brain.consolidate()
        print(f"consolidation with {run.consolidation_model}: {len(run.output_memory_ids)} principle(s)")
        for memory_id in run.output_memory_ids:
            print("  principle:", brain.get(memory_id).content)
        brain.encode("Stripe throttles above 25 requests per second in test mode", source="told-by-user")
        brain.wait_for_idle()
        for c in brain.contradictions():
            print(f"  contradiction ({c.resolution.method}, {c.state}): {c.resolution.reason}")
        for hit in brain.recall("how fast may we call Stripe?", limit=3):
            print(f"  recall {hit.score:.2f} [{hit.memory_type}, {hit.source}] {hit.content}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
