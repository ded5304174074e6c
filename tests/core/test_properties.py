"""Property tests over every public input of the core: any input either works or raises an AudreyError (never a
foreign exception), a refused call writes nothing, and SQLite and PostgreSQL give the same outcome."""

from __future__ import annotations

from datetime import timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audrey_core import Audrey, AudreyError

from ..conftest import SYNC
from ..properties import PROPERTY_SETTINGS, anything, filters, integers, json_values, scopes, tag_lists, texts
from .helpers import table_counts


@pytest.fixture
def pair(both_brains):
    """Both backends, each holding the same three memories."""
    for brain in both_brains:
        brain.encode("billing runs on Fridays", tags=["billing"], metadata={"topic": "billing", "n": 3})
        brain.encode("support answers in French", tags=["support"], metadata={"topic": "support", "n": 7})
        brain.encode("the vault code is 4711", scope=("users", "john"), metadata={"n": None})
    return both_brains


def outcome(call, brain):
    """("ok", value) or ("error", the AudreyError subclass); anything else fails the test with its traceback."""
    try:
        return "ok", call(brain)
    except AudreyError as exc:
        return "error", type(exc)


def same_everywhere(pair, call, view=lambda value: value):
    """Run ``call`` on both backends: each works or raises an AudreyError, a failure writes nothing, and the two
    agree (on ``view`` of the value)."""
    results = []
    for brain in pair:
        before = table_counts(brain)
        kind, value = outcome(call, brain)
        if kind == "error":
            assert table_counts(brain) == before
        results.append((kind, view(value) if kind == "ok" else value))
    assert results[0] == results[1]
    return results[0]


def stored(brain, memory_id):
    m = brain.get(memory_id)
    return (m.content, m.source, m.tags, m.metadata, m.scope, m.key)


@PROPERTY_SETTINGS
@given(
    content=st.one_of(texts, anything),
    source=st.one_of(st.sampled_from(["tool-result", "told-by-user"]), anything),
    salience=st.one_of(st.floats(), integers, anything),
    tags=tag_lists,
    metadata=st.one_of(st.dictionaries(st.one_of(texts, st.just("$x")), json_values, max_size=3), anything),
    scope=scopes,
    key=st.one_of(st.none(), texts, anything),
    memory_id=st.one_of(st.none(), texts),
)
def test_encode_takes_any_input_safely(pair, content, source, salience, tags, metadata, scope, key, memory_id):
    call = lambda b: b.encode(  # noqa: E731
        content, source=source, salience=salience, tags=tags, metadata=metadata, scope=scope, key=key, id=memory_id
    )
    same_everywhere(pair, lambda b: stored(b, call(b)))


@PROPERTY_SETTINGS
@given(
    items=st.lists(
        st.one_of(
            texts,
            st.dictionaries(
                st.sampled_from(["content", "source", "tags", "metadata", "scope", "bogus"]), anything, max_size=4
            ),
        ),
        max_size=3,
    ),
    replace=st.booleans(),
)
def test_encode_batch_is_all_or_nothing(pair, items, replace):
    same_everywhere(pair, lambda b: [stored(b, i) for i in b.encode_batch(items, replace=replace)])


@PROPERTY_SETTINGS
@given(
    query=st.one_of(texts, anything),
    limit=st.one_of(integers, anything),
    tags=tag_lists,
    flt=filters,
    scope=scopes,
    scope_prefix=scopes,
    mode=st.one_of(st.sampled_from(["hybrid", "vector", "keyword"]), anything),
    min_confidence=st.one_of(st.floats(), anything),
)
def test_recall_takes_any_input_safely(pair, query, limit, tags, flt, scope, scope_prefix, mode, min_confidence):
    same_everywhere(
        pair,
        lambda b: b.recall(
            query,
            limit=limit,
            tags=tags,
            filter=flt,
            scope=scope,
            scope_prefix=scope_prefix,
            mode=mode,
            min_confidence=min_confidence,
        ),
        view=lambda results: None,  # the keyword scorers differ (BM25, ts_rank): compare that both worked
    )


@PROPERTY_SETTINGS
@given(flt=filters, limit=st.one_of(integers, anything), offset=st.one_of(integers, anything), tags=tag_lists)
def test_listing_filters_agree_on_both_backends(pair, flt, limit, offset, tags):
    same_everywhere(
        pair,
        lambda b: b.list_memories(limit=limit, offset=offset, tags=tags, filter=flt),
        view=lambda memories: sorted(m.content for m in memories),
    )


@PROPERTY_SETTINGS
@given(ids=st.one_of(st.lists(st.one_of(texts, anything), max_size=3), anything), one=st.one_of(texts, anything))
def test_lookups_and_forgetting_by_any_id_are_safe(pair, ids, one):
    same_everywhere(pair, lambda b: b.get(one))
    same_everywhere(pair, lambda b: [m is None for m in b.get_many(ids)])
    same_everywhere(pair, lambda b: sorted(b.vectors(ids)))
    same_everywhere(pair, lambda b: b.forget(ids))
    same_everywhere(pair, lambda b: b.rollback(one))


@PROPERTY_SETTINGS
@given(
    agent=st.one_of(texts, anything),
    scope=scopes,
    time_range=st.one_of(
        anything,
        st.tuples(
            st.one_of(st.none(), st.datetimes(timezones=st.just(timezone.utc)), anything),
            st.one_of(st.none(), st.datetimes(), anything),
        ),
    ),
)
def test_opening_and_time_ranges_take_any_input_safely(pair, both_locations, agent, scope, time_range):
    def opened(location):
        with Audrey(location, agent=agent, scope=scope, embedder=pair[0].embedder, config=SYNC) as other:
            return sorted(m.content for m in other.list_memories(limit=5))

    assert outcome(opened, both_locations[0]) == outcome(opened, both_locations[1])
    same_everywhere(
        pair,
        lambda b: b.list_memories(limit=5, time_range=time_range),
        view=lambda memories: sorted(m.content for m in memories),
    )
