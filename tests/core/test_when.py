"""Reading time in a question (rules/when.py), against a fixed clock."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from audrey_core.rules.lists import asks_for_many
from audrey_core.rules.turns import affected, named_speaker, window_text
from audrey_core.rules.when import read_time

NOW = datetime(2023, 12, 20, 15, 0, tzinfo=timezone.utc)  # a Wednesday


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What dish did Nate make on 9 November, 2022?", day(2022, 11, 9), day(2022, 11, 10)),
        ("How did Joanna feel on October 25, 2022 about it?", day(2022, 10, 25), day(2022, 10, 26)),
        ("What book did Tim finish on 8th December, 2023?", day(2023, 12, 8), day(2023, 12, 9)),
        ("What was the topic on 2023-05-08?", day(2023, 5, 8), day(2023, 5, 9)),
        ("What did Nate share in November 2022?", day(2022, 11, 1), day(2022, 12, 1)),
        ("When did John get an ankle injury in 2023?", day(2023, 1, 1), day(2024, 1, 1)),
        ("Where was John between August 11 and August 15 2023?", day(2023, 8, 11), day(2023, 8, 16)),
        ("Where was Tim in the week before 16 November 2023?", day(2023, 11, 9), day(2023, 11, 16)),
        ("What happened before 3 March 2023?", None, day(2023, 3, 3)),
        ("What has she done since May 2023?", day(2023, 5, 1), None),
        ("What did she do after 2021?", day(2022, 1, 1), None),
    ],
)
def test_calendar_dates_are_explicit(question, start, end):
    window = read_time(question, NOW).window
    assert window is not None and window.explicit
    assert (window.start, window.end) == (start, end)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What did we discuss yesterday?", day(2023, 12, 19), day(2023, 12, 20)),
        ("What did I say today?", day(2023, 12, 20), day(2023, 12, 21)),
        ("What did I do last week?", day(2023, 12, 11), day(2023, 12, 18)),
        ("Anything planned this week?", day(2023, 12, 18), day(2023, 12, 25)),
        ("What did we do last weekend?", day(2023, 12, 16), day(2023, 12, 18)),
        ("What happened last month?", day(2023, 11, 1), day(2023, 12, 1)),
        ("What happened last year?", day(2022, 1, 1), day(2023, 1, 1)),
        ("What did I say last Tuesday?", day(2023, 12, 19), day(2023, 12, 20)),
        ("What did I say on Monday?", day(2023, 12, 18), day(2023, 12, 19)),
        ("What did John get in December?", day(2023, 12, 1), day(2024, 1, 1)),
        ("Who did she meet in June?", day(2023, 6, 1), day(2023, 7, 1)),
        ("What happened in the past 3 days?", NOW - timedelta(days=3), None),
    ],
)
def test_relative_and_partial_times_are_vague(question, start, end):
    window = read_time(question, NOW).window
    assert window is not None and not window.explicit
    assert (window.start, window.end) == (start, end)


def test_ago_centres_a_span_on_that_moment():
    window = read_time("What did you eat two weeks ago?", NOW).window
    assert window is not None and window.start < NOW - timedelta(weeks=2) < window.end
    assert window.end - window.start == timedelta(days=7)


def test_words_that_only_look_like_time_are_not_read_as_time():
    for question in ("May I ask what you cooked?", "What did she march for?", "How many people attended?"):
        assert read_time(question, NOW).window is None, question


def test_events_anchor_and_order_words():
    found = read_time("What did she do before she moved to Berlin?", NOW)
    assert found.window is None and found.anchor == ("before", "she moved to Berlin")
    assert read_time("Which city was John in before traveling to Chicago?", NOW).anchor == (
        "before",
        "traveling to Chicago",
    )
    assert read_time("When did she read a novel for the first time?", NOW).order == "earliest"
    assert read_time("Where does she work these days?", NOW).order == "latest"
    assert read_time("Who won first place, and where is she now?", NOW).order is None
    assert read_time("What did she say most recently about it?", NOW).order == "latest"
    assert not read_time("What is the name of her dog?", NOW)


def test_a_date_follows_the_clock_time_zone():
    tokyo = timezone(timedelta(hours=9))
    window = read_time("What happened yesterday?", datetime(2023, 12, 20, 1, 0, tzinfo=tokyo)).window
    assert window is not None and window.start == datetime(2023, 12, 19, tzinfo=tokyo)


def test_turn_windows_and_speakers():
    assert window_text({0: ["a"], 1: ["b"], 2: ["c", "c2"], 4: ["e"]}, 1, 1, 1) == "a c c2"
    assert affected({5}, before=2, after=1) == {4, 5, 6, 7}
    assert named_speaker(["Alice", "Bob", "Alice"], ["which", "dog", "alice", "adopt"]) == "Alice"
    assert named_speaker(["Alice", "Bob"], ["alice", "bob"]) is None
    assert named_speaker(["Mary Ann"], ["mary"]) is None and named_speaker(["Mary Ann"], ["mary", "ann"]) == "Mary Ann"


@pytest.mark.parametrize(
    ("question", "many"),
    [
        ("What activities has Melanie tried?", True),
        ("Which cities has Jon visited?", True),
        ("What types of pottery have Melanie and her kids made?", True),
        ("How many times has she gone to the beach?", True),
        ("What is the name of Maya's dog?", False),
        ("When did Caroline go to the support group?", False),
    ],
)
def test_list_questions(question, many):
    assert asks_for_many(question) is many
