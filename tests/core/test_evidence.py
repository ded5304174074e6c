"""Supersede on evidence, not on the shape of a sentence (issue 31): the trap kinds the offline rules must not take
for updates, qualified claims kept as context-dependent, restatements counted as evidence, several independent
observations and their principle standing against one statement, a dispute settling once the newer value has the
evidence, and disputes rendered with their dates. Stage tests run on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from audrey_core import Audrey, AudreyConfig
from audrey_core.config import ValidationConfig
from audrey_core.conversation import render_memories
from audrey_core.rules.english.judge import judge_offline
from audrey_core.rules.english.qualifiers import context_difference
from audrey_core.rules.english.quantities import same_quantities
from audrey_core.testing import ScriptedLLM

from .helpers import add_derived
from .vectors import PlacedEmbedder

CFG = ValidationConfig()
SYNC = AudreyConfig(validation=ValidationConfig(background=False))


@pytest.mark.parametrize(
    ("older", "newer", "relation"),
    [
        # a narrower context: both hold
        ("The API rate limit is 100 requests per second.", "In test mode the API rate limit is 25 requests per second.",
         "context_dependent"),
        ("The request timeout is 30 seconds.", "The request timeout is 120 seconds for batch jobs.",
         "context_dependent"),
        ("The office opens at 8am.", "On weekends the office opens at 10am.", "context_dependent"),
        ("The standup is at 9:30.", "This week the standup is at 10:30 because of the offsite.", "context_dependent"),
        ("Shipping takes 3 days.", "Shipping to Canada takes 7 days.", "context_dependent"),
        # another entity
        ("Alice's phone number ends in 4471.", "Bob's phone number ends in 9032.", "unrelated"),
        ("The user's daughter is 4 years old.", "The user's daughter's best friend is 6 years old.", "unrelated"),
        ("Project Atlas is due on March 3.", "Project Borealis is due on March 17.", "unrelated"),
        ("Bob's flight lands at 6pm.", "Bob said Alice's flight lands at 8pm.", "unrelated"),
        # the same value in other words
        ("The cache TTL is 300 seconds.", "The cache TTL is five minutes.", "unrelated"),
        ("The build takes 12 minutes.", "A full build takes about 12 to 13 minutes.", "unrelated"),
        ("The max upload size is 2 GB.", "The max upload size is 2048 MB.", "unrelated"),
        ("The user is learning Japanese.", "The user has been studying Japanese.", "unrelated"),
        # a quotation, and two events' times
        ("The rate limit is 100 requests per second.", 'The docs say "set the rate limit to 10 requests per second".',
         "unrelated"),
        ("The store opens at 8am.", "The store closes at 8pm.", "unrelated"),
        # two things done to one subject, not two values of one attribute; a verb of change as an adjective
        ("The billing service was deployed to staging without issues.",
         "The billing service had its config loading refactored.", "unrelated"),
        ("The service writes logs to disk.", "The service now reads the updated config from disk.", "unrelated"),
        # ... or after a present passive or a modal: what always happens, not what changed
        ("Raised exceptions throughout the package are part of the public API.",
         "For those backends with no support, an exception is raised upon compilation.", "unrelated"),
        ("The importer reads CSV files.", "The importer is updated whenever a new format appears.", "unrelated"),
        ("The standup is at 9:30.", "The standup is moved to 10am.", "updates"),  # the time changed all the same
        ("The password is orange42.", "The password might be falcon77.", "updates"),  # one value after each verb
        # still updates
        ("The API rate limit is 100 requests per second.", "The API rate limit was lowered to 25 req/s.", "updates"),
        ("The free plan includes 3 projects.", "The free plan now includes 5 projects.", "updates"),
        ("The conference is in Lisbon this year.", "The conference was relocated to Madrid.", "updates"),
        ("The kids' school starts at 8:30.", "The kids' school now starts at 8:45.", "updates"),
        # another value in other words, without saying it changed: a dispute, both kept in view
        ("The user's rent is 900 pounds.", "Rent for the user's flat comes to 950 pounds.", "contradicts"),
    ],
)  # fmt: skip
def test_each_trap_kind_offline(older, newer, relation):
    verdict = judge_offline(older, newer, 0.7, CFG, newer=True)
    assert verdict.relation == relation, verdict.reason


def test_qualifiers_units_and_explicit_changes():
    assert context_difference("Refunds take 5 days.", "For enterprise customers refunds take 1 day.") == (
        None,
        "for enterprise customers",
    )
    assert context_difference("Maria lives in Leeds.", "Maria moved to York.") is None  # a place that is the value
    assert context_difference("We deploy with Jenkins.", "We replaced Jenkins with Actions for deployments.") is None
    assert same_quantities("The backup runs at 2am.", "The backup runs at 02:00.")
    assert same_quantities("It lasts an hour.", "It lasts 60 minutes.")
    assert not same_quantities("The sprint is two weeks long.", "The sprint is three weeks long.")
    assert not same_quantities("The cluster runs Kubernetes 1.26.", "The cluster runs Kubernetes 1.28.")
    older, bare, told = "The limit is 100 req/s.", "The limit is 25 req/s.", "The limit was lowered to 25 req/s."
    named = "The limit was lowered from 100 to 25 req/s."
    assert judge_offline(older, bare, 0.9, CFG, newer=True).signal is None  # the same frame: a guess
    assert judge_offline(older, told, 0.9, CFG, newer=True).signal is None  # a change, the old value not named
    assert judge_offline(older, named, 0.9, CFG, newer=True).signal == "named_past_value"
    conditions = judge_offline(older, "In test mode the limit is 25 req/s.", 0.9, CFG, newer=True)
    assert (conditions.conditions_existing, conditions.conditions_incoming) == ("in general", "in test mode")


# -- the stage, on both backends ---------------------------------------------------------------------------------


@pytest.fixture
def placed():
    return PlacedEmbedder(dimensions=64)


OBSERVATIONS = (
    ("Stripe returned 429 above 100 requests per second.", "direct-observation"),
    ("The Stripe API throttled us at 100 requests per second.", "tool-result"),
    ("The Stripe rate limit is 100 requests per second.", "told-by-user"),
)


def observed(brain, placed, clock):
    """The seed's pipeline: three independent observations of one limit and the principle they make."""
    ids = []
    for text, source in OBSERVATIONS:
        ids.append(brain.encode(placed.place(text, 0.95), source=source))
        clock.advance(days=1)
    principle = add_derived(
        brain,
        placed.anchor("Stripe throttles above 100 requests per second."),
        evidence_episode_ids=tuple(ids),
        source_type_diversity=3,
        evidence_count=3,
    )
    return ids, principle


def test_restatements_count_as_evidence_and_are_never_superseded(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        first = brain.encode(placed.place("The cache TTL is 300 seconds.", 0.95), source="told-by-user")
        clock.advance(days=40)
        again = brain.encode(placed.place("The cache TTL is five minutes.", 0.95), source="tool-result")
        memory, restated = brain.get(first), brain.get(again)
        assert memory.state == restated.state == "active" and memory.evidence_count == restated.evidence_count == 2
        assert brain._storage.claim_support(first) == [again] and brain._storage.claim_support(again) == [first]
        assert not brain.contradictions()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The billing service passed the restore drill.", "The search API passed the restore drill."),
        ("Build 88 failed on the lint step.", "Build 89 failed on the lint step."),  # a number names the build
        ("The nightly job failed on Monday.", "The nightly job failed on Tuesday."),  # two failures
        ("User id 4411 logged in from Berlin.", "User id 4412 logged in from Berlin."),  # the label two words on
        ("The vendor's API returns 50 items per page.", "The vendor's API returns 200 items per page."),  # two values
    ],
)
def test_notes_about_two_things_are_not_restatements_of_each_other(db_path, placed, clock, first, second):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        one = brain.encode(placed.place(first, 0.95), source="tool-result")
        clock.advance(days=7)
        other = brain.encode(placed.place(second, 0.95), source="tool-result")
        assert [m.evidence_count for m in brain.get_many([one, other])] == [1, 1]  # 0.9025 apart: no evidence
        assert brain._storage.claim_support(one) == [] and not brain.contradictions()


def test_a_qualified_claim_is_kept_beside_the_principle_as_context_dependent(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        observations, principle = observed(brain, placed, clock)
        clock.advance(days=40)
        text = "In test mode the Stripe API rate limit is 25 requests per second."
        test_mode = brain.encode(placed.place(text, 0.95), source="told-by-user")
        states = {m.id: m.state for m in brain.get_many([*observations, principle, test_mode])}
        assert set(states.values()) == {"context_dependent"}  # nothing superseded: every claim still holds
        records = [c for c in brain.contradictions() if test_mode in (c.claim_a_id, c.claim_b_id)]
        assert {c.state for c in records} == {"context_dependent"} and len(records) == 4  # linked to each
        assert records[0].resolution.conditions[test_mode] == "in test mode"
        assert brain.get(test_mode).conditions == {"context": "in test mode"}
        found = brain.recall("Stripe rate limit in test mode", limit=5)
        assert found[0].id == test_mode and found[0].conditions == "in test mode"
        assert {r.id for r in found} >= {principle, *observations}
        others = {c.memory_id: c for c in found[0].counterclaims}
        assert principle in others and others[principle].relation == "context_dependent"


def test_one_statement_does_not_replace_three_observations_and_their_principle(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        observations, principle = observed(brain, placed, clock)
        clock.advance(days=40)
        bare = brain.encode(placed.place("The Stripe rate limit is 25 requests per second.", 0.95))
        kept = brain.get_many([*observations, principle])
        assert all(m.state != "superseded" for m in kept)  # all still recallable
        disputes = {c.claim_a_id: c for c in brain.contradictions() if bare in (c.claim_a_id, c.claim_b_id)}
        assert set(disputes) == {*observations, principle}
        assert all(c.resolution.signal is None for c in disputes.values())  # another value, not said as a change
        found = {r.id: r for r in brain.recall("Stripe API rate limit", limit=10)}
        assert {principle, bare, *observations} <= set(found)
        assert bare in {c.memory_id for c in found[principle].counterclaims}


def test_an_explicit_change_still_supersedes_the_evidence(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        observations, principle = observed(brain, placed, clock)
        clock.advance(days=40)
        told = brain.encode(placed.place("Stripe lowered the API rate limit from 100 to 25 requests per second.", 0.95))
        assert {m.state for m in brain.get_many([*observations, principle])} == {"superseded"}
        assert brain.get(principle).superseded_by == told


def test_a_change_that_does_not_name_the_old_value_is_a_dispute_not_a_hide(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        observations, principle = observed(brain, placed, clock)
        clock.advance(days=40)
        told = brain.encode(placed.place("Stripe lowered the API rate limit to 25 requests per second.", 0.95))
        assert "superseded" not in {m.state for m in brain.get_many([*observations, principle])}
        found = {r.id for r in brain.recall("Stripe API rate limit", limit=10)}
        assert {told, principle, *observations} <= found


def test_a_dispute_settles_for_the_newer_value_once_independent_sources_back_it(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        old = [brain.encode(placed.place("The nightly job finishes at 3am.", 0.6), source=s)
               for s in ("direct-observation", "tool-result")]  # fmt: skip
        clock.advance(days=40)
        new = brain.encode(placed.place("The nightly job finishes at 5am.", 0.95), source="told-by-user")
        assert {m.state for m in brain.get_many(old)} != {"superseded"}  # two sources: a dispute, not an update
        clock.advance(days=1)
        brain.encode(placed.place("The nightly job finished at 5am again.", 0.95), source="direct-observation")
        assert not any(c.resolution.settled for c in brain.contradictions())  # two sources against two: unsettled
        clock.advance(days=1)
        events = []
        brain.on("contradiction", events.append)
        brain.encode(placed.place("The job log says the nightly job finished at 5am.", 0.95), source="tool-result")
        # announced and audited as a settlement by hand is: one event per dispute, one audit entry per settlement
        settlements = {(e["settled"]["method"], e["settled"]["winner"]) for e in events if "settled" in e}
        assert ("evidence", new) in settlements and {method for method, _ in settlements} == {"evidence"}
        audited = [e["details"] for e in brain._storage.audit_entries(brain.agent) if e["action"] == "settle"]
        assert {winner for _, winner in settlements} == {e["winner"] for e in audited}
        assert set(old) <= {i for e in audited for i in e["set_aside"]}
        # settled for the newer value: the older claims are set aside, never hidden
        assert {m.state for m in brain.get_many(old)} == {"disputed"} and brain.get(new).state == "active"
        settled = [c for c in brain.contradictions() if c.claim_b_id == new]
        assert settled and {c.state for c in settled} == {"resolved"} and settled[0].resolution.winner == new
        assert settled[0].resolution.settled.method == "evidence"
        found = [r.id for r in brain.recall(placed.place("When does the nightly job finish?", 0.95), limit=10)]
        assert set(old) <= set(found) and found.index(new) < min(found.index(i) for i in old)


def test_disputes_reach_the_prompt_with_their_dates_the_newer_first(db_path, placed, clock):
    llm = ScriptedLLM({"contradiction_check": {"relation": "contradicts", "reason": "two different days"}})
    with Audrey(db_path, embedder=placed, llm=llm, config=SYNC, clock=clock) as brain:
        older = brain.encode(placed.place("The deploy window is on Tuesday.", 0.95), source="told-by-user")
        clock.advance(days=40)
        newer = brain.encode(placed.place("Deploys go out on Thursday.", 0.9), source="told-by-user")
        assert [c.state for c in brain.contradictions()] == ["open"]
        results = brain.recall(placed.place("When is the deploy window?", 0.99), limit=10)
        assert [r.id for r in results if r.id in (older, newer)] == [newer, older]  # together, the newer first
        assert results[0].observed_at == brain.get(newer).created_at
        block = render_memories(results)
        day_old, day_new = (brain.get(i).created_at.strftime("%Y-%m-%d") for i in (older, newer))
        assert f"told-by-user, episodic, {day_new}] Deploys go out on Thursday. — disputed by: " in block
        assert f"— disputed by: The deploy window is on Tuesday. (told-by-user, {day_old})" in block


def test_an_llm_judges_claims_further_apart_than_the_offline_rules(db_path, placed, clock):
    typed = {"subject": "Ahmed", "attribute": "manager", "old_value": "Claire", "new_value": "Jun"}
    llm = ScriptedLLM(
        {
            "contradiction_check": {
                "relation": "updates",
                "reason": "Ahmed has a new manager",
                **typed,
                "single_valued": True,
            }
        }
    )
    with Audrey(db_path, embedder=placed, llm=llm, config=SYNC, clock=clock) as brain:
        old = brain.encode(placed.place("Ahmed reports to Claire.", 0.7), source="told-by-user")
        clock.advance(days=40)
        new = brain.encode(placed.place("Ahmed now reports to Jun after the reorg.", 0.65), source="told-by-user")
        assert (
            len(llm.calls_for("contradiction_check")) == 1
        )  # similarity 0.455: below the offline update zone (0.50), above judge_similarity
        assert brain.get(old).superseded_by == new
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as offline:
        clock.advance(days=1)
        far = offline.encode(placed.place("Ahmed reports to Priya.", 0.65), source="told-by-user")
        assert offline.get(far).state == "active" and offline.get(new).state == "active"


def test_the_disputes_of_a_restated_claim_are_found_by_an_index_also_in_an_older_store(tmp_path):
    """Validation looks up the disputes of every claim a new episode restates by its newer side: on an index, not a
    scan of every contradiction (a store from before the index gains it when it opens)."""
    from audrey_core.storage.sqlite.connection import connect
    from audrey_core.testing import DeterministicEmbedder

    from .index_helpers import BEFORE_DISPUTE_SIDES, downgrade

    path = tmp_path / "old.db"
    Audrey(path, embedder=DeterministicEmbedder()).close()
    downgrade(path, BEFORE_DISPUTE_SIDES)
    Audrey(path, embedder=DeterministicEmbedder()).close()
    db = connect(str(path), vectors=False)
    plan = db.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM contradictions WHERE claim_b_id IN (?, ?) AND state IN (?, ?)",
        ["a", "b", "open", "reopened"],
    ).fetchall()
    db.close()
    assert "contradictions_by_newer" in " ".join(str(row) for row in plan)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("The budget is $2,000.", "The budget is 2000 dollars.", True),
        ("The rent is 1.200 € a month.", "The rent is 1,200 euros a month.", True),
        ("Le loyer est de 900 €.", "Le loyer est de 900 euros.", True),
        ("The meeting lasts 90 minutes.", "The meeting lasts an hour and a half.", True),
        ("It takes two and a half hours.", "It takes 150 minutes.", True),
        ("The budget is $2,000.", "The budget is $3,000.", False),
        ("The budget is $2,000.", "The budget is 2000 euros.", False),  # another currency is another dimension
        ("The meeting lasts an hour and a half.", "The meeting lasts two hours.", False),
    ],
)
def test_money_and_halves_written_two_ways_are_one_value(a, b, same):
    assert same_quantities(a, b) is same
