"""Caller ids and replace, explicit forgetting, metadata filters (SQL agrees with the Python reference), scopes."""

from __future__ import annotations

import itertools

import pytest

from audrey_core import Audrey, InvalidInputError
from audrey_core.rules.filters import matches, parse_filter

from .helpers import table_counts

# -- ids, replace, forget ----------------------------------------------------------------------------------------


def test_caller_ids_and_replace(brain):
    assert brain.encode("first text", id="doc-1", scope=["kb"], key="k1") == "doc-1"
    memory = brain.get("doc-1")
    assert (memory.scope, memory.key) == (("kb",), "k1")
    with pytest.raises(InvalidInputError, match=r"already exist.*replace=True"):
        brain.encode("again", id="doc-1")
    with pytest.raises(InvalidInputError, match="twice"):
        brain.encode_batch([{"content": "a", "id": "x"}, {"content": "b", "id": "x"}])
    brain.encode_batch([{"content": "replacement text", "id": "doc-1", "metadata": {"v": 2}}], replace=True)
    assert brain.get("doc-1").content == "replacement text" and brain.get("doc-1").metadata == {"v": 2}
    assert table_counts(brain)["episodes"] == 1 and table_counts(brain)["memory_vectors"] == 1
    assert brain.recall("replacement", limit=1)[0].id == "doc-1"


def test_forget_deletes_for_good_and_is_audited(brain):
    keep = brain.encode("keep me", tags=["t"])
    gone = brain.encode("forget me", tags=["t"])
    seen = []
    brain.on("forget", seen.append)
    assert brain.forget([gone, "no-such-id"]) == [gone]
    assert brain.get(gone) is None and [r.id for r in brain.recall("me", tags=["t"])] == [keep]
    assert table_counts(brain) == {
        "episodes": 1,
        "semantics": 0,
        "procedures": 0,
        "memory_tags": 1,
        "memory_vector_rows": 1,
        "memory_text_rows": 1,
        "memory_vectors": 1,
    }
    assert brain.audit_log()[-1]["details"] == {"ids": [gone]}
    assert seen == [{"memory_ids": [gone]}]
    with pytest.raises(InvalidInputError):
        brain.forget("not-a-list")


def test_forgetting_a_correction_revives_what_it_corrected(brain):
    old = brain.encode("the office is on floor 3")
    new = brain.encode("the office moved to floor 5", supersedes=old)
    brain.forget([new])
    assert brain.get(old).state == "active" and brain.get(old).superseded_by is None
    assert [r.id for r in brain.recall("office floor")] == [old]


def test_forget_only_touches_this_agents_memories(db_path, embedder):
    with Audrey(db_path, agent="alice", embedder=embedder) as alice:
        hers = alice.encode("alice's secret")
    with Audrey(db_path, agent="bob", embedder=embedder) as bob:
        assert bob.forget([hers]) == []
    with Audrey(db_path, agent="alice", embedder=embedder) as alice:
        assert alice.get(hers) is not None


# -- metadata filters -----------------------------------------------------------------------------------------------

ROWS = [
    {"n": 1, "lang": "en", "flag": True, "tag": "a"},
    {"n": 2, "lang": "fr", "flag": False},
    {"n": 3.5, "lang": "en", "tag": None},
    {"n": "3", "lang": "de", "nested": {"x": 1}},
    {"lang": "en", "list": [1, 2]},
    {"n": 10, 'we"ird.key': "yes"},
]
FILTERS = [
    {"lang": "en"},
    {"lang": {"$ne": "en"}},
    {"n": {"$gt": 1}},
    {"n": {"$gte": 2, "$lt": 10}},
    {"n": {"$lte": 3}},
    {"n": 3},
    {"n": "3"},
    {"flag": True},
    {"flag": False},
    {"tag": None},
    {"tag": {"$ne": None}},
    {"lang": {"$in": ["fr", "de"]}},
    {"lang": {"$nin": ["fr", "de"]}},
    {"tag": {"$in": ["a", None]}},
    {"$or": [{"lang": "fr"}, {"n": {"$gt": 3}}]},
    {"$and": [{"lang": "en"}, {"n": {"$lt": 3}}]},
    {"lang": "en", "n": {"$gte": 1}},
    {"nested": 1},
    {"list": 1},
    {'we"ird.key': "yes"},
    {"missing": "x"},
    {"n": {"$gt": "2"}},
    {"$or": [{}]},  # an empty dict inside $or / $and is no condition
    {"$and": [{}, {"lang": "en"}]},
    {"$or": [{"lang": "fr"}, {}]},
]


@pytest.mark.parametrize("spec", FILTERS, ids=[str(f) for f in FILTERS])
def test_sql_filters_agree_with_the_python_reference(brain, spec):
    ids = brain.encode_batch([{"content": f"row {i}", "metadata": row} for i, row in enumerate(ROWS)])
    expected = sorted(i for i, row in zip(ids, ROWS) if matches(parse_filter(spec), row))
    by_listing = sorted(m.id for m in brain.list_memories(limit=100, filter=spec))
    by_recall = sorted(r.id for r in brain.recall("row", limit=100, filter=spec))
    assert by_listing == expected == by_recall


@pytest.mark.parametrize(
    "spec,message",
    [
        ("x", "must be a dict"),
        ({"$xor": []}, "unknown filter operator"),
        ({"a": {"$regex": "x"}}, "unknown"),
        ({"a": {"$in": "abc"}}, "list of scalar"),
        ({"a": {"$gt": None}}, "cannot compare"),
        ({"a": {}}, "no operator"),
        ({"a": [1, 2]}, "scalar"),
        ({"$or": []}, "non-empty list"),
    ],
)
def test_bad_filters(brain, spec, message):
    with pytest.raises(InvalidInputError, match=message):
        brain.recall("x", filter=spec)


# -- scopes ------------------------------------------------------------------------------------------------------

LOOKALIKES = [
    ("user", "john_doe"),
    ("user", "john-doe"),
    ("user", "john%"),
    ("user", "john_doe2"),
    ("user", "john"),
    ("user", "john_doe", "notes"),
    ("users", "john_doe"),
    (),
]


def test_scopes_match_whole_segments_and_nothing_is_a_wildcard(brain):
    ids = {scope: brain.encode(f"the note of {'/'.join(scope) or 'root'}", scope=scope) for scope in LOOKALIKES}
    for scope in LOOKALIKES:
        exact = {r.id for r in brain.recall("note", limit=50, scope=scope)}
        assert exact == {ids[scope]}, scope
        below = {r.id for r in brain.recall("note", limit=50, scope_prefix=scope)}
        expected = {ids[s] for s in LOOKALIKES if s[: len(scope)] == scope}
        assert below == expected, scope
        assert {m.id for m in brain.list_memories(limit=50, scope_prefix=scope)} == expected
    assert brain.scopes() == sorted(LOOKALIKES)


def test_bad_scopes(brain):
    for bad in ["user", [""], ["a\x1fb"], [1]]:
        with pytest.raises(InvalidInputError, match="scope"):
            brain.encode("x", scope=bad)


def test_list_memories_pages_newest_first(brain, clock):
    ids = []
    for i in range(7):
        ids.append(brain.encode(f"item {i}"))
        clock.advance(seconds=1)
    pages = [[m.id for m in brain.list_memories(limit=3, offset=o)] for o in (0, 3, 6)]
    assert list(itertools.chain(*pages)) == ids[::-1]
    with pytest.raises(InvalidInputError, match="offset"):
        brain.list_memories(offset=-1)


def test_storage_is_deprecated_and_the_audit_log_is_the_tenants(db_path, embedder):
    with Audrey(db_path, agent="a", embedder=embedder) as brain:
        with pytest.warns(DeprecationWarning, match="not bound to the instance's tenant"):
            assert brain.storage is brain._storage
        gone = brain.encode("forget me")
        brain.forget([gone])
        assert [e["details"]["ids"] for e in brain.audit_log() if e["action"] == "forget"] == [[gone]]
    with Audrey(db_path, agent="b", embedder=embedder) as other:
        assert other.audit_log() == []


def test_the_memory_classes_old_names_still_import_with_a_warning():
    import audrey_core
    from audrey_core import Episodic, Procedural, models

    with pytest.warns(DeprecationWarning, match="Episode is now Episodic"):
        assert audrey_core.Episode is Episodic
    with pytest.warns(DeprecationWarning, match="Procedure is now Procedural"):
        assert models.Procedure is Procedural
    with pytest.raises(AttributeError):
        audrey_core.Nothing  # noqa: B018


def test_the_testing_helpers_stay_inside_the_tenant(db_path, embedder):
    from audrey_core.testing import add_principle, set_states

    with Audrey(db_path, agent="a", scope=("user", "ann"), embedder=embedder) as ann:
        principle = add_principle(ann, "deploys need two approvals", memory_type="procedural")
        assert ann.get(principle).memory_type == "procedural" and ann.get(principle).scope == ("user", "ann")
        set_states(ann, {principle: "dormant"})
        assert ann.get(principle).state == "dormant"
        with pytest.raises(InvalidInputError, match="outside"):
            add_principle(ann, "elsewhere", scope=("user", "bob"))
    with Audrey(db_path, agent="a", scope=("user", "bob"), embedder=embedder) as bob:
        with pytest.raises(ValueError, match="no memories"):
            set_states(bob, {principle: "active"})
        assert bob.rebuild_indexes() is not None
