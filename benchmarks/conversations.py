"""Recall on conversations, per question kind, and what each part of conversation-aware recall adds.

    python -m benchmarks.conversations [--set dev|blind|both|none] [--data LOCOMO_FILE] [--variants all|V,V]

Our own set (``benchmarks/conversation_set``: generated, development and blind splits) and, with ``--data``, LoCoMo
conversations. Every turn is stored session by session at its session's date through the injectable clock, with its
session, speaker and event time, with vectors from the local model: our set's turns as a chat adapter stores a
message (the text; the speaker apart), LoCoMo's as its retrieval setting has them ("speaker: text"). Each question
is asked of its own conversation one day after the last session. Per question kind (LoCoMo: per category): recall@10 (an
evidence turn among the top 10), all@10 (every evidence turn among them: what list and order questions need) and, for
facts that changed, how often the newer statement ranks above the older.

Variants (``--variants all``), each over the same stores and questions, compared with ``full`` question by question
(``benchmarks.paired``):

* ``plain``: turns stored as texts alone (no session, speaker or time): recall before issue 32;
* ``full``: the defaults;
* ``-words``: without the neighbours' words in the keyword index (their weight set to 0 at search time);
* ``-vector``: without the context vector (``turn_context_before`` = ``turn_context_after`` = 0);
* ``-speaker``: without the speaker boost; ``-time``: without reading time in questions (``parse_time=False``);
  ``-order``: without favouring the earliest / latest for "the first time" / "now" (``order_boost=0``);
* ``+spread``: with list questions' results spread over sessions (``spread="auto"``; off by default).

Prints a table per set, recall time per question and encode rate, and a final JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from audrey_core import Audrey, AudreyConfig, RecallConfig
from audrey_core.config import ValidationConfig
from audrey_core.index import keyword_query
from audrey_core.providers.embedding import embed_texts
from audrey_core.testing import ManualClock

from . import embedders
from .conversation_set.generate import SEEDS, conversation
from .locomo import Conversation, load
from .paired import compare
from .retrieval import turn_item

VARIANTS = ("plain", "full", "-words", "-vector", "-speaker", "-time", "-order", "+spread")
K = 10


def recall_config(variant: str) -> RecallConfig:
    cfg = RecallConfig()
    if variant == "-vector":
        return replace(cfg, turn_context_before=0, turn_context_after=0)
    if variant == "-speaker":
        return replace(cfg, speaker_boost=0.0)
    if variant == "-order":
        return replace(cfg, order_boost=0.0)
    return cfg


def store(conv: Conversation, vectors, path: Path, plain: bool, said: bool) -> float:
    """Store the conversation's turns session by session at their dates; the seconds encode_batch took."""
    clock = ManualClock(conv.turns[0].when)
    spent = 0.0
    config = AudreyConfig(validation=ValidationConfig(background=False))
    with Audrey(path, agent=conv.sample_id, embedder=EMBEDDER, clock=clock, config=config) as brain:
        for when in sorted({t.when for t in conv.turns}):
            index = [i for i, t in enumerate(conv.turns) if t.when == when]
            clock.advance(seconds=(when - clock()).total_seconds())
            start = time.perf_counter()
            brain.encode_batch([turn_item(conv.turns[i], plain, said) for i in index], vectors=vectors[index])
            spent += time.perf_counter() - start
    return spent


def ask(conv: Conversation, qvectors, path: Path, variant: str) -> list[dict]:
    """Each question's outcome in one variant."""
    clock = ManualClock(conv.turns[-1].when + timedelta(days=1))
    config = AudreyConfig(validation=ValidationConfig(background=False), recall=recall_config(variant))
    weight = keyword_query.KEYWORD_CONTEXT_WEIGHT
    keyword_query.KEYWORD_CONTEXT_WEIGHT = 0.0 if variant == "-words" else weight
    options = {"parse_time": variant != "-time", "spread": "auto" if variant == "+spread" else False}
    outcomes = []
    try:
        with Audrey(path, agent=conv.sample_id, embedder=EMBEDDER, clock=clock, config=config) as brain:
            for question, vector in zip(conv.questions, qvectors):
                start = time.perf_counter()
                found = [r.id for r in brain.recall(question.question, limit=K, query_vector=vector, **options)]
                spent = time.perf_counter() - start
                rank = {memory_id: i for i, memory_id in enumerate(found)}
                newest = min((rank[e] for e in question.evidence if e in rank), default=K)
                stale = min((rank[e] for e in question.stale if e in rank), default=K)
                outcomes.append(
                    {
                        "group": question.kind or f"category {question.category}",
                        "hit": bool(question.evidence & set(found)),
                        "all": question.evidence <= set(found),
                        "newer_first": newest < stale if question.stale else None,
                        "seconds": spent,
                    }
                )
    finally:
        keyword_query.KEYWORD_CONTEXT_WEIGHT = weight
    return outcomes


def run_set(name: str, conversations: list[Conversation], variants: list[str], said: bool) -> dict:
    results: dict[str, list[dict]] = defaultdict(list)
    encode = {"plain": 0.0, "turns": 0.0}
    with tempfile.TemporaryDirectory() as folder:
        for conv in conversations:
            vectors = embed_texts(EMBEDDER, [t.said if said else t.text for t in conv.turns])
            qvectors = embed_texts(EMBEDDER, [q.question for q in conv.questions])
            paths = {kind: Path(folder) / f"{conv.sample_id}-{kind}.db" for kind in ("plain", "turns")}
            for kind, path in paths.items():
                if kind == "turns" or "plain" in variants:
                    encode[kind] += store(conv, vectors, path, plain=kind == "plain", said=said)
            for variant in variants:
                results[variant] += ask(conv, qvectors, paths["plain" if variant == "plain" else "turns"], variant)
    turns = sum(len(c.turns) for c in conversations)
    return summarise(name, results, {k: round(turns / v) for k, v in encode.items() if v})


def summarise(name: str, results: dict[str, list[dict]], encode_rate: dict[str, int]) -> dict:
    groups = sorted({o["group"] for o in results["full"]})
    if any(g.startswith("category ") for g in groups):  # LoCoMo: categories 1-4 together, as its figures are reported
        groups.append("categories 1-4")
    table: dict[str, dict] = {}
    for variant, outcomes in results.items():
        row: dict = {}
        for group in [*groups, "all"]:
            chosen = [o for o in outcomes if group in ("all", o["group"]) or _in_1_4(group, o["group"])]
            row[group] = {
                "n": len(chosen),
                "recall@10": round(100 * sum(o["hit"] for o in chosen) / len(chosen), 1),
                "all@10": round(100 * sum(o["all"] for o in chosen) / len(chosen), 1),
            }
            newer = [o["newer_first"] for o in chosen if o["newer_first"] is not None]
            if newer:
                row[group]["newer_first"] = round(100 * sum(newer) / len(newer), 1)
        row["recall_ms_p50"] = round(1000 * statistics.median(o["seconds"] for o in outcomes), 2)
        if variant != "full":  # over the headline questions: LoCoMo's categories 1-4, else all
            headline = "categories 1-4" if "categories 1-4" in groups else "all"
            pairs = [
                (o, f) for o, f in zip(outcomes, results["full"]) if headline == "all" or _in_1_4(headline, o["group"])
            ]
            row["paired_with_full"] = compare([o["hit"] for o, _ in pairs], [f["hit"] for _, f in pairs])
        table[variant] = row
    print(f"\n{name}: {len(results['full'])} questions; recall@10 / all@10 (newer above older, for updates)")
    print(f"{'variant':>10}  " + "  ".join(f"{g:>17}" for g in [*groups, "all"]) + "  recall ms  paired vs full (1-4)")
    for variant, row in table.items():
        cells = []
        for group in [*groups, "all"]:
            cell = f"{row[group]['recall@10']:5.1f} / {row[group]['all@10']:5.1f}"
            cells.append(cell + (f" ({row[group]['newer_first']:.0f})" if "newer_first" in row[group] else ""))
        paired = row.get("paired_with_full")
        versus = (
            f"  only this {paired['only_first']}, only full {paired['only_second']}, p {paired['p']}" if paired else ""
        )
        print(f"{variant:>10}  " + "  ".join(f"{c:>17}" for c in cells) + f"  {row['recall_ms_p50']:9}{versus}")
    print(f"encode_batch of turns with supplied vectors: {encode_rate} turns/s (plain texts / turns)")
    return {"table": table, "encode_turns_per_s": encode_rate}


def _in_1_4(group: str, question_group: str) -> bool:
    return group == "categories 1-4" and question_group in {f"category {c}" for c in (1, 2, 3, 4)}


def main(argv: list[str] | None = None) -> dict:
    global EMBEDDER
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=("dev", "blind", "both", "none"), default="dev", help="our generated set")
    parser.add_argument("--data", help="also a LoCoMo JSON file (data/locomo10.json of snap-research/locomo)")
    parser.add_argument(
        "--variants",
        default="all",
        help=f"all, or some of {', '.join(VARIANTS)} separated by commas (full is always run)",
    )
    parser.add_argument("--conversations", type=int, default=None, help="only the first N of each set")
    embedders.add_option(parser)
    args = parser.parse_args(argv)
    if args.data and not Path(args.data).is_file():
        parser.error(f"no data file at {args.data}")
    EMBEDDER = embedders.named(args.embedder)
    variants = list(VARIANTS) if args.variants == "all" else list(dict.fromkeys(["full", *args.variants.split(",")]))
    if set(variants) - set(VARIANTS):
        parser.error(f"unknown variants {sorted(set(variants) - set(VARIANTS))}; choose from {', '.join(VARIANTS)}")
    sets: dict[str, list[Conversation]] = {}
    for split in {"dev": ["dev"], "blind": ["blind"], "both": ["dev", "blind"], "none": []}[args.set]:
        with tempfile.NamedTemporaryFile("w", suffix=".json") as file:
            json.dump([conversation(seed, split) for seed in SEEDS[split]], file)
            file.flush()
            sets[f"our set, {split}"] = load(file.name)[: args.conversations]
    if args.data:
        sets["LoCoMo"] = load(args.data)[: args.conversations]
    summary = {"benchmark": "conversations", "model": EMBEDDER.model_name, "k": K}
    summary["sets"] = {
        name: run_set(name, conversations, variants, said=not name.startswith("LoCoMo"))
        for name, conversations in sets.items()
    }
    print(json.dumps(summary))
    return summary


EMBEDDER: Any

if __name__ == "__main__":
    main()
