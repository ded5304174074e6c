"""Knowledge updates: does Audrey notice a fact replaced weeks later, and recall the current one first?

    python -m benchmarks.updates [--embedder local|deterministic] [--misses]

Each case of ``benchmarks.update_cases`` (development, held-out, blind, fresh, unseen, the trap sets and issue 43's
first blind set and issue 73's development set; the frozen blind sets only when named: ``--sets "second frozen
blind"``, ``--sets "claims blind"``) is told to one Audrey in a
scope of its own, its statements ``days`` apart (a manual clock), then its question is asked. Printed per case
kind, and as a final JSON line:

* newer first: of updates and chains, the share whose newest statement is the first of the case's statements that
  recall returns;
* flagged: of updates and chains, the share of older statements superseded or in a recorded contradiction; of
  weaker-source changes, the share kept (not superseded) with a contradiction recorded;
* false flags: of restatements and unrelated pairs, the share with any statement superseded or contradicted;
* routine notes in a contradiction: of routine notes about one subject (all true), the share superseded or in a
  recorded contradiction; own first (routine, lookalike): the share of questions about a case's first statement
  that recall it first among the case's statements (for a look-alike, above the newer statement about another
  subject);
* hidden (traps): of the kinds whose statements all still hold (restatements, unrelated, weaker, qualified,
  evidence), the share with any statement superseded, which takes it out of recall;
* qualified kept as context: of qualified pairs, the share recorded as context-dependent; evidence kept and
  contradicted: of evidence cases, the share whose observations are all in a recorded contradiction;
* encode and recall latency (median ms): encode with validation in the background, as users run it; recall against
  the ranking alone (what recall did before updates: no counterclaims), in the same run.

Two judges: the offline heuristic (no LLM), and a scripted LLM that answers from the cases' own labels. The second is
an upper bound: it shows what the pipeline does with a perfect judge, not what any model achieves.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import defaultdict
from typing import Any

from audrey_core import Audrey, AudreyConfig
from audrey_core.config import ValidationConfig
from audrey_core.rules.recall_options import check_options
from audrey_core.stages import recall as recall_stage
from audrey_core.testing import DeterministicEmbedder, ManualClock, ScriptedLLM

from .update_cases import (
    BLIND_CASES,
    BLIND_TRAP_CASES,
    CASES,
    CLAIMS_BLIND_CASES,
    CLAIMS_DEV_CASES,
    COEXIST_DEV_CASES,
    FRESH_CASES,
    FROZEN_BLIND_CASES,
    HELDOUT_CASES,
    KEPT_KINDS,
    RESTATEMENT_DEV_CASES,
    SECOND_BLIND_TRAP_CASES,
    SECOND_FROZEN_BLIND_CASES,
    THIRD_BLIND_TRAP_CASES,
    TRAP_CASES,
    UNSEEN_CASES,
    Case,
    sources_of,
)

RUN_ONLY_BY_NAME = ("second frozen blind", "claims blind")  # a blind set is run once, at the end of the work it judges


def oracle_llm(cases: tuple[Case, ...]) -> Any:
    """A judge that knows the labels: a typed 'updates' of a single-valued attribute for two statements of one
    update, chain or weaker case, 'supports' for a restatement, 'context_dependent' for a qualified pair,
    'contradicts' between an evidence case's last statement and its observations (which support each other),
    'unrelated' for anything else (a pair of facts that hold together included)."""
    labels: dict[tuple[str, str], str] = {}
    for case in cases:
        relation = {
            "restatement": "supports",
            "unrelated": "unrelated",
            "qualified": "context_dependent",
            "coexist": "unrelated",  # both hold: a second pet is no update of the first
            "routine": "unrelated",  # notes of one subject that all hold
            "lookalike": "unrelated",  # the same frame about another subject
        }
        for older in case.statements:
            for newer in case.statements:
                if older != newer:
                    labels[(older, newer)] = relation.get(case.kind, "updates")
        if case.kind == "evidence":
            *observed, last = case.statements
            for one in observed:
                labels.update({(one, other): "supports" for other in observed if other != one})
                labels[(one, last)] = labels[(last, one)] = "contradicts"

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        existing, incoming = _pair(messages[-1]["content"])
        said = labels.get((existing, incoming), "unrelated")
        if said != "updates":
            return {"relation": said, "reason": "oracle"}
        typed = {"subject": "it", "attribute": "the value", "old_value": existing, "new_value": incoming}
        return {"relation": said, "reason": "oracle", **typed, "single_valued": True}  # a typed update

    return ScriptedLLM({"contradiction_check": reply})  # several pairs in one call are answered pair by pair


def _pair(user: str) -> tuple[str, str]:
    lines = user.split("\n")
    return lines[0].removeprefix("Existing memory: "), lines[1].removeprefix("New observation: ")


def run(embedder: Any, cases: tuple[Case, ...], llm: Any = None, misses: list[str] | None = None) -> dict[str, Any]:
    clock = ManualClock()
    config = AudreyConfig(validation=ValidationConfig(background=True))
    ids: list[list[str]] = []
    encode_ms: list[float] = []
    with Audrey(":memory:", agent="updates", embedder=embedder, llm=llm, config=config, clock=clock) as brain:
        for number, case in enumerate(cases):
            scope = ("case", str(number))
            case_ids = []
            for step, (text, source) in enumerate(zip(case.statements, sources_of(case))):
                if step:
                    brain.wait_for_idle()
                    clock.advance(days=case.days)
                start = time.perf_counter()
                case_ids.append(brain.encode(text, source=source, scope=scope))
                encode_ms.append(1000 * (time.perf_counter() - start))
            ids.append(case_ids)
        brain.wait_for_idle()
        clock.advance(days=1)
        contradictions = brain.contradictions()
        contradicted = {i for c in contradictions for i in (c.claim_a_id, c.claim_b_id)}
        in_context = {i for c in contradictions if c.state == "context_dependent" for i in (c.claim_a_id, c.claim_b_id)}
        outcome: dict[str, list[bool]] = defaultdict(list)
        recall_ms, rank_ms = [], []
        for number, (case, case_ids) in enumerate(zip(cases, ids)):
            scope = ("case", str(number))
            start = time.perf_counter()
            vector = brain.embed_query(case.query)  # both timings below get the query vector: only search counts
            start = time.perf_counter()
            found = [r.id for r in brain.recall(case.query, limit=10, scope=scope, query_vector=vector)]
            recall_ms.append(1000 * (time.perf_counter() - start))
            options = check_options(agent=brain.agent, limit=10, scope=scope)
            start = time.perf_counter()
            recall_stage.rank(
                brain._storage, vector, options, now=clock(), confidence_cfg=brain.config.confidence,
                recall_cfg=brain.config.recall, terms=case.query.lower().split(),
            )  # fmt: skip
            rank_ms.append(1000 * (time.perf_counter() - start))
            memories = brain.get_many(case_ids)
            flagged = [m.state == "superseded" or m.id in contradicted for m in memories]
            if case.kind in ("update", "chain"):
                first = next((i for i in found if i in case_ids), None)
                verdicts = {"newer first": [first == case_ids[-1]], "flagged": flagged[:-1]}
            elif case.kind == "weaker":
                kept = memories[0].state != "superseded" and case_ids[0] in contradicted
                verdicts = {"weaker kept and contradicted": [kept]}
            elif case.kind == "qualified":
                verdicts = {"qualified kept as context": [case_ids[0] in in_context]}
            elif case.kind == "evidence":
                verdicts = {"evidence kept and contradicted": [all(i in contradicted for i in case_ids[:-1])]}
            elif case.kind == "routine":
                first = next((i for i in found if i in case_ids), None)
                verdicts = {"routine notes in a contradiction": flagged, "own first (routine)": [first == case_ids[0]]}
            elif case.kind == "lookalike":
                first = next((i for i in found if i in case_ids), None)
                verdicts = {"false flags (lookalike)": [any(flagged)], "own first (lookalike)": [first == case_ids[0]]}
            else:
                verdicts = {f"false flags ({case.kind})": [any(flagged)]}
            if case.kind in KEPT_KINDS:  # a true memory superseded is out of recall: the agent cannot see it
                verdicts["hidden (traps)"] = [any(m.state == "superseded" for m in memories)]
            for metric, values in verdicts.items():
                outcome[metric].extend(values)
                wrong = any(values) if metric.startswith(("false", "hidden", "routine")) else not all(values)
                if wrong and misses is not None:
                    misses.append(f"{metric}: {' -> '.join(case.statements)}")
    rates = {name: round(100 * sum(v) / len(v), 1) for name, v in outcome.items()}
    counts = {name: len(v) for name, v in outcome.items()}
    timing = {
        "encode_ms_p50": round(statistics.median(encode_ms), 3),
        "recall_ms_p50": round(statistics.median(recall_ms), 3),
        "rank_only_ms_p50": round(statistics.median(rank_ms), 3),
    }
    checks = [name for name, _ in llm.calls if name.startswith("contradiction_check")] if llm else []
    calls = {"llm_calls": len(checks), "statements": sum(len(c.statements) for c in cases)} if llm else {}
    return {"rates_percent": rates, "counts": counts, "timing": timing, **calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=["local", "deterministic"], default="local")
    parser.add_argument("--misses", action="store_true", help="print each case a judge got wrong")
    parser.add_argument("--sets", nargs="+", help="only these sets (by name: development, traps, 'traps, blind', ...)")
    args = parser.parse_args()
    if args.embedder == "local":
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from audrey_core import SentenceTransformerEmbedder

        embedder: Any = SentenceTransformerEmbedder()
    else:
        embedder = DeterministicEmbedder()
    results: dict[str, Any] = {}
    for name, cases in (
        ("development", CASES),
        ("held-out", HELDOUT_CASES),
        ("blind", BLIND_CASES),
        ("fresh", FRESH_CASES),
        ("unseen", UNSEEN_CASES),
        ("traps", TRAP_CASES),
        ("traps, blind", BLIND_TRAP_CASES),
        ("traps, second blind", SECOND_BLIND_TRAP_CASES),
        ("traps, third blind", THIRD_BLIND_TRAP_CASES),
        ("coexist, development", COEXIST_DEV_CASES),
        ("restatements, development", RESTATEMENT_DEV_CASES),
        ("first blind, development", FROZEN_BLIND_CASES),
        ("second frozen blind", SECOND_FROZEN_BLIND_CASES),
        ("claims, development", CLAIMS_DEV_CASES),
        ("claims blind", CLAIMS_BLIND_CASES),
    ):
        if (args.sets and name not in args.sets) or (name in RUN_ONLY_BY_NAME and name not in (args.sets or ())):
            continue
        kinds = {kind: sum(c.kind == kind for c in cases) for kind in dict.fromkeys(c.kind for c in cases)}
        print(f"\n{name} set: {len(cases)} cases {kinds}, embedder {embedder.model_name}")
        for judge, llm in (("heuristic", None), ("oracle LLM", oracle_llm(cases))):
            misses: list[str] = []
            result = run(embedder, cases, llm, misses)
            results[f"{name} / {judge}"] = result
            print(f"  {judge}:")
            for metric, rate in result["rates_percent"].items():
                print(f"    {metric:<32} {rate:5.1f}%  (n={result['counts'][metric]})")
            t = result["timing"]
            print(f"    encode p50 {t['encode_ms_p50']} ms; recall p50 {t['recall_ms_p50']} ms", end="")
            print(f" (the ranking alone: {t['rank_only_ms_p50']} ms)")
            if "llm_calls" in result:
                checks, told = result["llm_calls"], result["statements"]
                print(f"    {checks} contradiction checks for {told} statements (close pairs batched)")
            for miss in misses if args.misses else ():
                print(f"      missed {miss}")
    print(json.dumps({"benchmark": "updates", "embedder": embedder.model_name, "results": results}))


if __name__ == "__main__":
    main()
