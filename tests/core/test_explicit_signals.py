"""What may hide a memory (issue 43): only an explicit signal. The LLM path with realistic structured replies and with
the ways it fails (malformed JSON, a refusal, a timeout, an untyped or multi-valued update): each ends in a dispute
or in nothing, never in a hide. The transition table, and the states every layer imports. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from audrey_core import Audrey, AudreyConfig
from audrey_core.config import STATES, ValidationConfig
from audrey_core.models import Contradiction, Counterclaim, RecallResult
from audrey_core.states import (
    CONTRADICTION_STATES,
    MEMORY_STATES,
    TransitionError,
    contradiction_move,
    memory_move,
    movable,
)
from audrey_core.testing import ScriptedLLM
from audrey_core.ui import routes

from .vectors import PlacedEmbedder

CONFIG = AudreyConfig(validation=ValidationConfig(background=False))
TYPED = {"subject": "the user", "attribute": "home city", "old_value": "Leeds", "new_value": "York"}


@pytest.fixture
def placed():
    return PlacedEmbedder(dimensions=64)


def timeout(messages):
    raise TimeoutError("the model server did not answer in 30 s")


# Replies a real model gives besides the right one; none may take the older claim out of recall.
NOT_A_HIDE = {
    "malformed JSON": '{"relation": "updates", "reason": "moved',
    "a refusal": "I'm sorry, but I can't help with comparing these statements.",
    "a timeout": timeout,
    "an untyped update": {"relation": "updates", "reason": "the user moved"},
    "a multi-valued attribute": {"relation": "updates", "reason": "another city", **TYPED, "single_valued": False},
    "a same-time update": None,  # the typed update, but both claims hold from the same time
}


def encode_pair(brain, placed, clock, same_time=False):
    old = brain.encode(placed.place("The user lives in Leeds.", 0.9), source="told-by-user")
    if not same_time:
        clock.advance(days=40)
    new = brain.encode(placed.place("These days the user is based in York.", 0.9), source="told-by-user")
    return old, new


def test_a_typed_update_of_a_single_valued_attribute_hides_the_older_claim(db_path, placed, clock):
    llm = ScriptedLLM(
        {"contradiction_check": {"relation": "updates", "reason": "moved", **TYPED, "single_valued": True}}
    )
    with Audrey(db_path, embedder=placed, llm=llm, config=CONFIG, clock=clock) as brain:
        events = []
        brain.on("update", events.append)
        old, new = encode_pair(brain, placed, clock)
        assert brain.get(old).superseded_by == new and brain.contradictions() == []
        assert events[0]["signal"] == "llm_structured"
        assert events[0]["update"] == {k: TYPED[k] for k in ("subject", "attribute", "old_value", "new_value")}
        audit = [e for e in brain.audit_log() if e["action"] == "update"]
        assert audit[-1]["details"]["update"]["old_value"] == "Leeds"


@pytest.mark.parametrize("case", list(NOT_A_HIDE))
def test_anything_less_is_a_dispute_or_nothing_never_a_hide(db_path, placed, clock, case):
    reply = NOT_A_HIDE[case]
    same_time = reply is None
    if same_time:
        reply = {"relation": "updates", "reason": "moved", **TYPED, "single_valued": True}
    llm = ScriptedLLM({"contradiction_check": reply})
    with Audrey(db_path, embedder=placed, llm=llm, config=CONFIG, clock=clock) as brain:
        errors = []
        brain.on("error", errors.append)
        old, new = encode_pair(brain, placed, clock, same_time=same_time)
        assert llm.calls  # the LLM was asked
        assert {m.state for m in brain.get_many([old, new])} <= {"active", "disputed"}
        assert brain.get(old).superseded_by is None
        disputes = brain.contradictions()
        assert all(c.resolution.signal is None for c in disputes)
        if case in ("malformed JSON", "a refusal", "a timeout"):
            assert errors and errors[-1]["event"] == "validation"  # said, and the rules' verdict stood
        found = {r.id for r in brain.recall(placed.place("Where does the user live?", 0.9))}
        assert {old, new} <= found


def test_validating_an_episode_twice_changes_nothing(db_path, placed, clock):
    from audrey_core.claims.validate import validate_episodes

    with Audrey(db_path, embedder=placed, config=CONFIG, clock=clock) as brain:
        a = brain.encode(placed.place("The API rate limit is 100 requests per second.", 0.9), source="told-by-user")
        clock.advance(days=40)
        b = brain.encode(placed.place("The API rate limit is 25 requests per second.", 0.9), source="told-by-user")
        c = brain.encode(placed.place("The cache TTL is 300 seconds.", 0.9), source="tool-result")
        clock.advance(days=1)
        d = brain.encode(placed.place("The cache TTL is five minutes.", 0.9), source="told-by-user")
        clock.advance(days=1)
        e = brain.encode(placed.place("Kim moved from Lisbon to Berlin.", 0.9))
        ids = [a, b, c, d, e]

        def snapshot():
            memories = {m.id: m for m in brain.get_many(ids)}
            fields = (
                "state",
                "evidence_count",
                "challenge_count",
                "superseded_by",
                "valid_until",
                "last_reinforced_at",
            )
            return (
                {i: tuple(getattr(m, f) for f in fields) for i, m in memories.items()},
                sorted((x.id, x.state, x.resolution) for x in brain.contradictions()),
                len(brain.audit_log()),
                {i: sorted(brain._storage.claim_support(i)) for i in ids},
            )

        before = snapshot()
        assert before[1]  # the first run recorded a dispute
        clock.advance(days=1)
        validate_episodes(brain._context, ids)  # what resuming after a crash does
        assert snapshot() == before


def test_every_layer_knows_every_state():
    assert STATES == MEMORY_STATES
    assert set(routes.DISPUTE_STATES) == set(CONTRADICTION_STATES)  # rollback's "closed" included
    assert {"state", "relation"} <= set(Counterclaim.__dataclass_fields__)
    assert "state" in RecallResult.__dataclass_fields__


def test_mcp_offers_every_contradiction_state(tmp_path):
    pytest.importorskip("mcp")
    import asyncio

    from audrey_core.admin.mcp_server import build_server
    from audrey_core.testing import DeterministicEmbedder

    with Audrey(tmp_path / "m.db", embedder=DeterministicEmbedder()) as brain:
        tools = {t.name: t for t in asyncio.run(build_server(brain).list_tools())}
    schema = tools["contradictions"].inputSchema["properties"]["states"]
    listed = next(option for option in schema["anyOf"] if option.get("type") == "array")
    assert set(listed["items"]["enum"]) == set(CONTRADICTION_STATES)


def test_the_transition_table_refuses_what_it_does_not_allow():
    assert memory_move("supersede", "active") == "superseded"
    assert memory_move("wake", "dormant", prior="disputed") == "disputed"
    assert memory_move("reopen", "superseded") == "active"
    for event, current in (("reopen", "active"), ("supersede", "rolled_back"), ("wake", "active")):
        with pytest.raises(TransitionError):
            memory_move(event, current)
    assert contradiction_move("close", "open") == "closed"
    with pytest.raises(TransitionError):
        contradiction_move("settle", "closed")
    with pytest.raises(TransitionError):
        contradiction_move("reopen", "reopened")
    assert "superseded" not in movable("set_aside") and "rolled_back" not in movable("roll_back")


def test_a_closed_dispute_cannot_be_settled(db_path, placed, clock):
    from audrey_core import InvalidInputError

    llm = ScriptedLLM({"contradiction_check": {"relation": "contradicts", "reason": "two cities"}})
    with Audrey(db_path, embedder=placed, llm=llm, config=CONFIG, clock=clock) as brain:
        _, new = encode_pair(brain, placed, clock)
        (dispute,) = brain.contradictions()
        brain._storage.update_record(Contradiction, dispute.id, {"state": "closed"})
        with pytest.raises(InvalidInputError, match="cannot be settled"):
            brain.settle_contradiction(dispute.id, new, "checked")


# -- typed claims ---------------------------------------------------------------------------------------------------

READINGS = {
    "The user lives in Leeds.": ("the user", "home city", "Leeds", True, None),
    "Since 1 March the user has lived in York.": ("the user", "home city", "York", True, "2026-03-01"),
    "The user has a dog.": ("the user", "pet", "a dog", False, None),
    "The user has a cat.": ("the user", "pet", "a cat", False, None),
}


def reader(messages):
    """An LLM reading typed claims: each numbered statement it knows, as a realistic reply would."""
    claims = []
    for line in messages[-1]["content"].splitlines()[1:]:
        number, _, text = line.partition(". ")
        if text in READINGS:
            subject, attribute, value, single, since = READINGS[text]
            claims.append({"statement": int(number), "subject": subject, "attribute": attribute, "value": value,
                           "single_valued": single, "valid_from": since})  # fmt: skip
    return {"claims": claims}


def test_typed_claims_decide_an_update_and_show_in_recall_history_and_as_of(db_path, placed, clock):
    from datetime import datetime, timezone

    llm = ScriptedLLM({"claim_extraction": reader, "contradiction_check": {"relation": "unrelated", "reason": "?"}})
    with Audrey(db_path, embedder=placed, llm=llm, config=CONFIG, clock=clock) as brain:
        clock.advance(days=9)  # 10 January 2026
        leeds = brain.encode(placed.place("The user lives in Leeds.", 0.9), source="told-by-user")
        clock.advance(days=81)  # 1 April
        york = brain.encode(placed.place("Since 1 March the user has lived in York.", 0.9), source="told-by-user")
        old = brain.get(leeds)
        assert old.claim.attribute == "home city" and old.claim.method == "llm"
        assert old.superseded_by == york  # the typed fields decided
        assert not llm.calls_for("contradiction_check") and not llm.calls_for("contradiction_check_batch")
        assert old.valid_until == datetime(2026, 3, 1, tzinfo=timezone.utc)  # when the claim says York began
        (hit,) = [r for r in brain.recall(placed.place("Where does the user live?", 0.9)) if r.id == york]
        assert (hit.claim.value, hit.claim.single_valued) == ("York", True)
        then = brain.recall(
            placed.place("Where does the user live?", 0.9), as_of=datetime(2026, 2, 1, tzinfo=timezone.utc)
        )
        assert leeds in [r.id for r in then] and york not in [r.id for r in then]
        update = [e for e in brain.audit_log() if e["action"] == "update"][-1]["details"]
        assert update["signal"] == "llm_structured" and update["update"]["old_value"] == "Leeds"


def test_typed_claims_of_an_attribute_with_several_values_hide_nothing(db_path, placed, clock):
    llm = ScriptedLLM({"claim_extraction": reader, "contradiction_check": {"relation": "contradicts", "reason": "?"}})
    with Audrey(db_path, embedder=placed, llm=llm, config=CONFIG, clock=clock) as brain:
        dog = brain.encode(placed.place("The user has a dog.", 0.9), source="told-by-user")
        clock.advance(days=40)
        cat = brain.encode(placed.place("The user has a cat.", 0.9), source="told-by-user")
        assert brain.get(dog).claim.single_valued is False and brain.get(dog).superseded_by is None
        assert {dog, cat} <= {r.id for r in brain.recall(placed.place("What pets does the user have?", 0.9))}


def test_a_failed_claim_reading_is_said_and_hides_nothing(db_path, placed, clock):
    llm = ScriptedLLM({"claim_extraction": "not json at all", "contradiction_check": {"relation": "unrelated"}})
    with Audrey(db_path, embedder=placed, llm=llm, config=CONFIG, clock=clock) as brain:
        errors = []
        brain.on("error", errors.append)
        old, _ = encode_pair(brain, placed, clock)
        assert errors and brain.get(old).claim is None and brain.get(old).superseded_by is None


def test_a_large_batch_has_its_claims_read_a_few_dozen_to_a_call(db_path, placed, clock):
    def lives_in(messages):
        listed = [line.partition(". ") for line in messages[-1]["content"].splitlines()[1:] if ". " in line]
        return {"claims": [{"statement": int(n), "subject": text.split(" lives")[0], "attribute": "home city",
                            "value": text.rsplit(" ", 1)[-1].rstrip("."), "single_valued": True}
                           for n, _, text in listed if " lives in " in text]}  # fmt: skip

    llm = ScriptedLLM({"claim_extraction": lives_in, "contradiction_check": {"relation": "unrelated", "reason": "?"}})
    with Audrey(db_path, embedder=placed, llm=llm, config=CONFIG, clock=clock) as brain:
        items = [{"content": placed.place(f"Person {n} lives in Leeds.", 0.2 + n / 100)} for n in range(40)]
        ids = brain.encode_batch(items)
        calls = [messages[-1]["content"] for messages in llm.calls_for("claim_extraction")]
        assert [text.count(" lives in ") for text in calls] == [32, 8]  # one batch, two calls
        assert all(brain.get(i).claim.subject == f"Person {n}" for n, i in enumerate(ids))


def test_a_claim_key_gives_subject_and_attribute(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=CONFIG, clock=clock) as brain:
        memory = brain.get(brain.encode("Ada lives in York.", key="ada.home_city"))
        assert (memory.claim.subject, memory.claim.attribute, memory.claim.method) == ("ada", "home_city", "key")


def test_a_store_made_before_typed_claims_opens_and_learns_them(tmp_path, clock):
    from audrey_core.testing import DeterministicEmbedder

    from .index_helpers import BEFORE_CLAIMS, downgrade

    path = tmp_path / "old.db"
    with Audrey(path, embedder=DeterministicEmbedder(), clock=clock) as brain:
        old = brain.encode("written before typed claims existed")
    downgrade(path, BEFORE_CLAIMS)
    with Audrey(path, embedder=DeterministicEmbedder(), clock=clock) as brain:
        assert brain.get(old).claim is None
        keyed = brain.encode("Ada lives in York.", key="ada.home_city")
        assert brain.get(keyed).claim.attribute == "home_city"


def test_supersession_at_encode_is_audited_and_announced_like_one_by_validation(db_path, placed, clock):
    """``supersedes=`` and a claim key hide a memory in encode's own transaction; each writes an ``update`` audit
    entry and emits one ``update`` event, with the same fields a supersession by validation has."""
    with Audrey(db_path, embedder=placed, config=CONFIG, clock=clock) as brain:
        updates = []
        brain.on("update", updates.append)
        old = brain.encode("The office is on floor 3.", source="told-by-user")
        keyed = brain.encode("Ada lives in Leeds.", key="ada.home_city", source="told-by-user")
        clock.advance(days=1)
        new = brain.encode("The office moved to floor 5.", source="told-by-user", supersedes=old)
        moved = brain.encode("Ada lives in York.", key="ada.home_city", source="told-by-user")
        assert [(e["old"], e["new"], e["signal"], e["judge"]) for e in updates] == [
            (old, new, "caller", "caller"),
            (keyed, moved, "claim_key", "caller"),
        ]
        audited = [e for e in brain._storage.audit_entries(brain.agent) if e["action"] == "update"]
        assert [(e["subject_id"], e["details"]["new"], e["details"]["signal"]) for e in audited] == [
            (old, new, "caller"),
            (keyed, moved, "claim_key"),
        ]
        assert (brain.get(old).state, brain.get(old).superseded_by) == ("superseded", new)
        assert brain.get(keyed).valid_until == brain.get(moved).valid_from


def test_a_claim_stated_about_an_earlier_time_is_replaced_at_once_by_the_newer_one(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=CONFIG, clock=clock) as brain:
        updates = []
        brain.on("update", updates.append)
        now = brain.encode("Ada lives in York.", key="ada.home_city")
        earlier = brain.encode(
            "Ada lives in Leeds.", key="ada.home_city", event_time=datetime(2020, 1, 1, tzinfo=timezone.utc)
        )
        assert (brain.get(earlier).state, brain.get(earlier).superseded_by) == ("superseded", now)
        assert brain.get(now).state == "active"
        assert [(e["old"], e["new"]) for e in updates] == [(earlier, now)]
