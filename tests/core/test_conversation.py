"""The conversation helpers both adapters share, and the whole-store calls that replaced "list a million"."""

from dataclasses import replace
from datetime import datetime, timezone

import pytest

from audrey_core import SOURCES, STATES, Audrey
from audrey_core.conversation import (
    Remembering,
    is_question,
    item_from_metadata,
    placed_fields,
    remembered_speakers,
    render_memories,
    source_for_role,
    speaker_for_role,
    with_fields,
)
from audrey_core.rules.chatter import is_non_answer, is_small_talk, restates
from audrey_core.testing import DeterministicEmbedder
from tests.conftest import SYNC


def test_roles_map_to_sources_and_unknown_roles_are_not_remembered():
    assert [source_for_role(r) for r in ("user", "human", "tool", "function", "assistant", "ai")] == [
        "told-by-user", "told-by-user", "tool-result", "tool-result", "model-generated", "model-generated",
    ]  # fmt: skip
    assert source_for_role("system") is None and source_for_role("developer") is None
    assert set(filter(None, map(source_for_role, ("user", "tool", "ai")))) <= set(SOURCES)


def test_a_named_person_or_agent_is_the_speaker_and_a_tool_stays_a_tool():
    assert speaker_for_role("user", "Caroline") == "Caroline" and speaker_for_role("ai", "planner") == "planner"
    assert speaker_for_role("human", "  ") == "user" and speaker_for_role("assistant", None) == "assistant"
    assert speaker_for_role("tool", "weather") == "tool"  # a tool's name is not who said it


def test_what_is_worth_remembering():
    default = Remembering()
    assert default.keeps("user", "I moved to Porto.") and default.keeps("human", "Thanks! I am flying there tomorrow.")
    assert not default.keeps("user", "Where does Bob live?")
    assert Remembering.of(questions=True).keeps("user", "Where does Bob live?")
    for chatter in ("ok thanks", "Thank you so much!", "Great, see you tomorrow!", "Sure.", "I don't know", "hi"):
        assert not default.keeps("user", chatter), chatter
        assert Remembering.of(chatter=True).keeps("user", chatter), chatter
    assert default.keeps("user", "I don't know anyone in Lisbon.")  # not knowing someone is a fact about the user
    # the assistant's replies and tools' output only when asked; a tool by name when it is lasting
    assert not default.keeps("ai", "Porto is lovely in May.") and not default.keeps("tool", "stored")
    replies = Remembering.of(("user", "assistant"))
    assert replies.keeps("ai", "Porto is lovely in May.")
    assert not replies.keeps("ai", "I don't know of any allergy of yours.")  # a non-answer
    said = ["I'm vegetarian, and I'm allergic to peanuts."]
    assert not replies.keeps("ai", "Noted: you are vegetarian and allergic to peanuts.", said=said)  # an echo
    assert replies.keeps("ai", "Then skip the satay: it is made with peanuts.", said=said)
    lasting = Remembering.of(lasting_tools=["profile"])
    assert lasting.keeps("tool", "Home airport: LIS", tool="profile")
    assert not lasting.keeps("tool", "Sunny, 21C", tool="weather")
    assert Remembering.of(("user", "tool")).keeps("tool", "Sunny, 21C", tool="weather")
    assert not default.keeps("system", "Be brief.") and not replies.keeps("ai", " ")
    assert is_question("Is it far? How long does it take?") and not is_question("It is far. Is it?")
    assert is_question("Wo wohnt Bob\uff1f") and not is_question("")
    assert remembered_speakers("tool") == {"tool"}
    with pytest.raises(ValueError, match="not 'system'"):
        remembered_speakers(("user", "system"))
    with pytest.raises(TypeError, match="tool names"):
        Remembering.of(lasting_tools="profile")


@pytest.mark.parametrize(
    "text,small_talk",
    [("ok thanks", True), ("Thanks a lot, that helps!", True), ("Hello there", True), ("No.", True),
     ("Thanks! I'm flying to Lisbon tomorrow.", False), ("I live in Porto", False), ("Yes, 8:15.", False)],
)  # fmt: skip
def test_small_talk_is_what_carries_no_word_of_its_own(text, small_talk):
    assert is_small_talk(text) is small_talk


def test_a_non_answer_says_only_that_its_speaker_does_not_know():
    assert is_non_answer("I don't know.") and is_non_answer("Not sure, sorry.") and is_non_answer("No idea!")
    assert not is_non_answer("I don't know anyone in Lisbon.")  # strict, as for a user's words
    assert is_non_answer("I don't know of any allergy of yours.", strict=False)
    assert is_non_answer("I'm not sure which hotel you booked. Could you tell me?", strict=False)
    assert is_non_answer("Sorry, I couldn't find any flights.", strict=False)
    assert not is_non_answer("I know you love Rust.", strict=False)
    assert not is_non_answer("It's sunny and 21C in Lisbon.", strict=False)


def test_a_restatement_carries_no_word_the_conversation_had_not_said():
    said = ["I'm vegetarian, and I'm allergic to peanuts."]
    assert restates("Noted: you're vegetarian and allergic to peanuts!", said)
    assert not restates("You're vegetarian, so try the falafel place.", said)
    assert not restates("ok", said)  # small talk restates nothing: it is chatter


def test_a_field_never_overwrites_a_different_value_the_caller_stored():
    stored = {"source": "crm", "state": "active", "x": 1}
    fields = {"source": "told-by-user", "state": "active", "confidence": 0.8}
    assert placed_fields(stored, fields) == {"audrey_source": "told-by-user", "state": "active", "confidence": 0.8}
    assert with_fields(stored, fields) == {**stored, "audrey_source": "told-by-user", "confidence": 0.8}


def test_metadata_becomes_audrey_fields_only_when_valid():
    item = item_from_metadata("t", {"source": "tool-result", "salience": 2, "tags": ["a", ""]}, "id1", "inference")
    assert item == {"content": "t", "metadata": {"source": "tool-result", "salience": 2, "tags": ["a", ""]},
                    "source": "tool-result", "id": "id1"}  # fmt: skip
    assert item_from_metadata("t", {"source": "crm"}, default_source="inference")["source"] == "inference"


def test_metadata_names_who_said_it_in_which_conversation_and_when():
    said = {"speaker": "Alice", "session": "s-7", "event_time": "2024-05-01T09:30:00+02:00"}
    item = item_from_metadata("t", said)
    assert (item["speaker"], item["session"]) == ("Alice", "s-7")
    assert item["event_time"] == datetime(2024, 5, 1, 7, 30, tzinfo=timezone.utc)
    assert item["metadata"] == said  # kept whole as well
    # a blank name, a time with no zone to read it in, or text that is not a time stay metadata only
    for unread in ({"speaker": " ", "session": 3}, {"event_time": "2024-05-01T09:30:00"}, {"event_time": "May"}):
        assert set(item_from_metadata("t", unread)) == {"content", "metadata"}


def test_rendering_shows_confidence_source_type_and_disagreement(tmp_path):
    with Audrey(tmp_path / "r.db", embedder=DeterministicEmbedder(), config=SYNC) as brain:
        mid = brain.encode("the deploy freeze starts friday", source="told-by-user")
        results = brain.recall("deploy freeze", limit=1)
    block = render_memories(results)
    day = results[0].observed_at.strftime("%Y-%m-%d")
    assert block.splitlines()[0].startswith("Relevant memories")
    assert f"told-by-user, episodic, {day}] the deploy" in block
    assert render_memories(results, None, show_type=False, show_ids=True).startswith(f"{mid} [")
    assert render_memories([]) == ""
    restated, principle = (
        replace(results[0], evidence_count=2),
        replace(results[0], memory_type="semantic", evidence_count=3),
    )
    assert f"episodic, {day}, 2 reports] the deploy" in render_memories([restated])
    assert f"semantic, {day}, lesson learned from 3 episodes] the deploy" in render_memories([principle])
    extractive = replace(principle, metadata={"extractive": True, "shared_words": "the deploy freeze starts"})
    shown = "lesson learned from 3 episodes; all say: the deploy freeze starts] the deploy"
    assert shown in render_memories([extractive])


def test_iter_memories_and_forget_all_reach_every_state_within_the_instance(tmp_path):
    path = tmp_path / "all.db"
    with Audrey(path, embedder=DeterministicEmbedder(), config=SYNC) as root:
        old = root.encode("alice's plan is basic", scope=("user", "alice"))
        root.encode("alice's plan is premium", scope=("user", "alice"), supersedes=old)
        root.encode_batch([{"content": f"bob note {i}", "scope": ("user", "bob")} for i in range(1203)])
        alice = Audrey(path, embedder=DeterministicEmbedder(), config=SYNC, scope=("user", "alice"))
        assert [m.content for m in alice.iter_memories()] == ["alice's plan is premium"]  # what is current
        assert len(list(alice.iter_memories(states=list(STATES)))) == 2
        theirs = sorted(m.id for m in root.iter_memories(scope=("user", "alice"), states=list(STATES)))
        assert sorted(alice.forget_all()) == theirs
        alice.close()
        assert list(root.iter_memories(scope=("user", "alice"), states=list(STATES))) == []
        bob = list(root.iter_memories(scope_prefix=("user", "bob")))
        assert len(bob) == 1203 and bob[0].content == "bob note 0"  # oldest first, across pages
        assert len(root.forget_all(scope=("user", "bob"))) == 1203 and root.introspect().total == 0


def test_iter_memories_checks_its_filters_when_called(tmp_path):
    from audrey_core import InvalidInputError

    with Audrey(tmp_path / "i.db", embedder=DeterministicEmbedder(), config=SYNC) as brain:
        with pytest.raises(InvalidInputError, match="unknown options"):
            brain.iter_memories(colour="red")  # before any iteration
        with pytest.raises(InvalidInputError):
            brain.forget_all(scope="not-a-tuple")


def test_listing_refuses_recall_only_options(tmp_path):
    """A token budget belongs to recall: listing never silently ignores it."""
    from audrey_core import InvalidInputError

    with Audrey(tmp_path / "l.db", embedder=DeterministicEmbedder(), config=SYNC) as brain:
        brain.encode("a note")
        for call in (lambda: brain.list_memories(token_budget=5), lambda: brain.iter_memories(token_budget=5)):
            with pytest.raises(InvalidInputError, match="unknown options"):
                call()
        assert len(brain.recall("note", token_budget=50)) == 1
