"""Tenant isolation by every path: an instance (an agent, and a scope within it) reaches only its own memories; a
look-alike tenant's memory behaves exactly like a missing one. Each test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from audrey_core import Audrey, InvalidInputError, NotFoundError

from ..conftest import SYNC
from .helpers import SOURCES3
from .vectors import PlacedEmbedder

JOHN = ("users", "john")
LOOK_ALIKES = [("users", "john_doe"), ("users", "john%"), ("users", "johnny"), ("users", "JOHN"), ("users",)]


def open_tenant(db_path, embedder, agent="iso", scope=JOHN):
    return Audrey(db_path, agent=agent, embedder=embedder, config=SYNC, scope=scope)


@pytest.fixture
def tenants(db_path, embedder):
    """One memory in john's scope and one in each look-alike scope and agent; their ids by owner."""
    ids = {}
    for scope in [JOHN, *LOOK_ALIKES]:
        with open_tenant(db_path, embedder, scope=scope) as brain:
            ids[scope] = brain.encode(f"secret of {'/'.join(scope)}: the vault code is 4711", tags=["vault"])
    for agent in ("iso2", "ISO", "is"):
        with open_tenant(db_path, embedder, agent=agent) as brain:
            ids[agent] = brain.encode(f"secret of agent {agent}: the vault code is 4711", tags=["vault"])
    return ids


def foreign(ids):
    return [memory_id for owner, memory_id in ids.items() if owner != JOHN]


def test_reads_by_id_see_only_the_tenants_own(db_path, embedder, tenants):
    with open_tenant(db_path, embedder) as john:
        assert john.get(tenants[JOHN]).scope == JOHN
        for memory_id in foreign(tenants):
            assert john.get(memory_id) is None
        assert john.get_many([tenants[JOHN], *foreign(tenants)])[1:] == [None] * len(foreign(tenants))
        assert set(john.vectors([tenants[JOHN], *foreign(tenants)])) == {tenants[JOHN]}


def test_forget_leaves_other_tenants_memories_alone(db_path, embedder, tenants):
    with open_tenant(db_path, embedder) as john:
        assert john.forget(foreign(tenants)) == []
        assert john.forget([tenants[JOHN]]) == [tenants[JOHN]]
    with open_tenant(db_path, embedder, scope=()) as everyone:  # every scope of the agent
        assert all(everyone.get(tenants[s]) is not None for s in LOOK_ALIKES)
    for agent in ("iso2", "ISO", "is"):
        with open_tenant(db_path, embedder, agent=agent) as other:
            assert other.get(tenants[agent]) is not None


def test_no_tenant_can_overwrite_or_take_another_tenants_id(db_path, embedder, tenants):
    with open_tenant(db_path, embedder, agent="mallory", scope=()) as mallory:
        for memory_id in foreign(tenants) + [tenants[JOHN]]:
            for replace in (True, False):
                with pytest.raises(InvalidInputError, match="cannot be used"):
                    mallory.encode_batch([{"content": "mallory was here", "id": memory_id}], replace=replace)
        with pytest.raises(InvalidInputError, match="cannot be used"):
            mallory.encode("mallory was here", id=tenants[JOHN])
    with open_tenant(db_path, embedder) as john:
        assert john.get(tenants[JOHN]).content.startswith("secret of users/john")
        assert john.get(tenants[JOHN]).agent == "iso"
        # a scoped instance cannot replace a memory of a sibling scope of its own agent either
        with pytest.raises(InvalidInputError, match="cannot be used"):
            john.encode_batch([{"content": "john was here", "id": tenants[("users", "john_doe")]}], replace=True)
        john.encode_batch([{"content": "john's own rewrite", "id": tenants[JOHN]}], replace=True)  # its own: fine
        assert john.get(tenants[JOHN]).content == "john's own rewrite"


def test_references_to_other_tenants_look_missing(db_path, embedder, tenants):
    with open_tenant(db_path, embedder) as john:
        for memory_id in foreign(tenants):
            with pytest.raises(NotFoundError, match="not a stored memory"):
                john.encode("a correction", supersedes=memory_id)
            with pytest.raises(NotFoundError, match="not stored memories"):
                john.encode("an inference", source="inference", derived_from=[memory_id])
        with pytest.raises(NotFoundError, match="not a stored memory"):
            john.encode("a correction", supersedes="01NOSUCHMEMORY0000000000000")  # the very same message


@pytest.mark.parametrize(
    "none_args", [{"scope": None}, {"scope_prefix": None}, {"scoped": False}, {"scope": None, "scope_prefix": None}]
)
def test_explicit_none_never_widens_a_scoped_recall(db_path, embedder, tenants, none_args):
    with open_tenant(db_path, embedder) as john:
        for mode in ("hybrid", "vector", "keyword"):
            found = {r.id for r in john.recall("vault code secret", limit=50, mode=mode, **none_args)}
            assert found == {tenants[JOHN]}, mode
        assert {m.id for m in john.list_memories(limit=50, **none_args)} == {tenants[JOHN]}
        assert {r.id for r in john.recall_by_vector(john.embed_query("vault code"), limit=50, **none_args)} == {
            tenants[JOHN]
        }


@pytest.mark.parametrize(
    "outside", [{"scope": ("users", "john_doe")}, {"scope_prefix": ("users",)}, {"scope_prefix": ()}]
)
def test_naming_a_scope_outside_the_instance_is_refused(db_path, embedder, tenants, outside):
    with open_tenant(db_path, embedder) as john:
        with pytest.raises(InvalidInputError, match="outside this instance's scope"):
            john.recall("vault code", **outside)
        with pytest.raises(InvalidInputError, match="outside this instance's scope"):
            john.list_memories(**outside)
        if "scope" in outside:
            with pytest.raises(InvalidInputError, match="outside this instance's scope"):
                john.encode("planted", scope=outside["scope"])
        assert john.scopes() == [JOHN]


def test_records_and_counts_stay_inside_the_tenant(db_path):
    placed = PlacedEmbedder(dimensions=64)
    for user in ("john", "john_doe"):
        with open_tenant(db_path, placed, scope=("users", user)) as brain:
            for i, source in enumerate(SOURCES3):
                brain.encode(placed.place(f"{user} takes tea at noon {i}", 0.97), source=source)
            brain.consolidate()
    with open_tenant(db_path, placed, scope=("users", "john_doe")) as doe:
        doe_runs = [r for r in doe.consolidation_history() if r.output_memory_ids]
    with open_tenant(db_path, placed) as john:
        runs = john.consolidation_history()
        assert runs and all(
            m.scope == JOHN for r in runs for m in john.get_many(list(r.input_episode_ids)) if m is not None
        )
        assert {r.id for r in runs}.isdisjoint({r.id for r in doe_runs})
        with pytest.raises(NotFoundError):
            john.rollback(doe_runs[0].id)
        assert all(john.get(link.memory_id) is not None for link in john.causal_links())
        assert john.introspect().counts["episodic"] == 3 and john.introspect().counts["semantic"] == 1
        report = john.decay()
        assert report.examined == 4
    with open_tenant(db_path, placed, scope=()) as everyone:
        assert everyone.introspect().counts["episodic"] == 6
        assert len(everyone.consolidation_history()) == 2


def test_poisoned_metadata_is_refused_and_other_tenants_filters_keep_working(db_path, embedder):
    with open_tenant(db_path, embedder, agent="eve", scope=()) as eve:
        for metadata in ({"topic": "a\x00b"}, {"a\x00b": 1}, {"topic": "\ud800"}, {"n": 10**20}, {"$or": 1}):
            with pytest.raises(InvalidInputError):
                eve.encode("poison", metadata=metadata)
        assert eve.list_memories() == []
    with open_tenant(db_path, embedder) as john:
        mine = john.encode("billing runs on Fridays", metadata={"topic": "billing"})
        assert [r.id for r in john.recall("billing", filter={"topic": "billing"})] == [mine]


def test_provenance_never_shows_another_tenants_memory(db_path, embedder):
    with open_tenant(db_path, embedder, scope=()) as everyone:
        shared = everyone.encode("the team's vault code is 4711")  # in the agent's root scope
        johns = everyone.encode("john's vault code is 4712", supersedes=shared, scope=JOHN)
    with open_tenant(db_path, embedder) as john:
        (hit,) = [r for r in john.recall("vault code", include_provenance=True) if r.id == johns]
        assert hit.provenance.supersedes == ()  # the root-scope memory it replaced is not john's to see
    with open_tenant(db_path, embedder, scope=()) as everyone:
        (hit,) = [r for r in everyone.recall("vault code", include_provenance=True) if r.id == johns]
        assert [m.id for m in hit.provenance.supersedes] == [shared]
