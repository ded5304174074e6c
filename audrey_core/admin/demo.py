"""The seed's ten-minute demo (``audrey demo``, ``examples/stripe_demo.py``): an agent learns Stripe's rate limit.

1. The batch payment job hits HTTP 429 (observed directly); 2. the nightly refund job hits it too (a tool result);
3. consolidation (the "sleep" cycle) turns the two episodes into a principle; 4. the third time, before sending a
burst, the agent recalls the principle, with the episodes it rests on; 5. the user adds that in test mode the limit
is 25 req/s: a qualified claim, kept beside the live-mode principle as context-dependent (both recalled, with their
dates); 6. weeks later the user reports the live limit was lowered from 100 to 80 req/s: the old value named as
past, Audrey marks the principle superseded (kept, with the date it stopped holding) and recall answers with the new
limit; 7. the agent's own guess of 200 req/s cannot replace that: Audrey records a contradiction, keeps both claims
and resolves it by the confidence rules; 8. a year later, unused, the memories have faded: decay makes them dormant
(out of ordinary recall, never deleted).

Offline by default (local all-MiniLM-L6-v2, no LLM: extractive principle, heuristic conflict check). With an
OpenAI-compatible LLM: ``--llm-model gpt-4o-mini`` (key from OPENAI_API_KEY) or a local server with
``--llm-base-url http://localhost:8000/v1``; the same through AUDREY_LLM_MODEL / AUDREY_LLM_BASE_URL.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ..audrey import Audrey
from ..config import AudreyConfig, ConsolidationConfig
from ..conversation import render_memories
from ..models import Memory
from ..providers.openai_compatible import OpenAICompatibleLLM
from ..testing import ManualClock


def _which(memory: Memory | None) -> str:
    """How the demo names the memory a new claim met: the principle, or a report by its source."""
    if memory is None:
        return "a memory since forgotten"
    if memory.memory_type == "episodic":
        return f"the {memory.source} report"
    return "the principle" if memory.memory_type == "semantic" else "the procedure"


def _met(event: dict) -> str:
    """One line for a claim meeting another: a dispute, or two claims that each hold in their own context."""
    resolution = event["resolution"]
    if resolution.relation == "context_dependent":
        return f"   = holds beside {_which(event['existing'])}, each in its context ({resolution.reason})"
    return f"   ! disputes {_which(event['existing'])}: {resolution.reason}"


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Audrey's Stripe rate-limit demo")
    parser.add_argument("--db", help="SQLite file to use (default: a new temporary one)")
    parser.add_argument("--llm-model", default=os.environ.get("AUDREY_LLM_MODEL"), help="OpenAI-compatible model")
    parser.add_argument("--llm-base-url", default=os.environ.get("AUDREY_LLM_BASE_URL"), help="compatible server URL")
    parser.add_argument("--llm-api-key", default=None, help="API key (default: OPENAI_API_KEY)")
    return parser.parse_args(argv)


STORY_DAYS = 3 + 30 + 365  # from the first failure to the year without a word about Stripe


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    llm = None
    if args.llm_model or args.llm_base_url:
        llm = OpenAICompatibleLLM(args.llm_model or "gpt-4o-mini", api_key=args.llm_api_key, base_url=args.llm_base_url)
    path = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="audrey-stripe-")) / "audrey.db"
    # Two observations make a principle here (the default asks for three): a demo-sized threshold.
    config = AudreyConfig(consolidation=ConsolidationConfig(min_episodes=2))
    print(f"memory: {path} | LLM: {llm or 'none (offline: extractive principles, heuristic conflict check)'}")

    # The story spans a year: a clock the demo moves on, started so that the story ends today (the page and the
    # command then show its dates as they were, none in the future).
    clock = ManualClock(datetime.now(timezone.utc) - timedelta(days=STORY_DAYS))
    with Audrey(path, config=config) as store:  # each telling in a scope of its own: a re-run starts afresh
        told = sum(1 for scope in store.scopes() if scope[:1] == ("stripe-demo",))
    scope = ("stripe-demo", f"telling-{told + 1}")
    print(f"scope: {'/'.join(scope)} (the default agent, as the command's)")
    with Audrey(path, llm=llm, config=config, clock=clock, scope=scope) as brain:
        # Each event names the memory the new claim met: one claim may meet both reports and their principle.
        brain.on("contradiction", lambda e: print(_met(e)))

        print("\n1-2. Two code paths hit Stripe's rate limit:")
        for text, source, job in [
            (
                "Stripe API returned HTTP 429 Too Many Requests when the batch payment job sent more than "
                "100 requests per second",
                "direct-observation",
                "batch-payment-processing",
            ),
            (
                "Stripe API returned HTTP 429 Too Many Requests when the nightly refund job sent more than "
                "100 requests per second",
                "tool-result",
                "nightly-refunds",
            ),
        ]:
            brain.encode(
                text,
                source=source,
                salience=0.8,
                tags=["stripe", "rate-limit"],
                causal={"trigger": job, "consequence": "payment-queue-backed-up"},
            )
            print(f"   encoded ({source}): {text}")

        print("\n3. Sleep: consolidation turns the two reports into a principle")
        run = brain.consolidate()
        for memory_id in run.output_memory_ids:
            principle = brain.get(memory_id)
            sources = ", ".join(principle.metadata.get("source_types") or [])
            if llm:
                print(f"   principle (extracted by {run.consolidation_model}): {principle.content}")
            else:
                shared = principle.metadata.get("shared_words") or principle.content
                print(f"   principle (extractive, offline): what every report says: {shared}")
            print(f"   learned from {_count(principle.evidence_count, 'independent report')} ({sources})")
            for link in brain.causal_links(memory_id):
                print(f"   causal link ({link.link_type}): {link.cause} -> {link.effect}")
        if not run.output_memory_ids:
            print("   no cluster qualified")
            return 1

        print("\n4. Third time: before sending a burst of payments, the agent asks what it knows")
        hits = brain.recall(
            "about to send a burst of payment requests to the Stripe API",
            limit=1,
            types=["semantic", "procedural"],
            include_provenance=True,
        )
        top = hits[0]
        print(
            f"   recalled principle (confidence {top.confidence:.2f}, score {top.score:.2f}, learned from "
            f"{_count(top.evidence_count, 'report')}): {top.content}"
        )
        for episode in top.provenance.evidence:
            print(f"     evidence [{episode.source}]: {episode.content}")
        print("   -> the agent throttles to under 100 req/s before it hits the error")

        print("\n5. Days later the user adds a detail: test mode has a lower limit")
        clock.advance(days=3)
        brain.encode("In test mode the Stripe API rate limit is 25 requests per second", source="told-by-user")
        brain.wait_for_idle()
        for memory_id in run.output_memory_ids:
            state = brain.get(memory_id).state
            print(f"   the principle is {state}: the live limit and the test-mode limit both hold, each in its context")
        shown = brain.recall("Stripe API rate limit in test mode", limit=2)
        print("   what a model is shown:\n" + "\n".join(f"   {line}" for line in render_memories(shown).splitlines()))

        print("\n6. Weeks later, Stripe support says the live limit changed")
        brain.on("update", lambda e: print(f"   ~ replaces {_which(brain.get(e['old']))}: {e['reason']}"))
        clock.advance(days=30)
        newer = "Stripe lowered the live API rate limit from 100 to 80 requests per second for this account"
        brain.encode(newer, source="told-by-user", tags=["stripe"])
        brain.wait_for_idle()
        for memory_id in run.output_memory_ids:
            old = brain.get(memory_id)
            if old.superseded_by is None:
                print(f"   the principle is still {old.state}: the judge saw no update")
                continue
            print(f"   the principle is now {old.state} (valid until {old.valid_until:%Y-%m-%d}), replaced by:")
            print(f"   '{brain.get(old.superseded_by).content}'")
        top = brain.recall("Stripe API rate limit", limit=1)[0]
        print(f"   recall now answers: {top.content}")

        print("\n7. The agent guesses otherwise: its own inference cannot replace what it was told, nor outweigh it")
        guess = brain.encode("Stripe's rate limit is probably 200 requests per second", source="inference")
        brain.wait_for_idle()
        for c in brain.contradictions():
            if guess not in (c.claim_a_id, c.claim_b_id) or c.state == "context_dependent":
                continue
            a, b = brain.get(c.claim_a_id), brain.get(c.claim_b_id)
            print(f"   dispute {c.state}: '{a.content}' [{a.state}] vs '{b.content}' [{b.state}]")
            verdict = (
                "flagged for review (confidence gap <= 0.3)"
                if c.resolution is not None and c.resolution.flagged
                else c.state
            )
            before = c.resolution.confidence if c.resolution is not None else {}
            sides = [
                f"{m.source} {before.get(m.id, 0.0):.2f} -> {brain.confidence(m).value:.2f}"
                for m in (a, b)
                if m is not None
            ]
            print(f"   resolution: {verdict}; confidence before -> after the dispute: {'; '.join(sides)}")

        print("\n8. A year without a word about Stripe: decay")
        clock.advance(days=365)
        faded = brain.decay()
        print(
            f"   {faded.newly_dormant} of {_count(faded.examined, 'live memory').replace('memorys', 'memories')} "
            f"went dormant (retention, confidence x recency, fell below {faded.threshold})"
        )
        asleep = brain.recall("Stripe API rate limit", limit=3, include_dormant=True)
        for hit in asleep:
            print(f"   still there, {hit.state}: {hit.content} (confidence {hit.confidence:.2f})")
        awake = brain.recall("Stripe API rate limit", limit=3)
        print(f"   an ordinary recall returns {len(awake)} of them: dormant memories are kept, never deleted")
        held = brain.introspect()
        kinds = ", ".join(
            _count(
                n,
                kind.replace("episodic", "episode").replace("semantic", "principle").replace("procedural", "procedure"),
            )
            for kind, n in held.counts.items()
            if n
        )
        disputes = ", ".join(f"{n} {state.replace('_', ' ')}" for state, n in held.contradictions.items() if n)
        print(f"\nthis telling holds {kinds}; claims met: {disputes or 'none'}")
    where = shlex.quote(str(path))
    print(f"\nlook at it: audrey --db {where} ui   (or: audrey --db {where} status)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
