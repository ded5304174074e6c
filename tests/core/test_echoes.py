"""An echo is one report, and the agent's own conclusions never outweigh a first-hand claim by contradicting it: the
rules of :mod:`audrey_core.rules.lineage` as validation and consolidation apply them, on both backends."""

from __future__ import annotations

import pytest

from audrey_core import Audrey, AudreyConfig
from audrey_core.config import ConsolidationConfig, ValidationConfig

from .vectors import PlacedEmbedder

SYNC = AudreyConfig(validation=ValidationConfig(background=False))


@pytest.fixture
def placed():
    return PlacedEmbedder(dimensions=64)


@pytest.fixture
def sync_brain(db_path, placed, clock):
    with Audrey(db_path, agent="tester", embedder=placed, clock=clock, config=SYNC) as brain:
        yield brain


def evidence(brain, *ids):
    return [brain.get(i).evidence_count for i in ids]


def test_the_assistant_or_a_tool_repeating_the_user_in_one_conversation_is_no_second_report(sync_brain, placed):
    said = sync_brain.encode(
        placed.anchor("I'm vegetarian and allergic to peanuts"), source="told-by-user", session="s1", speaker="user"
    )
    echo = sync_brain.encode(
        placed.place("Noted: you are vegetarian and allergic to peanuts", 0.95),
        source="model-generated",
        session="s1",
        speaker="assistant",
    )
    quoted = sync_brain.encode(
        placed.place("profile note: vegetarian and allergic to peanuts", 0.95),
        source="tool-result",
        session="s1",
        speaker="tool",
    )
    assert evidence(sync_brain, said, echo, quoted) == [1, 1, 1]
    # the user telling it again in another conversation is a second report, and each backs the other
    again = sync_brain.encode(
        placed.place("As I said before, I'm vegetarian and allergic to peanuts", 0.95),
        source="told-by-user",
        session="s2",
        speaker="user",
    )
    assert evidence(sync_brain, said, again) == [2, 2]


def test_the_agent_re_encoding_what_it_recalled_backs_nothing(sync_brain, placed):
    told = sync_brain.encode(placed.anchor("the staging database is rebuilt on Sundays"), source="told-by-user")
    for source in ("inference", "model-generated"):  # no session, no derived_from: the source alone says so
        sync_brain.encode(placed.place(f"the staging database is rebuilt on Sundays ({source})", 0.95), source=source)
    assert evidence(sync_brain, told) == [1]
    recalled = sync_brain.encode(
        placed.place("the staging database gets rebuilt on Sundays", 0.95), source="tool-result", derived_from=[told]
    )
    assert evidence(sync_brain, told, recalled) == [1, 1]  # its lineage names what it came from: one chain
    observed = sync_brain.encode(
        placed.place("the staging database was rebuilt this Sunday", 0.95), source="direct-observation"
    )
    assert evidence(sync_brain, told, observed) == [2, 2]  # an independent first-hand report


@pytest.mark.parametrize("guess_first", [False, True])
@pytest.mark.parametrize("days_between", [0, 3, 30])
def test_an_inference_contradicting_the_user_never_leaves_the_user_the_less_confident(
    sync_brain, placed, clock, guess_first, days_between
):
    user_text, guess_text = "the API limit is 80 requests per second", "the API limit is 200 requests per second"
    first, second = (guess_text, "inference"), (user_text, "told-by-user")
    if not guess_first:
        first, second = second, first
    one = sync_brain.encode(placed.anchor(first[0]), source=first[1])
    clock.advance(days=days_between)
    two = sync_brain.encode(placed.place(second[0], 0.9), source=second[1])
    (c,) = sync_brain.contradictions()
    assert {c.claim_a_id, c.claim_b_id} == {one, two}  # the dispute opens: both kept, both recalled
    user, guess = (two, one) if guess_first else (one, two)
    memories = {i: sync_brain.get(i) for i in (user, guess)}
    assert memories[user].challenge_count == 0 and memories[guess].challenge_count == 1
    confidence = {i: sync_brain.confidence(m).value for i, m in memories.items()}
    assert confidence[user] > confidence[guess], confidence
    before = c.resolution.confidence[user]
    assert confidence[user] == pytest.approx(before)  # the guess took nothing from it


def test_a_tool_result_contradicting_the_user_counts_against_it(sync_brain, placed):
    user = sync_brain.encode(placed.anchor("the API limit is 80 requests per second"), source="told-by-user")
    tool = sync_brain.encode(placed.place("the API limit is 50 requests per second", 0.9), source="tool-result")
    assert [sync_brain.get(i).challenge_count for i in (user, tool)] == [1, 1]


def test_claims_that_hold_in_their_contexts_challenge_neither(sync_brain, placed):
    live = sync_brain.encode(
        placed.anchor("The Stripe API rate limit is 100 requests per second"), source="tool-result"
    )
    test = sync_brain.encode(
        placed.place("In test mode the Stripe API rate limit is 25 requests per second", 0.9), source="told-by-user"
    )
    (c,) = sync_brain.contradictions()
    assert c.state == "context_dependent"
    assert [sync_brain.get(i).challenge_count for i in (live, test)] == [0, 0]


def test_one_conversation_is_one_report_for_consolidation(db_path, clock):
    config = AudreyConfig(
        validation=ValidationConfig(background=False), consolidation=ConsolidationConfig(min_episodes=2)
    )
    placed = PlacedEmbedder(dimensions=64)
    with Audrey(db_path, agent="tester", embedder=placed, clock=clock, config=config) as brain:
        brain.encode(placed.anchor("the nightly export times out above 5 GB"), source="told-by-user", session="a")
        brain.encode(placed.place("the nightly export timed out above 5 GB", 0.95), source="tool-result", session="a")
        assert brain.consolidate().output_memory_ids == ()  # two sources, one conversation: one report
        brain.encode(placed.place("export job: timeout, payload over 5 GB", 0.95), source="tool-result", session="b")
        (principle,) = brain.consolidate().output_memory_ids
        assert brain.get(principle).evidence_count == 2  # the two conversations, not the three episodes


def test_the_agents_own_conclusions_are_no_witness_for_consolidation(db_path, clock):
    config = AudreyConfig(
        validation=ValidationConfig(background=False), consolidation=ConsolidationConfig(min_episodes=2)
    )
    placed = PlacedEmbedder(dimensions=64)
    with Audrey(db_path, agent="tester", embedder=placed, clock=clock, config=config) as brain:
        brain.encode(placed.anchor("the nightly export times out above 5 GB"), source="told-by-user")
        brain.encode(placed.place("the nightly export probably times out above 5 GB", 0.95), source="inference")
        assert brain.consolidate().output_memory_ids == ()  # one witness and the agent's own guess
