"""One input policy on both backends, and the valid calls that used to fail: every bad input raises an AudreyError
before anything is written; tags, metadata filters, $or, vector mode and scopes compose on SQLite; consolidation after
a rollback makes new principles."""

from __future__ import annotations

import pytest

from audrey_core import Audrey, InvalidInputError, StorageError
from audrey_core.rules.filters import matches, parse_filter

from ..conftest import SYNC
from .helpers import SOURCES3, table_counts
from .vectors import PlacedEmbedder

BAD_TEXT = ["nul \x00 inside", "lone \ud800 surrogate", "\udfff"]


@pytest.mark.parametrize("bad", BAD_TEXT)
def test_bad_text_anywhere_is_refused_before_anything_is_written(brain, bad):
    brain.encode("a memory that is already there")
    before = table_counts(brain)
    attempts = [
        lambda: brain.encode(bad),
        lambda: brain.encode("ok", tags=[bad]),
        lambda: brain.encode("ok", scope=("users", bad)),
        lambda: brain.encode("ok", key=bad),
        lambda: brain.encode("ok", id=bad),
        lambda: brain.encode("ok", metadata={"k": bad}),
        lambda: brain.encode("ok", metadata={bad: 1}),
        lambda: brain.encode("ok", metadata={"k": {"nested": [bad]}}),
        lambda: brain.encode("ok", causal={"trigger": bad}),
        lambda: brain.encode_batch(["fine", {"content": bad}]),  # all or nothing
        lambda: brain.recall(bad),
        lambda: brain.recall("ok", tags=[bad]),
        lambda: brain.recall("ok", filter={"k": bad}),
        lambda: brain.recall("ok", filter={bad: 1}),
        lambda: brain.recall("ok", filter={"k": {"$in": ["x", bad]}}),
        lambda: brain.recall("ok", scope=(bad,)),
        lambda: brain.get(bad),
        lambda: brain.get_many(["fine", bad]),
        lambda: brain.forget([bad]),
        lambda: brain.embed_query(bad),
    ]
    for attempt in attempts:
        with pytest.raises(InvalidInputError):
            attempt()
    with pytest.raises(InvalidInputError):
        Audrey(brain.location, agent="bad\x00agent", embedder=brain.embedder)
    assert table_counts(brain) == before


def test_numbers_beyond_64_bits_are_refused(brain):
    brain.encode("a memory", metadata={"n": 2**63 - 1, "m": -(2**63)})  # the edges themselves fit
    for call in (
        lambda: brain.recall("memory", filter={"n": 10**20}),
        lambda: brain.recall("memory", filter={"n": {"$gt": -(10**20)}}),
        lambda: brain.recall("memory", filter={"n": {"$in": [1, 2**64]}}),
        lambda: brain.recall("memory", filter={"n": float("inf")}),
        lambda: brain.recall("memory", limit=2**63),
        lambda: brain.list_memories(limit=2**63),
        lambda: brain.list_memories(offset=2**63),
        lambda: brain.encode("big", metadata={"n": 2**64}),
    ):
        with pytest.raises(InvalidInputError, match=r"64-bit|finite"):
            call()
    assert [m.metadata["n"] for m in brain.list_memories(filter={"n": 2**63 - 1})] == [2**63 - 1]


def test_metadata_keys_are_literal_and_dollar_keys_are_refused(brain):
    plain = brain.encode("plain key", metadata={"a": 1})
    with pytest.raises(InvalidInputError, match=r"\$"):
        brain.encode("dollar key", metadata={"$a": 1})
    with pytest.raises(InvalidInputError, match="NUL"):
        brain.encode("nul key", metadata={"a\x00b": 1})
    dotted = brain.encode("dotted key", metadata={'a".b': 2, "a.b": 3})
    assert [m.id for m in brain.list_memories(filter={"a": 1})] == [plain]
    assert [m.id for m in brain.list_memories(filter={'a".b': 2})] == [dotted]
    assert [m.id for m in brain.list_memories(filter={"a.b": 3})] == [dotted]
    with pytest.raises(InvalidInputError):
        brain.list_memories(filter={"a\x00b": 1})


def test_unwritable_paths_raise_storage_errors(tmp_path, embedder):
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a folder")
    for path in (blocker / "sub" / "x.db", str(tmp_path / "nul\x00.db")):
        with pytest.raises(StorageError):
            Audrey(path, embedder=embedder)
    with pytest.raises(InvalidInputError, match="path"):
        Audrey(42, embedder=embedder)


# -- SQLite's one rowid constraint: tags, metadata filters, $or, time, scopes and vector mode compose ---------------


def test_tags_metadata_or_and_scopes_compose_in_every_mode(db_path, embedder):
    rows = []
    with Audrey(db_path, agent="compose", embedder=embedder, config=SYNC) as brain:
        for i in range(24):
            tags = ["stripe"] if i % 2 else ["paypal"]
            metadata = {"topic": "billing" if i % 3 else "support", "n": i}
            scope = ("team", "a") if i % 4 < 2 else ("team", "b")
            memory_id = brain.encode(f"stripe payment note {i}", tags=tags, metadata=metadata, scope=scope)
            rows.append((memory_id, tags, metadata, scope))
        cases = [
            {"tags": ["stripe"], "filter": {"topic": "billing"}},
            {"tags": ["stripe"], "filter": {"$or": [{"topic": "support"}, {"n": {"$gte": 20}}]}},
            {"tags": ["stripe", "paypal"], "filter": {"n": {"$lt": 9}}, "scope": ("team", "a")},
            {"tags": ["paypal"], "filter": {"topic": "billing"}, "scope_prefix": ("team",)},
            {"tags": ["stripe"], "filter": {"topic": "billing"}, "time_range": (None, brain.clock())},
        ]
        for case in cases:
            flt = parse_filter(case["filter"])
            expected = {
                memory_id
                for memory_id, tags, metadata, scope in rows
                if set(tags) & set(case["tags"])
                and matches(flt, metadata)
                and scope[: len(case.get("scope") or case.get("scope_prefix") or ())]
                == (case.get("scope") or case.get("scope_prefix") or ())
            }
            for mode in ("hybrid", "vector", "keyword"):
                found = {r.id for r in brain.recall("stripe payment note", limit=50, mode=mode, **case)}
                assert found == expected, (case, mode)


# -- consolidation after a rollback -------------------------------------------------------------------------------


def test_consolidation_after_a_rollback_derives_new_principles(db_path, clock):
    placed = PlacedEmbedder(dimensions=64)
    with Audrey(db_path, agent="sleeper", embedder=placed, config=SYNC, clock=clock) as brain:
        episodes = [
            brain.encode(placed.place(f"deploys fail on Fridays (report {i})", 0.97), source=s)
            for i, s in enumerate(SOURCES3)
        ]
        first = brain.consolidate()
        assert len(first.output_memory_ids) == 1
        brain.rollback(first.id)
        second = brain.consolidate()
        assert second.status == "completed" and len(second.output_memory_ids) == 1
        assert second.output_memory_ids != first.output_memory_ids
        assert brain.get(first.output_memory_ids[0]).state == "rolled_back"  # kept for the audit trail
        principle = brain.get(second.output_memory_ids[0])
        assert principle.state == "active" and set(principle.evidence_episode_ids) == set(episodes)
        assert all(m.consolidated for m in brain.get_many(episodes))


def test_the_filter_semantics_table_holds_for_every_json_type_on_both_backends(brain):
    from audrey_core.rules.filters import matches, parse_filter

    stored = [{"n": 1}, {"n": 2.5}, {"n": True}, {"n": False}, {"n": "b"}, {"n": None}, {}, {"n": [1]}, {"n": {"a": 1}}]
    for i, metadata in enumerate(stored):
        brain.encode(f"memory {i}", metadata=metadata)
    operands = [0, 1, 2.5, "a", "b", True, False, None]
    checked = 0
    for op in ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"):
        for operand in [[1, "b", True, None], [False, 2.5]] if op in ("$in", "$nin") else operands:
            spec = {"n": {op: operand}}
            if op in ("$gt", "$gte", "$lt", "$lte") and (operand is None or isinstance(operand, bool)):
                with pytest.raises(InvalidInputError):  # a boolean or None has no order
                    brain.list_memories(limit=50, filter=spec)
                continue
            expected = sorted(f"memory {i}" for i, m in enumerate(stored) if matches(parse_filter(spec), m))
            found = sorted(m.content for m in brain.list_memories(limit=50, filter=spec))
            assert found == expected, spec
            checked += 1
    assert checked == 2 * len(operands) + 4 * 5 + 2 * 2
