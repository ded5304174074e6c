"""Events (on / off, a raising handler never breaks encode) and introspect()."""

from __future__ import annotations

import logging

import pytest

from audrey_core import InvalidInputError
from audrey_core.testing import set_states

from .helpers import add_derived


def test_encode_event_and_off(brain):
    seen = []
    handler = brain.on("encode", lambda payload: seen.append(payload["episode"].content))
    brain.encode_batch(["one", "two"])
    brain.off("encode", handler)
    brain.encode("three")
    assert seen == ["one", "two"]


def test_a_raising_handler_is_reported_and_never_breaks_the_pipeline(brain, caplog):
    errors = []
    brain.on("encode", lambda payload: 1 / 0)
    brain.on("error", lambda payload: errors.append((payload["event"], type(payload["error"]).__name__)))
    with caplog.at_level(logging.ERROR, logger="audrey_core.events"):
        mid = brain.encode("still stored")
    assert brain.get(mid).content == "still stored"
    assert errors == [("encode", "ZeroDivisionError")]
    assert "raised" in caplog.text


def test_retrieval_reinforcement_event(brain):
    principle = add_derived(brain, "retries need backoff")
    seen = []
    brain.on("reinforcement", seen.append)
    brain.recall("retries backoff")
    assert seen == [{"kind": "retrieval", "memory_ids": [principle]}]


def test_unknown_event_and_bad_handler(brain):
    with pytest.raises(InvalidInputError, match="unknown event"):
        brain.on("remember", print)
    with pytest.raises(InvalidInputError, match="callable"):
        brain.on("encode", "not callable")


def test_introspect_counts_everything(brain, clock):
    a = brain.encode("observed", source="direct-observation")
    brain.encode("told", source="told-by-user")
    brain.encode("told again", source="told-by-user")
    add_derived(brain, "a principle", evidence_episode_ids=(a,))
    add_derived(brain, "a procedure", memory_type="procedural")
    set_states(brain, {a: "dormant"})
    stats = brain.introspect()
    assert stats.counts == {"episodic": 3, "semantic": 1, "procedural": 1} and stats.total == 5
    assert stats.states["episodic"]["active"] == 2 and stats.states["episodic"]["dormant"] == 1
    assert stats.dormant == 1
    assert stats.source_type_diversity == {"direct-observation": 1, "told-by-user": 2}
    assert (stats.embedding_model, stats.embedding_dimensions) == ("deterministic-hash", 384)
    assert stats.contradictions == {} and stats.causal_links == 0 and stats.last_consolidation is None
    assert stats.agent == "tester"
