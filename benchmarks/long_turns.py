"""Updates inside long turns: in a long working chat, does the turn that changed a fact rank above the turns that
stated the old value?

    python -m benchmarks.long_turns [--split dev|held-out|both] [--embedder local|...] [--misses]

The chats of ``benchmarks.conversation_set.working_chats`` (long user and assistant turns of three to seven
sentences; a fact of the project told once and changed weeks later, in another long turn) are stored session by
session at their dates with their session and speaker, as a chat adapter stores messages, offline (no LLM), with the
local model's vectors; each question is asked one day after the last session. Reported per split:

* newer above older: the share of questions whose newer turn ranks above every turn holding the old value (a newer
  turn outside the top 10 counts as a miss);
* newer first: the share whose newer turn is the first result;
* newer in top 10, and older in top 10 (both sides should be there to read);
* hidden: turns holding the old value that left recall (superseded): these are true statements of their time and
  must stay recallable.

``dev`` is the split the ranking was developed on; ``held-out`` is run once, when the work is done. Prints a table
and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from datetime import timedelta
from pathlib import Path

from audrey_core import Audrey, AudreyConfig
from audrey_core.config import ValidationConfig
from audrey_core.providers.embedding import embed_texts
from audrey_core.testing import ManualClock

from . import conversations, embedders
from .conversation_set.working_chats import SPLITS, chats
from .locomo import Conversation, load

K = 10


def ask(conv: Conversation, path: Path, embedder, misses: bool) -> list[dict]:
    """Each update question's outcome."""
    clock = ManualClock(conv.turns[-1].when + timedelta(days=1))
    config = AudreyConfig(validation=ValidationConfig(background=False))
    qvectors = embed_texts(embedder, [q.question for q in conv.questions])
    outcomes = []
    with Audrey(path, agent=conv.sample_id, embedder=embedder, clock=clock, config=config) as brain:
        for question, vector in zip(conv.questions, qvectors):
            found = [r.id for r in brain.recall(question.question, limit=K, query_vector=vector)]
            rank = {memory_id: i for i, memory_id in enumerate(found)}
            newest = min((rank[e] for e in question.evidence if e in rank), default=K)
            stale = min((rank[e] for e in question.stale if e in rank), default=K)
            states = {m: brain.get(m).state for m in question.stale}
            outcome = {
                "newer_above": newest < stale,
                "newer_first": newest == 0,
                "newer_found": newest < K,
                "older_found": stale < K,
                "hidden": sum(state == "superseded" for state in states.values()),
            }
            outcomes.append(outcome)
            if misses and not outcome["newer_above"]:
                print(f"  miss: {question.question!r} newer at {newest + 1}, older at {stale + 1}")
    return outcomes


def run_split(split: str, embedder, misses: bool) -> dict:
    outcomes: list[dict] = []
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / f"{split}.json"
        data.write_text(json.dumps(chats(split)))
        for conv in load(str(data)):
            vectors = embed_texts(embedder, [t.said for t in conv.turns])
            path = Path(folder) / f"{conv.sample_id}.db"
            conversations.EMBEDDER = embedder
            conversations.store(conv, vectors, path, plain=False, said=True)
            outcomes += ask(conv, path, embedder, misses)
    n = len(outcomes)
    row = {key: round(100 * sum(o[key] for o in outcomes) / n, 1) for key in outcomes[0] if key != "hidden"}
    return {"split": split, "questions": n, **row, "hidden": sum(o["hidden"] for o in outcomes)}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=(*SPLITS, "both"), default="dev")
    parser.add_argument("--misses", action="store_true", help="print each question whose newer turn is not above")
    embedders.add_option(parser)
    args = parser.parse_args(argv)
    embedder = embedders.named(args.embedder)
    rows = [run_split(s, embedder, args.misses) for s in (SPLITS if args.split == "both" else [args.split])]
    print(f"\nUpdates inside long turns (offline, top {K}); shares in %")
    header = ("split", "questions", "newer above", "newer first", "newer in 10", "older in 10", "hidden")
    print("".join(f"{h:>13}" for h in header))
    for r in rows:
        cells = (r["split"], r["questions"], r["newer_above"], r["newer_first"], r["newer_found"], r["older_found"])
        print("".join(f"{c:>13}" for c in cells) + f"{r['hidden']:>13}")
    result = {"benchmark": "long_turns", "rows": rows}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
