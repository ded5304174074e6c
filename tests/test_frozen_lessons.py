"""The lessons of issue 46: the blind part is frozen (its hash), and every lesson is what the issue asks for: three
reports in other words from three sources, a hard negative of the same tool or service, and a task that does not
name the failure."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re

from benchmarks.lesson_cases import DEVELOPMENT_LESSONS, FROZEN_BLIND_LESSONS, distractors
from benchmarks.lesson_cases.case import OBSERVED, TOOL, USER

FROZEN_SHA256 = "95cb40079696ee0017ef50ee3b4276f1f82528a32ddffbe3e74fa03ee0b3ab92"


def test_the_blind_lessons_are_frozen():
    text = json.dumps([dataclasses.asdict(lesson) for lesson in FROZEN_BLIND_LESSONS], sort_keys=True).encode()
    assert hashlib.sha256(text).hexdigest() == FROZEN_SHA256, "the frozen blind lessons changed"


def test_every_lesson_is_met_three_times_from_three_sources_beside_a_hard_negative():
    lessons = DEVELOPMENT_LESSONS + FROZEN_BLIND_LESSONS
    assert len(lessons) >= 40 and len({lesson.key for lesson in lessons}) == len(lessons)
    coded = re.compile(r"\b\d{3,}\b")  # an error or status code: 429, 30034, 137
    for lesson in lessons:
        sources = [source for source, _ in lesson.reports]
        assert sorted(sources) == sorted([OBSERVED, TOOL, USER]), lesson.key
        texts = [text for _, text in lesson.reports]
        assert len(set(texts)) == 3 and lesson.negative[1] not in texts
        codes = {code for text in (*texts, lesson.negative[1]) for code in coded.findall(text)}
        assert not codes & set(coded.findall(lesson.task)), lesson.key  # the task names no error code


def test_the_distractors_are_routine_notes_of_the_domain():
    notes = distractors()
    assert len(notes) == 300 and len({text for _, text in notes}) == 300 and notes == distractors()
    assert {source for source, _ in notes} == {OBSERVED, TOOL, USER}
