"""Decay: unused memories fall dormant (never deleted), are found on request, wake when recalled; scheduling."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from audrey_core import Audrey, AudreyConfig, ConsolidationConfig
from audrey_core.config import ValidationConfig
from audrey_core.rules.confidence import memory_confidence
from audrey_core.stages.decay import retention

from .helpers import add_derived, table_counts


def days_until_dormant(brain, memory_id, threshold=0.1) -> float:
    """The first whole day at which the memory's retention falls below the threshold (computed, not guessed)."""
    memory = brain.get(memory_id)
    for day in range(1, 2000):
        moment = memory.created_at + timedelta(days=day)
        b = memory_confidence(memory, moment, brain.config.confidence)
        if retention(b.value, b.recency) < threshold:
            return day
    raise AssertionError("never fades")


def test_unused_memories_fall_dormant_at_the_threshold_and_are_never_deleted(brain, clock):
    episode = brain.encode("the standup moved to 10am")
    principle = add_derived(brain, "standups are in the morning")
    episode_day, principle_day = days_until_dormant(brain, episode), days_until_dormant(brain, principle)
    assert episode_day < principle_day  # episodes fade faster (7-day vs 30-day half-life)
    rows = table_counts(brain)
    clock.advance(days=episode_day - 1)
    assert brain.decay().dormant_ids == ()
    clock.advance(days=1)
    report = brain.decay()
    assert report.dormant_ids == (episode,) and report.examined == 2 and report.threshold == 0.1
    assert brain.get(episode).state == "dormant" and brain.get(episode).prior_state == "active"
    clock.advance(days=principle_day - episode_day)
    assert brain.decay().dormant_ids == (principle,)
    assert table_counts(brain) == rows  # nothing deleted
    assert brain.recall("standup morning") == []
    found = brain.recall("standup morning", include_dormant=True, types=["episodic"])
    assert [(r.id, r.state) for r in found] == [(episode, "dormant")]


def test_salient_memories_last_longer(brain):
    plain = brain.encode("a routine log line", salience=0.1)
    vivid = brain.encode("production went down for an hour", salience=1.0)
    assert days_until_dormant(brain, vivid) > days_until_dormant(brain, plain)


def test_recall_wakes_a_dormant_principle(brain, clock):
    principle = add_derived(brain, "backups run nightly")
    clock.advance(days=days_until_dormant(brain, principle))
    assert brain.decay().newly_dormant == 1
    hit = brain.recall("backups nightly", include_dormant=True)[0]
    assert hit.id == principle and hit.state == "dormant"
    assert brain.get(principle).state == "active"  # retrieval reinforced it and it woke up
    assert [r.id for r in brain.recall("backups nightly")] == [principle]


def test_decay_event(brain, clock):
    brain.encode("soon forgotten")
    seen = []
    brain.on("decay", seen.append)
    clock.advance(days=365)
    brain.decay()
    assert seen[0]["report"].newly_dormant == 1


def test_scheduled_consolidation_by_episode_count(db_path, embedder):
    cfg = AudreyConfig(
        validation=ValidationConfig(background=False), consolidation=ConsolidationConfig(episode_trigger=4)
    )
    with Audrey(db_path, embedder=embedder, config=cfg) as brain:
        brain.encode_batch(["one", "two", "three"])
        time.sleep(0.2)
        assert brain.consolidation_history() == []
        brain.encode("four")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and [r.status for r in brain.consolidation_history()] in ([], ["running"]):
            time.sleep(0.02)  # the run is listed as soon as it begins
        assert [r.status for r in brain.consolidation_history()] == ["completed"]


def test_scheduled_consolidation_by_interval(db_path, embedder):
    cfg = AudreyConfig(consolidation=ConsolidationConfig(interval_seconds=0.05))
    with Audrey(db_path, embedder=embedder, config=cfg) as brain:
        deadline = time.monotonic() + 10
        while len(brain.consolidation_history()) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(brain.consolidation_history()) >= 2


def test_a_scheduled_consolidation_skips_its_round_while_validation_stays_busy(db_path, embedder, monkeypatch):
    import threading

    from audrey_core import audrey as audrey_module
    from audrey_core.stages import background

    release = threading.Event()
    validate = background.validate_episodes

    def slow_validation(ctx, ids):  # validation that takes as long as the test says
        release.wait(30)
        validate(ctx, ids)

    monkeypatch.setattr(background, "validate_episodes", slow_validation)
    monkeypatch.setattr(audrey_module, "SCHEDULED_WAIT_S", 0.2)
    with Audrey(db_path, embedder=embedder) as brain:
        brain.encode("the nightly export takes forty minutes")
        started = time.monotonic()
        assert brain._scheduled_consolidation() is None  # busy past the bound: skipped, not waited out
        assert time.monotonic() - started < 5 and brain.consolidation_history() == []
        release.set()
        assert brain._scheduled_consolidation().status == "completed"  # settled: the next round runs


@pytest.mark.parametrize("bad", [{"interval_seconds": 0}, {"episode_trigger": 0}, {"cluster_similarity": 0}])
def test_bad_consolidation_config(bad):
    with pytest.raises(Exception, match="must"):
        ConsolidationConfig(**bad)
