"""The conversation helpers both adapters share, and the whole-store calls that replaced "list a million"."""

from dataclasses import replace
from datetime import datetime, timezone

import pytest

from audrey_core import SOURCES, STATES, Audrey
from audrey_core.conversation import (
    REMEMBERED_SPEAKERS,
    is_question,
    item_from_metadata,
    placed_fields,
    remembered_speakers,
    render_memories,
    source_for_role,
    speaker_for_role,
    with_fields,
    worth_remembering,
)
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
    default = frozenset(REMEMBERED_SPEAKERS)
    assert worth_remembering("user", "I moved to Porto.", default)
    assert not worth_remembering("user", "Where does Bob live?", default)
    assert worth_remembering("user", "Where does Bob live?", default, questions=True)
    assert worth_remembering("human", "Thanks! I am flying there tomorrow.", default)
    assert not worth_remembering("tool", "stored", default) and worth_remembering("tool", "stored", default | {"tool"})
    assert not worth_remembering("system", "Be brief.", default | {"tool"}) and not worth_remembering(
        "ai", " ", default
    )
    assert is_question("Is it far? How long does it take?") and not is_question("It is far. Is it?")
    assert is_question("Wo wohnt Bob\uff1f") and not is_question("")
    assert remembered_speakers("tool") == {"tool"}
    with pytest.raises(ValueError, match="not 'system'"):
        remembered_speakers(("user", "system"))


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
