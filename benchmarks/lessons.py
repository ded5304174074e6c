"""Lessons learned from experience (issue 46): does a lesson met three times in other words become a principle?

    python -m benchmarks.lessons [--set dev|blind] [--misses] [--judge none|perfect]

The lessons of ``benchmarks.lesson_cases`` (each met three times in other words, observed directly, reported by a
tool and told by the user; beside it another failure of the same tool or service) and 300 routine notes of the same
domain are told to one Audrey, offline, with the local model, a day apart in a shuffled order; then ``consolidate()``
runs and each lesson's task (what the agent says before the next attempt, without naming the failure) is recalled.
Reported:

* principles formed: the share of lessons with a principle whose evidence holds at least two of its reports;
* mixed principles: principles whose evidence holds episodes of two lessons, or of a lesson and a hard negative or a
  routine note (principles of routine notes alone are counted apart: the notes repeat, as every service's new alert);
* lesson in the top 3 for the task: the share of tasks whose top 3 results hold the lesson's principle or one of its
  reports; principle first: of the lessons with a principle, the share whose principle comes before each of its
  reports in the task's first 10 results; others top 3: principles of other lessons (or routine notes) among the
  first 3 results of all tasks, counted;
* the cosine between two reports of one lesson under the model (median, lowest, highest): what clustering must
  reach;
* separable: the share of lessons whose reports are joined (their two closest pairs) at a higher cosine than any
  other memory told reaches to one of them: the most any rule on these cosines alone could cluster without mixing;
* word-separable: the share of lessons whose reports words join and nothing else: two memories join when they share
  a rare word (in at most RARE_WORD of the memories told: "429", "OOMKilled"), and a lesson counts when its reports
  end up in one group holding nothing else. The most a rule on shared keywords could cluster without mixing;
* routine notes flagged, disputed: validation's false flags before consolidation. Every routine note is true, and
  those of one service hold together ("The billing service got a new dashboard", "... was load tested"): the share
  left in a recorded contradiction, and how many were disputed (set aside, still recalled).

``--judge perfect``: the same with an LLM configured, scripted from the labels (:func:`perfect_judge`): what the LLM
path of clustering reaches when the model groups as well as a person would; its calls and pairs are reported.

``dev`` may be tuned on; ``blind`` (``benchmarks/lesson_cases/frozen_blind.py``, frozen by a hash) is run once, when
the work is done. Prints a table and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import tempfile
from collections import Counter
from datetime import datetime, timezone
from itertools import combinations
from pathlib import Path

import numpy as np

from audrey_core import Audrey, AudreyConfig
from audrey_core.config import ValidationConfig
from audrey_core.providers.embedding import embed_texts
from audrey_core.rules.keywords import query_terms
from audrey_core.rules.union_find import UnionFind
from audrey_core.testing import ManualClock, ScriptedLLM, lesson_pairs

from . import embedders
from .lesson_cases import DEVELOPMENT_LESSONS, FROZEN_BLIND_LESSONS, Lesson, distractors

SETS = {"dev": DEVELOPMENT_LESSONS, "blind": FROZEN_BLIND_LESSONS}
TOP = 3
RARE_WORD = 3  # a word in at most this many of the memories told is rare (word-separable)
FIRST_AMONG = 10  # results read to see whether a lesson's principle comes before its reports


def perfect_judge(told: list[tuple[str, str, str]]) -> ScriptedLLM:
    """An LLM that groups as the labels do: two reports of one lesson are the same lesson; a hard negative, a routine
    note or another lesson is not. The principle it writes is its first observation's text (a stand-in), and it
    finds every pair validation asks about unrelated."""
    key_of = {" ".join(text.split()): key for key, _, text in told}
    lessons = _lessons_told(told)

    def same_lesson(messages):
        same = [(n, key_of.get(a) == key_of.get(b) and key_of.get(a) in lessons) for n, a, b in lesson_pairs(messages)]
        return {"judgements": [{"pair": n, "same": verdict} for n, verdict in same]}

    def principle(messages):
        first = re.search(r"^- \[[^\]]*\] (.*)$", messages[-1]["content"], flags=re.MULTILINE)
        return {"principle": first.group(1) if first else "?", "evidence_diverse": True}

    unrelated = {"relation": "unrelated", "reason": "scripted"}
    return ScriptedLLM(
        {"same_lesson": same_lesson, "principle_extraction": principle, "contradiction_check": unrelated}
    )


def run(lessons: tuple[Lesson, ...], embedder, misses: bool, judge: str = "none") -> dict:
    told: list[tuple[str, str, str]] = [("distractor", source, text) for source, text in distractors()]
    for lesson in lessons:
        told += [(lesson.key, source, text) for source, text in lesson.reports]
        told.append((f"negative:{lesson.key}", *lesson.negative))
    random.Random(46).shuffle(told)
    clock = ManualClock(datetime(2025, 1, 6, 9, tzinfo=timezone.utc))
    config = AudreyConfig(validation=ValidationConfig(background=False))
    llm = perfect_judge(told) if judge == "perfect" else None
    owner: dict[str, str] = {}
    with (
        tempfile.TemporaryDirectory(prefix="audrey-lessons-") as folder,
        Audrey(
            Path(folder) / "lessons.db", agent="ops", embedder=embedder, clock=clock, config=config, llm=llm
        ) as brain,
    ):
        for key, source, text in told:
            owner[brain.encode(text, source=source)] = key
            clock.advance(hours=6)
        notes = {memory_id for memory_id, key in owner.items() if key == "distractor"}
        flagged = notes & {side for c in brain.contradictions() for side in (c.claim_a_id, c.claim_b_id)}
        disputed = sum(m is not None and m.state == "disputed" for m in brain.get_many(sorted(notes)))
        consolidation = brain.consolidate()
        principles = list(brain.iter_memories(types=["semantic"]))
        formed: set[str] = set()
        mixed = routine = 0
        for principle in principles:
            keys = {owner.get(e, "?") for e in principle.evidence_episode_ids}
            if keys == {"distractor"}:
                routine += 1  # routine notes that repeat (every service got an alert): no lesson, no harm
            elif len(keys) > 1 or not keys <= {lesson.key for lesson in lessons}:
                mixed += 1
                if misses:
                    print(f"  mixed: {sorted(keys)}: {principle.content[:90]!r}")
            elif sum(owner.get(e) in keys for e in principle.evidence_episode_ids) >= 2:
                formed |= keys
        top = first = intruders = 0
        for lesson in lessons:

            def of_lesson(memory_id: str, key: str = lesson.key) -> bool:
                return owner.get(memory_id) == key or _rests_on(brain, memory_id, key, owner)

            best = brain.recall(lesson.task, limit=TOP)
            top += any(of_lesson(r.id) for r in best)
            intruders += sum(r.memory_type != "episodic" and not of_lesson(r.id) for r in best)
            mine = [r for r in brain.recall(lesson.task, limit=FIRST_AMONG) if of_lesson(r.id)]
            first += bool(mine) and mine[0].memory_type != "episodic"
            if misses and lesson.key in formed and not (mine and mine[0].memory_type != "episodic"):
                found = ", ".join(f"{r.memory_type} {r.score:.3f}" for r in mine) or f"none in the first {FIRST_AMONG}"
                print(f"  principle not first: {lesson.key}: {found}")
            if misses and lesson.key not in formed:
                print(f"  no principle: {lesson.key}")
    cosines = _report_cosines(lessons, embedder)
    separable = _separable(told, embedder)
    word_separable = _word_separable(told)
    return {
        "lessons": len(lessons),
        "episodes": len(told),
        "principles": len(principles),
        "formed": round(100 * len(formed) / len(lessons), 1),
        "mixed": mixed,
        "routine": routine,
        "top3": round(100 * top / len(lessons), 1),
        "principle_first": round(100 * first / len(formed), 1) if formed else None,
        "other_principles_top3": intruders,
        "report_cosine_median": round(statistics.median(cosines), 3),
        "report_cosine_min": round(min(cosines), 3),
        "report_cosine_max": round(max(cosines), 3),
        "separable": round(100 * separable / len(lessons), 1),
        "word_separable": round(100 * word_separable / len(lessons), 1),
        "routine_flagged": round(100 * len(flagged) / len(notes), 1),
        "routine_disputed": disputed,
        "run_status": consolidation.status,
        "judge": judge,
        "grouping_calls": len(llm.calls_for("same_lesson")) if llm else 0,
        "pairs_asked": sum(m[-1]["content"].count("\n   B: ") for m in llm.calls_for("same_lesson")) if llm else 0,
    }


def _rests_on(brain: Audrey, memory_id: str, key: str, owner: dict[str, str]) -> bool:
    """Whether a recalled principle rests on the lesson's reports alone."""
    evidence = getattr(brain.get(memory_id), "evidence_episode_ids", ())
    return bool(evidence) and all(owner.get(e) == key for e in evidence)


def _report_cosines(lessons: tuple[Lesson, ...], embedder) -> list[float]:
    """The cosine between each two reports of one lesson."""
    cosines = []
    for lesson in lessons:
        vectors = np.asarray(embed_texts(embedder, [text for _, text in lesson.reports]), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        cosines += [float(vectors[i] @ vectors[j]) for i, j in combinations(range(len(vectors)), 2)]
    return cosines


def _separable(told: list[tuple[str, str, str]], embedder) -> int:
    """Lessons whose second-closest pair of reports is closer than any other told memory is to one of its reports
    (two pairs join three reports; a closer outsider is joined first by any threshold that joins them)."""
    vectors = np.asarray(embed_texts(embedder, [text for _, _, text in told]), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    cosines = vectors @ vectors.T
    keys = np.array([key for key, _, _ in told])
    count = 0
    for key in _lessons_told(told):
        mine = np.flatnonzero(keys == key)
        pairs = sorted(cosines[a, b] for a, b in combinations(mine, 2))
        others = np.flatnonzero(keys != key)
        count += int(len(pairs) >= 2 and bool(pairs[-2] > cosines[np.ix_(mine, others)].max()))
    return count


def _lessons_told(told: list[tuple[str, str, str]]) -> set[str]:
    """The keys of the lessons among what was told (not a routine note or a hard negative)."""
    return {key for key, _, _ in told if key != "distractor" and not key.startswith("negative:")}


def _word_separable(told: list[tuple[str, str, str]]) -> int:
    """Lessons whose reports, joined wherever two memories told share a rare word, form a group of their own."""
    words = [set(query_terms(text)) for _, _, text in told]
    counts = Counter(w for held in words for w in held)
    rare = [{w for w in held if counts[w] <= RARE_WORD} for held in words]
    groups = UnionFind(list(range(len(told))))
    for a, b in combinations(range(len(told)), 2):
        if rare[a] & rare[b]:
            groups.union(a, b)
    group_of = {member: set(group) for group in groups.groups() for member in group}
    keys = [key for key, _, _ in told]
    count = 0
    for key in _lessons_told(told):
        mine = {i for i, k in enumerate(keys) if k == key}
        count += group_of[min(mine)] == mine
    return count


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=sorted(SETS), default="dev", help="blind: the frozen set, run once")
    parser.add_argument("--misses", action="store_true", help="print lessons without a principle and mixed ones")
    parser.add_argument(
        "--judge",
        choices=("none", "perfect"),
        default="none",
        help="perfect: an LLM scripted from the labels groups the reports (what the LLM path can reach)",
    )
    embedders.add_option(parser)
    args = parser.parse_args(argv)
    row = run(SETS[args.set], embedders.named(args.embedder), args.misses, args.judge)
    how = "offline" if args.judge == "none" else f"a {args.judge} LLM judge, {row['grouping_calls']} grouping calls"
    print(f"\nLessons met three times in other words ({args.set}; {how}; local model); shares in %")
    header = (
        "lessons",
        "principles",
        "formed",
        "mixed",
        "routine",
        f"top {TOP}",
        "first",
        "others top 3",
        "cos median",
    )
    cells = ("lessons", "principles", "formed", "mixed", "routine", "top3", "principle_first", "other_principles_top3")
    cells += ("report_cosine_median",)
    extra = ("report_cosine_min", "report_cosine_max", "separable", "word_separable")
    print("".join(f"{h:>14}" for h in (*header, "cos min", "cos max", "separable", "by rare words")))
    print("".join(f"{row[c]!s:>14}" for c in (*cells, *extra)))
    print(f"routine notes (all true): {row['routine_flagged']}% in a contradiction, {row['routine_disputed']} disputed")
    result = {"benchmark": "lessons", "set": args.set, **row}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
