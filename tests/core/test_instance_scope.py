"""An instance's scope: where its memories go, and what its recall searches unless told otherwise."""

from __future__ import annotations

import pytest

from audrey_core import Audrey, InvalidInputError

from ..conftest import SYNC
from .vectors import PlacedEmbedder


def open_scoped(path, embedder, scope):
    return Audrey(path, agent="assistant", embedder=embedder, config=SYNC, scope=scope)


def test_instances_recall_their_own_scope_and_below(db_path, embedder):
    scopes = {"alice": ("user", "alice"), "alice2": ("user", "alice2"), "session": ("user", "alice", "session-1")}
    ids = {}
    for name, scope in scopes.items():
        with open_scoped(db_path, embedder, scope) as brain:
            ids[name] = brain.encode(f"{name} keeps her notes about the garden project")
            assert brain.get(ids[name]).scope == scope
    with open_scoped(db_path, embedder, ("user", "alice")) as alice:
        assert {r.id for r in alice.recall("garden project notes")} == {ids["alice"], ids["session"]}
        assert {m.id for m in alice.list_memories()} == {ids["alice"], ids["session"]}
        assert [r.id for r in alice.recall("garden notes", scope=("user", "alice", "session-1"))] == [ids["session"]]
        assert [r.id for r in alice.recall("garden notes", scope_prefix=None, scope=None)] != []
        for outside in ({"scope_prefix": ()}, {"scope": ("user", "alice2")}, {"scope_prefix": ("user",)}):
            with pytest.raises(InvalidInputError, match="outside this instance's scope"):
                alice.recall("garden notes", **outside)
        batch = alice.encode_batch(["a plain string", {"content": "below", "scope": ["user", "alice", "s2"]}])
        assert alice.get(batch[0]).scope == ("user", "alice") and alice.get(batch[1]).scope == ("user", "alice", "s2")
        with pytest.raises(InvalidInputError, match="outside this instance's scope"):
            alice.encode_batch([{"content": "elsewhere", "scope": ["team"]}])
        assert "scope=('user', 'alice')" in repr(alice)
    with open_scoped(db_path, embedder, ()) as everyone:  # the whole agent: the documented way to cross scopes
        assert set(ids.values()) <= {r.id for r in everyone.recall("garden project notes")}
        assert [r.id for r in everyone.recall("garden notes", scope=("user", "alice2"))] == [ids["alice2"]]
    with pytest.raises(InvalidInputError, match="scope"):
        open_scoped(db_path, embedder, "alice")


def test_consolidation_never_mixes_scopes(db_path):
    placed = PlacedEmbedder(dimensions=64)
    path = db_path
    for user in ("alice", "bob"):
        with open_scoped(path, placed, ("user", user)) as brain:
            for i, source in enumerate(["direct-observation", "tool-result", "told-by-user"]):
                brain.encode(placed.place(f"{user} prefers tea in the morning {i}", 0.97), source=source)
    with open_scoped(path, placed, ()) as everyone:
        run = everyone.consolidate()
        principles = [everyone.get(i) for i in run.output_memory_ids]
        assert sorted(p.scope for p in principles) == [("user", "alice"), ("user", "bob")]
        for principle in principles:
            assert {m.scope for m in everyone.get_many(principle.evidence_episode_ids)} == {principle.scope}
    with open_scoped(path, placed, ("user", "bob")) as bob:  # bob's new observation reinforces bob's principle only
        bob.encode(placed.place("bob prefers tea in the morning, again", 0.97), source="told-by-user")
        mine = next(p for p in principles if p.scope == ("user", "bob"))
        theirs = next(p for p in principles if p.scope == ("user", "alice"))
        assert bob.get(mine.id).evidence_count == mine.evidence_count + 1
        assert bob.get(theirs.id) is None  # alice's principle is not bob's to see
    with open_scoped(path, placed, ()) as everyone:
        assert everyone.get(theirs.id).evidence_count == theirs.evidence_count
