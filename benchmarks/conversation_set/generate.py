"""Generate the conversation set: ``python -m benchmarks.conversation_set.generate --split dev --out FILE``.

Each conversation is two friends talking over 12-16 sessions a few days to three weeks apart. The one the questions
are about (P) tells facts (a dog's name, an allergy), items of lists spread over sessions (hobbies tried, countries
visited), events (a wedding, a promotion) and facts that later change (a job, a city); small talk surrounds them.
Questions, with the turns that answer them as evidence:

* ``single``: one fact ("What is the name of Maya's dog?");
* ``list``: every item of a list, told in three sessions ("Which countries has Maya travelled to?");
* ``temporal``: when an event happened, what happened in a month ("What did Maya do in March 2023?"), or the day
  before the question ("... yesterday?");
* ``order``: which of two events, told in different sessions, came first (both are evidence);
* ``update``: a fact that changed ("Where does Maya work now?"); the evidence is the newer statement, the older one
  is recorded as ``stale``.

The format is LoCoMo's (``benchmarks.locomo`` reads it), with ``kind`` and ``stale`` added to each question. The
split decides the seeds (development 1-10, blind 101-110 by default) and the phrasings (``topics.py``'s blind ones
only in the blind split). Same seed, same file.
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import datetime, timedelta
from pathlib import Path

from .topics import EVENTS, FACTS, FILLERS_F, FILLERS_P, LISTS, UPDATES, Family

NAMES = (
    "Maya", "Leo", "Priya", "Tomasz", "Amara", "Jonas", "Keiko", "Mateo", "Sofia", "Idris", "Hana", "Oskar",
    "Lucia", "Femi", "Ingrid", "Rafael", "Yara", "Colm", "Nadia", "Emeka",
)  # fmt: skip
SEEDS = {"dev": range(1, 11), "blind": range(101, 111)}
LOCOMO_TIME = "%-I:%M %p on %-d %B, %Y"


def _phrasing(rng: random.Random, family: Family, split: str) -> int:
    """A telling of ``family`` for ``split``: the blind split uses its blind phrasings where it has any."""
    blind = [i for i in range(len(family.tell)) if i in family.blind]
    dev = [i for i in range(len(family.tell)) if i not in family.blind]
    return rng.choice(blind if split == "blind" and blind else dev)


def _fill(text: str, slots: dict[str, str]) -> str:
    return text.format(**slots)


def _swapped(who: str) -> str:
    """The other speaker, keeping the evidence mark."""
    return ("F" if who.startswith("P") else "P") + who[1:]


def _answer(slots: dict[str, str]) -> str:
    return ", ".join(v for k, v in slots.items() if k not in ("P", "F"))


class Builder:
    """One conversation being written: sessions of turns, and the questions asked of them."""

    def __init__(self, rng: random.Random, split: str, sessions: int, p: str, f: str) -> None:
        self.rng, self.split, self.p, self.f = rng, split, p, f
        self.exchanges: list[list[tuple[list[tuple[str, str]], str | None]]] = [[] for _ in range(sessions)]
        self.questions: list[dict] = []

    def tell(self, session: int, family: Family, slots: dict[str, str], tag: str, swap: bool = False) -> None:
        """Add one telling of ``family`` to ``session``; its evidence turn is found later by ``tag``. ``swap``: the
        friend tells it of themselves."""
        turns = family.tell[_phrasing(self.rng, family, self.split)]
        lines = [(_swapped(who) if swap else who, _fill(text, slots)) for who, text in turns]
        self.exchanges[session].append((lines, tag))

    def write(self, start: datetime) -> tuple[dict, dict[str, list[str]]]:
        """The LoCoMo ``conversation`` and, per tag, the ids of its evidence turns."""
        conversation: dict = {"speaker_a": self.p, "speaker_b": self.f}
        evidence: dict[str, list[str]] = {}
        when = start
        for number, exchanges in enumerate(self.exchanges, start=1):
            small_talk = [
                ([("F", f), ("P", p)], None)
                for f, p in zip(self.rng.sample(FILLERS_F, 10), self.rng.sample(FILLERS_P, 10))
            ][: self.rng.randint(6, 10)]
            pool = list(exchanges) + small_talk
            self.rng.shuffle(pool)
            turns = []
            for lines, tag in pool:
                for who, text in lines:
                    turn_id = f"D{number}:{len(turns) + 1}"
                    speaker = self.p if who.startswith("P") else self.f
                    turns.append({"speaker": speaker, "dia_id": turn_id, "text": text})
                    if who.endswith("*") and tag is not None:
                        evidence.setdefault(tag, []).append(turn_id)
            conversation[f"session_{number}"] = turns
            conversation[f"session_{number}_date_time"] = (
                when.strftime(LOCOMO_TIME).replace("AM", "am").replace("PM", "pm")
            )
            self.session_dates.append(when)
            when += timedelta(days=self.rng.randint(3, 21), hours=self.rng.randint(-3, 3))
        return conversation, evidence

    session_dates: list[datetime]


def conversation(seed: int, split: str) -> dict:
    """One conversation of the set (a LoCoMo sample with kinds), the same for the same seed and split."""
    rng = random.Random(f"{split}-{seed}")
    p, f = rng.sample(NAMES, 2)
    sessions = rng.randint(12, 16)
    b = Builder(rng, split, sessions, p, f)
    b.session_dates = []
    people = {"P": p, "F": f}
    swapped = {"P": f, "F": p}
    asks: list[tuple[str, str, str, str]] = []  # (kind, question, answer, evidence tag)
    facts = rng.sample(FACTS, 9)
    for family in facts[:6]:
        slots = {**rng.choice(family.values), **people}
        b.tell(rng.randrange(sessions), family, slots, family.key)
        asks.append(("single", _fill(rng.choice(family.ask), slots), _answer(slots), family.key))
    # The friend tells facts of their own, some of the same families as P's (questions name whose they want).
    for number, family in enumerate([*facts[:2], *facts[6:]]):
        slots = {**rng.choice(family.values), **swapped}
        b.tell(rng.randrange(sessions), family, slots, f"friend-{family.key}", swap=True)
        if number >= 2:
            asks.append(("single", _fill(rng.choice(family.ask), swapped), _answer(slots), f"friend-{family.key}"))
    lists = rng.sample(LISTS, 2)
    for family in lists:
        items = rng.sample(family.values, 3)
        for session, item in zip(sorted(rng.sample(range(sessions), 3)), items):
            b.tell(session, family, {**item, **people}, family.key)
        answer = ", ".join(item["v"] for item in items)
        asks.append(("list", _fill(rng.choice(family.ask), people), answer, family.key))
    for item in rng.sample(lists[0].values, 2):  # the friend's own items of one of those lists
        b.tell(rng.randrange(sessions), lists[0], {**item, **swapped}, "friend-list", swap=True)
    events = rng.sample(EVENTS, 5)
    event_sessions = rng.sample(range(sessions - 1), 4) + [sessions - 1]  # one told in the last session
    for family, session in zip(events, event_sessions):
        b.tell(session, family, {**family.values[0], **people}, family.key)
    updates = rng.sample(UPDATES, 2)
    for family in updates:
        slots = {**rng.choice(family.values), **people}
        old_at = rng.randrange(sessions // 3)
        new_at = rng.randrange(sessions // 2, sessions)
        b.exchanges[old_at].append(([(w, _fill(t, slots)) for w, t in family.tell[0]], f"{family.key}-old"))
        b.exchanges[new_at].append(([(w, _fill(t, slots)) for w, t in family.tell[1]], family.key))
        asks.append(("update", _fill(rng.choice(family.ask), slots), slots["new"], family.key))
    start = datetime(2022, 1, 1, 10) + timedelta(days=rng.randrange(700), minutes=rng.randrange(600))
    conv, evidence = b.write(start)
    dates = b.session_dates
    for family, session in zip(events, event_sessions):
        values = family.values[0]
        asks.append(("temporal", f"When did {p} {values['do']}?", dates[session].strftime("%-d %B %Y"), family.key))
    month_of = [d.strftime("%B %Y") for d in dates]
    for family, session in zip(events[:4], event_sessions[:4]):
        others = [s for fam, s in zip(events, event_sessions) if fam is not family and month_of[s] == month_of[session]]
        if not others:  # the only event that month: "in <month>" names it
            asks.append(("temporal", f"What did {p} do in {month_of[session]}?", family.values[0]["did"], family.key))
            break
    last = events[-1].values[0]
    asks.append(("temporal", f"What did {p} tell {f} about yesterday?", last["did"], events[-1].key))
    for first, second in rng.sample([(a, c) for i, a in enumerate(events) for c in events[i + 1 :]], 2):
        x, y = first.values[0]["what"], second.values[0]["what"]
        asks.append(("order", f"Which came first for {p}, {x} or {y}?", "", f"{first.key}|{second.key}"))
    qa = []
    for kind, question, answer, tags in asks:
        ids = [i for tag in tags.split("|") for i in evidence.get(tag, [])]
        item = {"question": question, "answer": answer, "evidence": ids, "category": 0, "kind": kind}
        if kind == "update":
            item["stale"] = evidence.get(f"{tags}-old", [])
        qa.append(item)
    return {"sample_id": f"{split}-{seed}", "conversation": conv, "qa": qa}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=sorted(SEEDS), default="dev")
    parser.add_argument("--out", required=True, help="the JSON file to write (LoCoMo's format)")
    args = parser.parse_args(argv)
    data = [conversation(seed, args.split) for seed in SEEDS[args.split]]
    Path(args.out).write_text(json.dumps(data, indent=1))
    questions = sum(len(c["qa"]) for c in data)
    turns = sum(len(v) for c in data for k, v in c["conversation"].items() if isinstance(v, list))
    print(f"{args.split}: {len(data)} conversations, {turns} turns, {questions} questions -> {args.out}")


if __name__ == "__main__":
    main()
