"""Time in questions at recall: a calendar date is favoured strongly (and drops nothing), a relative span resolved
against the clock favours, "the first time" favours the earliest, ``order="time"`` returns results oldest first, and
``spread`` covers several sessions; on both backends."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from audrey_core import InvalidInputError

START = datetime(2026, 1, 1, tzinfo=timezone.utc)  # the test clock's first moment; it only moves forward
MAY = datetime(2026, 5, 8, 14, 0, tzinfo=timezone.utc)
JUNE = datetime(2026, 6, 20, 9, 0, tzinfo=timezone.utc)


def pottery(brain, when: datetime, session: str, text: str = "I went to a pottery class and made a bowl") -> str:
    return brain.encode(text, session=session, speaker="Mel", event_time=when)


def ids_of(results) -> list[str]:
    return [r.id for r in results]


def move_to(clock, moment: datetime) -> None:
    clock.advance(seconds=(moment - clock()).total_seconds())


def test_a_date_in_the_question_puts_what_was_said_then_first_and_drops_nothing(brain, clock):
    move_to(clock, JUNE + timedelta(days=30))
    may = pottery(brain, MAY, "s1")
    june = pottery(brain, JUNE, "s2", "I went to a pottery class and made a cup")
    assert ids_of(brain.recall("What did Mel make at pottery on 8 May, 2026?")) == [may, june]
    assert ids_of(brain.recall("What did Mel make at pottery in June 2026?")) == [june, may]
    assert set(ids_of(brain.recall("What did Mel make at pottery?"))) == {may, june}
    assert set(ids_of(brain.recall("What did Mel make at pottery on 1 January, 1999?"))) == {may, june}
    assert set(ids_of(brain.recall("pottery on 8 May, 2026", parse_time=False))) == {may, june}


def test_the_answer_told_days_after_the_date_it_names_is_found(brain, clock):
    outage = datetime(2026, 11, 9, 8, 0, tzinfo=timezone.utc)
    move_to(clock, outage)
    brain.encode("The payments API was down for two hours this morning", event_time=outage)
    brain.encode("The office plants were watered", event_time=outage)
    move_to(clock, outage + timedelta(days=3))
    answer = brain.encode("Priya was the on-call contact for the 9 November outage of the payments API")
    move_to(clock, outage + timedelta(days=10))
    found = ids_of(brain.recall("Who was the contact for the 9 November, 2026 outage?", limit=3))
    assert answer in found  # a date favours what was said then; it never drops what was said about it later


@pytest.mark.parametrize("mode", ["hybrid", "vector", "keyword"])
def test_a_relative_time_resolves_against_the_clock(brain, clock, mode):
    early = pottery(brain, MAY, "s1")
    late = pottery(brain, JUNE, "s2")
    question = "What did Mel make at pottery yesterday?"
    move_to(clock, MAY + timedelta(days=1))
    assert ids_of(brain.recall(question, mode=mode))[0] == early
    move_to(clock, JUNE + timedelta(days=1))
    assert ids_of(brain.recall(question, mode=mode))[0] == late


def test_first_and_latest_favour_the_ends_of_time(brain, clock):
    move_to(clock, JUNE + timedelta(days=10))
    early = pottery(brain, MAY, "s1")
    late = pottery(brain, JUNE, "s2")
    assert ids_of(brain.recall("the first time Mel went to a pottery class"))[0] == early
    assert ids_of(brain.recall("the pottery class Mel went to most recently"))[0] == late


def test_order_time_returns_the_chosen_memories_oldest_first(brain, clock):
    move_to(clock, JUNE + timedelta(days=10))
    late = pottery(brain, JUNE, "s2", "I moved to a flat by the river")
    early = pottery(brain, MAY, "s1", "I adopted a dog, a beagle called Biscuit")
    question = "did Mel adopt the dog before she moved to the flat?"
    assert set(ids_of(brain.recall(question, limit=2))) == {early, late}
    assert ids_of(brain.recall(question, limit=2, order="time")) == [early, late]


def test_spread_covers_several_sessions(brain):
    crowd = brain.encode_batch([{"content": f"hobby talk pottery class {n}", "session": "s1"} for n in range(5)])
    # a match a little weaker than the crowd's (longer), told later in another session
    away = brain.encode("hobby talk pottery class 9, said over a long and quiet dinner", session="s2")
    brain.wait_for_idle()
    question = "What hobbies has Mel tried?"
    assert set(ids_of(brain.recall(question, limit=4, mode="keyword"))) <= set(crowd)
    spread = ids_of(brain.recall(question, limit=4, mode="keyword", spread=True))
    assert away in spread and len(set(spread) & set(crowd)) == 3  # three from one session, then another's
    assert away in ids_of(brain.recall(question, limit=4, mode="keyword", spread="auto"))
    assert set(ids_of(brain.recall("pottery class", limit=4, mode="keyword", spread="auto"))) <= set(crowd)


@pytest.mark.parametrize(
    ("argument", "match"),
    [({"order": "sideways"}, "order"), ({"parse_time": "no"}, "parse_time"), ({"spread": "yes"}, "spread")],
)
def test_bad_recall_options(brain, argument, match):
    with pytest.raises(InvalidInputError, match=match):
        brain.recall("pottery", **argument)
