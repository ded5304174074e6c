"""Validation after encode: zones at their boundaries, reinforcement, self-citation, contradictions and their
resolution, the LLM path, reopening disputes, and the background worker."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from audrey_core import Audrey, AudreyConfig, Contradiction, InvalidInputError, NotFoundError
from audrey_core.claims.decide import Pair, decide, resolve
from audrey_core.claims.judges import judge_pairs
from audrey_core.config import ConfidenceConfig, ValidationConfig
from audrey_core.rules.english.judge import judge_offline
from audrey_core.rules.prompts import CONTRADICTION_CHECK
from audrey_core.testing import ScriptedLLM, set_states
from audrey_core.threads import ReadersFirst

from .helpers import add_derived
from .vectors import PlacedEmbedder

CFG = ValidationConfig()
SYNC = AudreyConfig(validation=ValidationConfig(background=False))


# -- pure decision rules ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "similarity,expected",
    [(0.85, "supports"), (0.8499, "unrelated"), (0.60, "unrelated"), (0.5999, None), (1.0, "supports")],
)
def test_zones_at_their_boundaries_without_conflict(similarity, expected):
    verdict = judge_offline("the cache is redis", "the cache is redis in prod", similarity, CFG)
    assert (verdict.relation if verdict else None) == expected


@pytest.mark.parametrize("similarity", [0.60, 0.85, 0.99])
def test_a_changed_number_or_negation_is_a_contradiction_at_any_checked_similarity(similarity):
    assert judge_offline("Stripe allows 100 req/s", "Stripe allows 25 req/s", similarity, CFG).relation == "contradicts"
    assert judge_offline("the cache is redis", "the cache is not redis", similarity, CFG).relation == "contradicts"
    assert judge_offline("Stripe allows 100 req/s", "Stripe allows 25 req/s", 0.59, CFG) is None


@pytest.mark.parametrize(
    "delta,states,contradiction_state,flagged",
    [
        (0.31, ("active", "disputed"), "resolved", False),
        (0.30, ("active", "active"), "open", True),
        (-0.30, ("active", "active"), "open", True),
        (-0.31, ("disputed", "active"), "resolved", False),
    ],
)
def test_resolution_by_confidence_gap(delta, states, contradiction_state, flagged):
    outcome = resolve("contradicts", 0.5 + delta, 0.5, CFG)
    assert (outcome.existing_state, outcome.incoming_state) == states
    assert outcome.contradiction_state == contradiction_state and outcome.flagged == flagged


def test_context_dependent_resolution():
    outcome = resolve("context_dependent", 0.9, 0.2, CFG)
    assert (outcome.existing_state, outcome.incoming_state, outcome.contradiction_state) == (
        "context_dependent",
        "context_dependent",
        "context_dependent",
    )


def judged(existing, incoming, similarity, llm, newer=None):
    """The verdict the one decision point keeps for a pair of told facts (the LLM's where it judged)."""
    rules, said = judge_pairs(incoming, [Pair(existing, similarity, newer)], llm, CFG)[0]
    reliability = ConfidenceConfig().source_reliability
    decision = decide(
        rules,
        said,
        similarity=similarity,
        newer=newer,
        existing_source="told-by-user",
        incoming_source="told-by-user",
        existing_is_episode=True,
        reliability=reliability,
        cfg=CFG,
    )
    return decision.verdict


def test_the_llm_decides_in_the_uncertain_zone_only():
    llm = ScriptedLLM({"contradiction_check": {"relation": "supports", "reason": "same claim"}})
    assert judged("a", "b", 0.70, llm).method == "llm"
    assert judged("the cache is redis", "the cache is redis", 0.90, llm).method == "heuristic"  # clean near-dup
    assert len(llm.calls) == 1
    # A near-duplicate that changes a number stays a contradiction even if the LLM calls it support.
    verdict = judged("Stripe allows 100 req/s", "Stripe allows 25 req/s", 0.95, llm)
    assert verdict.relation == "contradicts" and verdict.method == "llm"
    assert judged("a", "b", 0.59, llm) is None and len(llm.calls) == 2


# -- against a store ----------------------------------------------------------------------------------------------


@pytest.fixture
def placed():
    return PlacedEmbedder(dimensions=128)


@pytest.fixture
def sync_brain(db_path, placed, clock):
    with Audrey(db_path, agent="tester", embedder=placed, clock=clock, config=SYNC) as brain:
        yield brain


def test_a_repeated_claim_reinforces_the_semantic_memory(sync_brain, placed):
    seen = []
    sync_brain.on("reinforcement", seen.append)
    first = sync_brain.encode(placed.anchor("Stripe throttles above 100 req/s"), source="tool-result")
    principle = add_derived(sync_brain, placed.anchor("Stripe throttles at 100 req/s"), evidence_episode_ids=(first,))
    again = sync_brain.encode(placed.place("Stripe throttled us above 100 req/s again", 0.9), source="told-by-user")
    memory = sync_brain.get(principle)
    assert memory.evidence_count == 2 and memory.evidence_episode_ids == (first, again)
    assert memory.last_reinforced_at == sync_brain.clock() and memory.source_type_diversity == 2
    # the observation it repeats counts it as a restatement, and the other way round: evidence for both episodes
    events = sorted((e["kind"], e["memory_id"], e["episode_id"]) for e in seen)
    assert events == [("evidence", principle, again), ("restatement", first, again)]
    assert (
        sync_brain.get(first).evidence_count == 2 and sync_brain.get(again).evidence_count == 2
    )  # each backs the other


def test_below_the_reinforce_threshold_nothing_is_reinforced(sync_brain, placed):
    principle = add_derived(sync_brain, placed.anchor("deploys happen on thursdays"))
    sync_brain.encode(placed.place("deploys happen on thursday afternoons", 0.8499))
    assert sync_brain.get(principle).evidence_count == 1


def test_self_citation_counts_once(sync_brain, placed):
    principle = add_derived(sync_brain, placed.anchor("the queue is slow"))
    echo = sync_brain.encode(
        placed.place("as I recalled, the queue is slow", 0.95), source="inference", derived_from=[principle]
    )
    assert sync_brain.get(principle).evidence_count == 1
    assert echo not in sync_brain.get(principle).evidence_episode_ids


def test_stripe_100_vs_25_is_a_contradiction_not_a_reinforcement(sync_brain, placed):
    events = []
    sync_brain.on("contradiction", events.append)
    principle = add_derived(sync_brain, placed.anchor("Stripe rate limit is 100 req/s"), source="tool-result")
    episode = sync_brain.encode(placed.place("Stripe rate limit is 25 req/s", 0.93), source="told-by-user")
    assert sync_brain.get(principle).evidence_count == 1
    (c,) = sync_brain.contradictions()
    assert (c.claim_a_id, c.claim_b_id, c.state) == (principle, episode, "open")  # 0.805 vs 0.82: too close to call
    assert c.resolution.flagged and c.resolution.method == "heuristic" and "req/s" in c.resolution.reason
    assert sync_brain.get(principle).state == sync_brain.get(episode).state == "active"
    assert sync_brain.get(principle).challenge_count == sync_brain.get(episode).challenge_count == 1
    assert events[0]["contradiction"] == c


def test_a_clear_confidence_gap_disputes_the_weaker_claim(sync_brain, placed, clock):
    principle = add_derived(
        sync_brain, placed.anchor("the API allows 100 req/s"), retrieval_count=20, last_retrieved_at=clock()
    )
    guess = sync_brain.encode(placed.place("the API allows 500 req/s", 0.9), source="model-generated")
    (c,) = sync_brain.contradictions()
    assert c.state == "resolved" and c.resolution.winner == principle and c.resolution.delta > 0.3
    assert sync_brain.get(guess).state == "disputed" and sync_brain.get(principle).state == "active"
    assert [r.id for r in sync_brain.recall("the API allows 500 req/s", types=["episodic"])] == [guess]  # still found


def test_context_dependent_claims_keep_their_conditions(db_path, placed, clock):
    llm = ScriptedLLM(
        {
            "contradiction_check": {
                "relation": "context_dependent",
                "reason": "different keys",
                "conditions_existing": "live-mode keys",
                "conditions_new": "test-mode keys",
            }
        }
    )
    with Audrey(db_path, embedder=placed, llm=llm, clock=clock, config=SYNC) as brain:
        principle = add_derived(brain, placed.anchor("Stripe allows 100 req/s"))
        episode = brain.encode(placed.place("in test mode Stripe allows 25 req/s", 0.75), source="tool-result")
        assert brain.get(principle).state == brain.get(episode).state == "context_dependent"
        assert brain.get(principle).conditions == {"context": "live-mode keys"}
        assert brain.get(episode).conditions == {"context": "test-mode keys"}
        (c,) = brain.contradictions()
        assert c.state == "context_dependent" and c.resolution.method == "llm"
        assert c.resolution.model == "scripted-llm" and c.resolution.prompt_hash == CONTRADICTION_CHECK.hash
        assert c.resolution.conditions == {principle: "live-mode keys", episode: "test-mode keys"}


def test_an_llm_failure_falls_back_to_the_heuristic(db_path, placed, clock):
    llm = ScriptedLLM({"contradiction_check": "this is not json"})
    errors = []
    with Audrey(db_path, embedder=placed, llm=llm, clock=clock, config=SYNC) as brain:
        brain.on("error", errors.append)
        add_derived(brain, placed.anchor("the limit is 100 req/s"))
        brain.encode(placed.place("the limit is 30 req/s", 0.7))
        (c,) = brain.contradictions()
    assert c.resolution.method == "heuristic" and len(errors) == 1


def _disputed_claim(brain, placed):
    principle = add_derived(brain, placed.anchor("retries need jitter"))
    set_states(brain, {principle: "disputed"})
    winner = add_derived(brain, "retries need no jitter")
    contradiction = Contradiction(
        id="C1",
        agent=brain.agent,
        claim_a_id=winner,
        claim_b_id=principle,
        state="resolved",
        resolution={"winner": winner},
        created_at=brain.clock(),
    )
    brain._storage.insert_records([contradiction])
    return principle


def test_three_independent_sources_reopen_a_dispute(sync_brain, placed):
    principle = _disputed_claim(sync_brain, placed)
    reopened = []
    sync_brain.on("reopen", reopened.append)
    for i, source in enumerate(["told-by-user", "tool-result"]):
        sync_brain.encode(placed.place(f"retries need jitter, seen {i}", 0.9), source=source)
    assert sync_brain.get(principle).state == "disputed" and not reopened
    last = sync_brain.encode(placed.place("retries need jitter, seen again", 0.9), source="direct-observation")
    assert sync_brain.get(principle).state == "active"
    (c,) = sync_brain.contradictions()
    assert (c.state, c.reopen_evidence_id) == ("reopened", last)
    assert reopened[0]["memory_id"] == principle and len(reopened[0]["new_evidence"]) == 3


def test_three_supports_from_one_source_do_not_reopen(sync_brain, placed):
    principle = _disputed_claim(sync_brain, placed)
    for i in range(3):
        sync_brain.encode(placed.place(f"retries need jitter, user says {i}", 0.9), source="told-by-user")
    assert sync_brain.get(principle).state == "disputed"
    assert len(sync_brain._storage.claim_support(principle)) == 3


def test_supports_sharing_an_ancestor_do_not_reopen(sync_brain, placed):
    principle = _disputed_claim(sync_brain, placed)
    root = sync_brain.encode("an earlier hunch about jitter", source="inference")
    for i, source in enumerate(["told-by-user", "tool-result", "direct-observation"]):
        sync_brain.encode(placed.place(f"retries need jitter {i}", 0.9), source=source, derived_from=[root])
    assert sync_brain.get(principle).state == "disputed"


def test_background_validation_drains_on_wait_and_on_close(db_path, placed, clock):
    path = db_path
    with Audrey(path, embedder=placed, clock=clock) as brain:
        principle = add_derived(brain, placed.anchor("the export job is slow"))
        brain.encode_batch([placed.place(f"the export job was slow again {i}", 0.9) for i in range(40)])
        assert brain.wait_for_idle(timeout=30)
        assert brain.get(principle).evidence_count == 41
        brain.encode_batch([placed.place(f"the export job was slow once more {i}", 0.9) for i in range(25)])
    with Audrey(path, embedder=placed, clock=clock) as reopened:  # close() finished the queued validation
        assert reopened.get(principle).evidence_count == 66


def test_a_validation_failure_is_reported_and_the_worker_survives(db_path, placed, clock):
    errors = []
    with Audrey(db_path, embedder=placed, clock=clock) as brain:
        brain.on("error", errors.append)
        principle = add_derived(brain, placed.anchor("the build is green"))
        brain.on("reinforcement", lambda payload: 1 / 0)  # a raising handler must not stop validation
        brain.encode(placed.place("the build is green again", 0.9))
        brain.encode(placed.place("the build is green once more", 0.9))
        assert brain.wait_for_idle(timeout=30)
        assert brain.get(principle).evidence_count == 3
    assert len(errors) == 2


def test_config_checks():
    with pytest.raises(Exception, match="conflict_similarity"):
        replace(CFG, conflict_similarity=0.9)


def test_a_person_settles_a_contradiction_and_both_claims_are_kept(brain):
    tuesday = brain.encode("The deploy window is on Tuesday", source="told-by-user")
    brain.encode("The deploy window is not on Tuesday", source="told-by-user")
    brain.wait_for_idle()
    (dispute,) = brain.contradictions()
    other = dispute.claim_a_id if dispute.claim_b_id == tuesday else dispute.claim_b_id
    settled = brain.settle_contradiction(dispute.id, tuesday, reason="checked the release calendar")
    assert settled.state == "resolved" and settled.resolution.settled.winner == tuesday
    assert settled.resolution.settled.reason == "checked the release calendar"
    assert brain.get(tuesday).state == "active" and brain.get(other).state == "disputed"
    assert brain.audit_log()[-1]["action"] == "settle"
    both = brain.settle_contradiction(dispute.id, None)
    assert both.resolution.settled.both_hold and brain.get(other).state == "active"
    with pytest.raises(InvalidInputError, match="one of the contradiction's claims"):
        brain.settle_contradiction(dispute.id, "01NOTACLAIM")
    with pytest.raises(NotFoundError):
        brain.settle_contradiction("no-such-contradiction", None)


def test_validation_gives_way_to_a_read_under_way_and_still_progresses():
    readers, order = ReadersFirst(), []
    entered, release = threading.Event(), threading.Event()

    def read():
        with readers.reading():
            entered.set()
            release.wait(10)
            order.append("read done")

    reader = threading.Thread(target=read)
    reader.start()
    entered.wait(10)
    worker = threading.Thread(target=lambda: (readers.give_way(10), order.append("validated")))
    worker.start()
    worker.join(0.2)  # given its chance to run: it waits for the read
    order.append("released")
    release.set()
    reader.join(10)
    worker.join(10)
    assert order == ["released", "read done", "validated"]
    with readers.reading():
        readers.give_way(0.01)  # a read that does not end: the work goes on after its patience


def test_background_validation_finishes_while_recalls_run_back_to_back(db_path, embedder):
    with Audrey(db_path, embedder=embedder) as brain:
        brain.encode_batch([{"content": f"Service {n} runs on host {n % 7}."} for n in range(100)])
        asked = 0
        while not brain._background.wait_for_idle(0) and asked < 100_000:
            brain.recall("Which host runs service 12?", limit=5)
            asked += 1
        assert brain.wait_for_idle(60) and asked < 100_000
        assert brain.introspect().counts["episodic"] == 100
