"""Event time: when something happened, as opposed to when it was stored; time-range recall; dates in text."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from audrey_core import InvalidInputError

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)


def test_event_time_is_stored_and_returned(brain):
    mid = brain.encode("the team offsite happened in Porto", event_time=T0)
    memory = brain.get(mid)
    assert memory.event_time == T0 and memory.created_at != T0
    assert brain.recall("offsite Porto")[0].event_time == T0
    with pytest.raises(InvalidInputError, match="timezone-aware"):
        brain.encode("naive time", event_time=datetime(2024, 1, 1))
    with pytest.raises(InvalidInputError, match="event_time"):
        brain.encode_batch([{"content": "x", "event_time": "yesterday"}])


@pytest.fixture(params=["span searched alone", "filtered search"])
def span_path(request, brain):
    """Both ways a time range is searched: among the span's memories (a narrow span), or with the filter applied to
    each index's candidates (a span holding more than IndexConfig.span_exact_upto memories)."""
    if request.param == "filtered search":
        brain._storage.index_config = replace(brain._storage.index_config, span_exact_upto=0)
    return request.param


@pytest.mark.parametrize("mode", ["hybrid", "vector", "keyword"])
def test_time_range_filters_inside_every_search(brain, clock, mode, span_path):
    march = brain.encode("standup notes about the billing migration", event_time=T0)
    june = brain.encode("standup notes about the billing migration, again", event_time=T0 + timedelta(days=100))
    stored_now = brain.encode("standup notes about the billing migration today")  # no event time: stored time
    spring = (T0 - timedelta(days=1), T0 + timedelta(days=30))
    assert [r.id for r in brain.recall("billing migration standup", mode=mode, time_range=spring)] == [march]
    later = (T0 + timedelta(days=50), None)
    assert {r.id for r in brain.recall("billing migration standup", mode=mode, time_range=later)} == {june, stored_now}
    assert [m.id for m in brain.list_memories(time_range=(None, T0 + timedelta(days=1)))] == [march]


@pytest.mark.parametrize("bad", [(T0,), (datetime(2024, 1, 1), None), (T0, T0 - timedelta(days=1)), (None, None)])
def test_bad_time_ranges(brain, bad):
    with pytest.raises(InvalidInputError, match="time_range"):
        brain.recall("x", time_range=bad)


def test_dates_in_text_stay_searchable_by_keyword(brain):
    mid = brain.encode("the contract renews on 2025-07-14, before the 15 July review")
    brain.encode("an unrelated note about lunch")
    assert [r.id for r in brain.recall("2025-07-14", mode="keyword")] == [mid]
    assert [r.id for r in brain.recall("renewal in July", mode="keyword")] == [mid]
