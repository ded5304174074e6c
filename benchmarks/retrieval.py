"""Retrieval quality on LoCoMo: recall@1/5/10 per category for Audrey and for plain dense cosine.

    python -m benchmarks.retrieval --data ../shared/data/locomo_dev.json [--conversations 2] [--limit 20]
        [--fts5 | --compare-paths] [--at-once]

The data is not shipped (CC BY-NC 4.0): LoCoMo's ``data/locomo10.json`` from github.com/snap-research/locomo is read
as published; the figures in README use five of its ten conversations (conv-26, -30, -41, -42, -43).

One Audrey store per conversation (in memory), every turn a memory ("speaker: text") stored session by session at
its session's date through the injectable clock (validated against the sessions before it, as an agent living
through the conversation would; ``--at-once`` stores every turn in one batch at the last date instead); each
question with evidence is asked of its own conversation only, at one day after the last session. A hit at k means an
evidence turn is among the top k of a recall asking for ``--limit`` results (10 by default; a larger limit widens
the candidate pools, so the top 10 can differ). ``--fts5`` sends keyword search through SQLite FTS5 (the path
without tantivy) on the same code; ``--compare-paths`` runs both and compares them question by question
(``benchmarks.paired``).
The baseline ranks the same vectors by cosine alone.
Categories 1-4 are reported one by one and together, category 5 (adversarial) apart. Prints a table, the time spent
embedding and recalling, and a final JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

import numpy as np

from audrey_core import Audrey, AudreyConfig, RecallConfig
from audrey_core.config import ValidationConfig
from audrey_core.index import keyword_index_available
from audrey_core.providers.embedding import embed_texts
from audrey_core.testing import ManualClock

from . import embedders
from .locomo import Conversation, Turn, load
from .paired import compare, compare_ranks

KS = (1, 5, 10)


def config(influence: float) -> AudreyConfig:
    return AudreyConfig(
        validation=ValidationConfig(background=False), recall=RecallConfig(confidence_influence=influence)
    )


def turn_item(turn: Turn, plain: bool = False, said: bool = False) -> dict:
    """A turn with its session, speaker and time (``plain``: the text alone). Its content is "speaker: text", as
    LoCoMo's retrieval setting has it, or with ``said`` the text alone, as a chat adapter stores a message."""
    item: dict = {"id": turn.dia_id, "content": turn.said if said else turn.text}
    if not plain:
        item |= {"session": turn.session, "speaker": turn.speaker, "event_time": turn.when}
    return item


def evaluate(
    conversations: list[Conversation],
    embedder,
    recall_options: dict,
    influence: float = 1.0,
    limit: int = max(KS),
    fts5: bool = False,
    at_once: bool = False,
    plain: bool = False,
) -> dict:
    hits: dict[str, dict[int, list[str]]] = {"audrey": defaultdict(list), "dense": defaultdict(list)}
    ranks: list[int] = []  # where Audrey's recall put the first evidence turn (0: not among its results)
    categories: list[int] = []
    timing = {"embed_turns_s": 0.0, "embed_questions_s": 0.0, "audrey_recall_s": 0.0, "dense_recall_s": 0.0}
    changed = {"superseded": 0, "contradictions": 0}  # what validation did to the turns
    for conv in conversations:
        start = time.perf_counter()
        turn_vectors = embed_texts(embedder, [t.text for t in conv.turns])
        timing["embed_turns_s"] += time.perf_counter() - start
        start = time.perf_counter()
        question_vectors = embed_texts(embedder, [q.question for q in conv.questions])
        timing["embed_questions_s"] += time.perf_counter() - start

        clock = ManualClock(conv.turns[0].when)
        with Audrey(
            ":memory:", agent=conv.sample_id, embedder=embedder, clock=clock, config=config(influence)
        ) as brain:
            if fts5:
                brain._storage.keyword_index = None  # the FTS5 path, as without tantivy
            sessions = [conv.turns[-1].when] if at_once else sorted({t.when for t in conv.turns})
            for when in sessions:  # one batch per session, stored at its date (or all at the last one)
                index = [i for i, t in enumerate(conv.turns) if at_once or t.when == when]
                clock.advance(seconds=(when - clock()).total_seconds())
                brain.encode_batch([turn_item(conv.turns[i], plain) for i in index], vectors=turn_vectors[index])
            clock.advance(seconds=(conv.turns[-1].when + timedelta(days=1) - clock()).total_seconds())
            changed["superseded"] += brain.introspect().superseded
            changed["contradictions"] += len(brain.contradictions())
            unit = turn_vectors / np.linalg.norm(turn_vectors, axis=1, keepdims=True)
            ids = [t.dia_id for t in conv.turns]
            for question, vector in zip(conv.questions, question_vectors):
                start = time.perf_counter()
                audrey_ids = [
                    r.id for r in brain.recall(question.question, limit=limit, query_vector=vector, **recall_options)
                ]
                timing["audrey_recall_s"] += time.perf_counter() - start
                start = time.perf_counter()
                dense_ids = [ids[i] for i in np.argsort(-(unit @ (vector / np.linalg.norm(vector))))[: max(KS)]]
                timing["dense_recall_s"] += time.perf_counter() - start
                categories.append(question.category)
                ranks.append(next((j for j, i in enumerate(audrey_ids, start=1) if i in question.evidence), 0))
                for name, ranked in (("audrey", audrey_ids), ("dense", dense_ids)):
                    for k in KS:
                        hits[name][k].append(bool(question.evidence & set(ranked[:k])))
    return {"hits": hits, "ranks": ranks, "categories": categories, "timing": timing, "changed": changed}


def summarise(result: dict) -> dict:
    categories = np.array(result["categories"])
    groups = {str(c): categories == c for c in (1, 2, 3, 4, 5)}
    groups["1-4"] = categories <= 4
    table = {}
    for group, mask in groups.items():
        row = {"n": int(mask.sum())}
        for name in ("audrey", "dense"):
            for k in KS:
                values = np.array(result["hits"][name][k])[mask]
                row[f"{name}@{k}"] = round(100 * float(values.mean()), 1) if len(values) else None
        table[group] = row
    return table


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data",
        required=True,
        help="a LoCoMo JSON file: data/locomo10.json of github.com/snap-research/locomo as published (CC BY-NC 4.0)",
    )
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--mode", choices=("hybrid", "vector", "keyword"), default="hybrid", help="Audrey's recall")
    parser.add_argument(
        "--confidence-influence",
        type=float,
        default=None,
        help="RecallConfig.confidence_influence (default: the library's)",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=max(KS),
        help=f"results each recall asks for (at least {max(KS)}; default {max(KS)})",
    )
    paths = parser.add_mutually_exclusive_group()
    paths.add_argument("--fts5", action="store_true", help="keyword search through SQLite FTS5 instead of the index")
    paths.add_argument(
        "--compare-paths", action="store_true", help="run through the index and through FTS5, compared per question"
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="store each turn as a text alone (no session, speaker or event time): recall as before issue 32",
    )
    parser.add_argument(
        "--at-once",
        action="store_true",
        help="store every turn in one batch at the last session's date (default: session by session at its date, "
        "each validated against the sessions before it)",
    )
    embedders.add_option(parser)
    args = parser.parse_args(argv)
    if args.limit < max(KS):
        parser.error(f"--limit must be at least {max(KS)}")
    if args.compare_paths and not keyword_index_available():
        parser.error("--compare-paths needs the keyword index (the tantivy package), which is not installed")
    if not Path(args.data).is_file():
        parser.error(f"no data file at {args.data}")
    conversations = load(args.data)[: args.conversations]
    embedder = embedders.named(args.embedder)
    start = time.perf_counter()
    influence = (
        args.confidence_influence if args.confidence_influence is not None else RecallConfig().confidence_influence
    )
    result = evaluate(
        conversations, embedder, {"mode": args.mode}, influence, args.limit, args.fts5, args.at_once, args.plain
    )
    total = time.perf_counter() - start
    table = summarise(result)

    print(
        f"LoCoMo retrieval, {len(conversations)} conversations, {sum(len(c.turns) for c in conversations)} turns, "
        f"model {embedder.model_name}, Audrey recall mode {args.mode}, limit {args.limit}"
        + (", keyword search through FTS5" if args.fts5 else "")
        + (", all turns stored at once" if args.at_once else ", stored session by session")
        + (", as plain texts" if args.plain else ", as turns (session, speaker, time)")
    )
    header = ["category", "n"] + [f"{n}@{k}" for n in ("audrey", "dense") for k in KS]
    print("  ".join(f"{h:>9}" for h in header))
    for group in ("1", "2", "3", "4", "1-4", "5"):
        row = table[group]
        print("  ".join(f"{v:>9}" for v in [group, row["n"], *[row[h] for h in header[2:]]]))
    timing = {k: round(v, 2) for k, v in result["timing"].items()}
    print("time (s): " + ", ".join(f"{k} {v}" for k, v in timing.items()) + f", total {total:.1f}")
    print(f"validation: {result['changed']['superseded']} turns superseded, {result['changed']['contradictions']} "
          "contradictions recorded")  # fmt: skip
    summary = {
        "benchmark": "retrieval",
        "data": str(args.data),
        "model": embedder.model_name,
        "mode": args.mode,
        "confidence_influence": influence,
        "limit": args.limit,
        "keyword_path": "fts5" if args.fts5 else "index",
        "table": table,
        "timing": timing,
        "stored": "at once" if args.at_once else "session by session",
        "turns": not args.plain,
        "validation": result["changed"],
    }
    if args.compare_paths:
        other = evaluate(
            conversations, embedder, {"mode": args.mode}, influence, args.limit, fts5=True, plain=args.plain
        )
        summary["paired"] = paired_paths(result, other)
    print(json.dumps(summary))
    return summary


def paired_paths(index: dict, fts5: dict) -> dict:
    """Recall@k through the index against through FTS5, question by question, for categories 1-4 and 5."""
    categories = np.array(index["categories"])
    paired = {}
    print("question by question, index against FTS5 (what each run found, what only one found, exact McNemar p):")
    for group, mask in (("1-4", categories <= 4), ("5", categories == 5)):
        for k in KS:
            first, second = (np.array(run["hits"]["audrey"][k])[mask].tolist() for run in (index, fts5))
            row = compare(first, second)
            paired[f"{group}@{k}"] = row
            print(
                f"  categories {group} @{k}: index {row['first']}, FTS5 {row['second']} of {len(first)}; "
                f"only the index {row['only_first']}, only FTS5 {row['only_second']}, p {row['p']}"
            )
        row = compare_ranks(*(np.array(run["ranks"])[mask].tolist() for run in (index, fts5)))
        paired[f"{group} rank"] = row
        print(
            f"  categories {group}: the index ranks the first evidence turn higher for {row['better_first']}, "
            f"FTS5 for {row['better_second']} (sign test p {row['p']})"
        )
    return paired


if __name__ == "__main__":
    main()
