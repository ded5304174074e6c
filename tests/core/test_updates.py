"""Knowledge updates: a changed fact from a later time supersedes the older memory (never deletes it), a weaker source
cannot, recall answers what is true now and ``as_of`` what was believed then. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audrey_core import Audrey, AudreyConfig, InvalidInputError
from audrey_core.claims.decide import can_supersede
from audrey_core.claims.parse import parser_available
from audrey_core.config import ValidationConfig
from audrey_core.rules.english.answers import answer_groups
from audrey_core.rules.english.judge import judge_offline
from audrey_core.rules.english.qualifiers import strip_qualifiers

from ..conftest import SYNC
from .vectors import PlacedEmbedder

CFG = ValidationConfig()
RELIABILITY = {"direct-observation": 0.95, "told-by-user": 0.9, "tool-result": 0.85, "inference": 0.6,
               "model-generated": 0.4}  # fmt: skip


@pytest.mark.parametrize(
    ("older", "newer", "relation"),
    [
        ("The API rate limit is 100 requests per second.", "The API rate limit was lowered to 25 req/s.", "updates"),
        ("My manager is Priya Shah.", "My manager is now Tom Becker.", "updates"),
        ("Kim lives in Lisbon.", "Kim moved from Lisbon to Berlin.", "updates"),
        ("The shop is open on Sundays.", "The shop is no longer open on Sundays.", "updates"),
        ("The deploy window is Thursday at 10.", "The deploy window is Thursday at 11.", "updates"),
        ("Maria lives in Leeds.", "Maria's home is in Leeds.", "unrelated"),  # a restatement below 0.85: no change
        ("Alice moved to Berlin in 2019.", "Bob moved to Berlin in 2021.", "unrelated"),  # another subject
        ("The user has a dog called Rex.", "The user has a cat called Tom.", "unrelated"),  # two slots differ
        ("The API rate limit is 100 requests per second.", "The API timeout is 30 seconds.", "unrelated"),
        ("Ticket 41 is closed.", "Ticket 42 is closed.", "unrelated"),  # a bare number after a noun: an identifier
        ("worker 4 observation 9 about topic 0", "worker 5 observation 9 about topic 0", "unrelated"),  # names too
        ("Caroline: Thanks, Mel. I moved the show.", "Caroline: Sure! Things changed since we talked.", "unrelated"),
        ("The kids' school starts at 8:30.", "The kids' school now starts at 8:45.", "updates"),  # a time is one value
        ("The cluster runs Kubernetes 1.26.", "The cluster runs Kubernetes 1.28.", "updates"),  # so is a version
        ("The user's doctor is Dr. Okafor.", "The user changed doctors and now sees Dr. Lindqvist.", "updates"),  # Dr.
        ("I work at Deloitte.", "I left Deloitte and joined KPMG.", "updates"),  # the speaker is a subject
        ("The sprint is two weeks long.", "The sprint is three weeks long.", "updates"),  # number words
        ("Mia moved to Chicago.", "Mia moved again, to Denver.", "updates"),  # the same cue, another destination
        ("Kim moved to Berlin.", "Kim moved to Berlin last year.", "unrelated"),  # the same cue and destination
        ("The kids' school starts at 8:30.", "The kids' football practice starts at 17:00.", "unrelated"),  # owned
        ("Tom's daughter is in year 3.", "Tom's son is in year 6.", "unrelated"),  # an owner's other things
    ],
)  # fmt: skip
def test_each_class_of_pair_offline(older, newer, relation):
    assert judge_offline(older, newer, 0.7, CFG, newer=True).relation == relation
    assert judge_offline(newer, older, 0.7, CFG, newer=False).relation == relation  # the same pair seen the other way
    same_time = judge_offline(older, newer, 0.7, CFG, newer=None, strict=True)
    assert same_time.relation == ("contradicts" if relation == "updates" else "unrelated")
    assert judge_offline(older, newer, 0.45, CFG, newer=True) is None  # below the update zone nothing is judged


@pytest.mark.parametrize(
    ("older", "newer", "similarity", "relation"),
    [
        ("The parcel weighs 2 kg.", "The parcel weighs 2500 g.", 0.7, "updates"),  # a measured value after any verb
        ("Die Kaution beträgt 1.500 Euro.", "Die Kaution beträgt 2.000 Euro.", 0.7, "updates"),  # money, dotted
        ("Unsere Chefin ist Frau Berger.", "Unsere Chefin ist Frau Yilmaz.", 0.7, "updates"),  # a German verb
        ("Marta vive en Granada.", "Marta vive en Murcia.", 0.7, "updates"),  # a Spanish one: no two subjects
        ("La boulangerie ouvre à 7 heures.", "La boulangerie ouvre à 8 heures.", 0.7, "updates"),  # a French time
        ("The app is built with Java 17.", "The app is built with Java 21.", 0.95, "updates"),  # after the verb
        ("The office phone is 0161 496 0000.", "The office phone is 0161 496 0123.", 0.95, "updates"),  # grouped
        ("Ticket 41 is closed.", "Ticket 42 is closed.", 0.7, "unrelated"),  # before it: still an identifier
        ("Tom can't stand olives.", "Tom hates olives.", 0.9, "supports"),  # a negation word that negates nothing
        ("Sara grew up in Galway.", "Sara was raised in Galway.", 0.9, "supports"),  # a cue to what was said
        ("Der Bus fährt um 7 Uhr.", "Der Bus fährt um 07:00 Uhr.", 0.9, "supports"),  # one time of day
        ("The backup takes 5 h.", "The backup takes 300 minutes.", 0.9, "supports"),  # "h" is hours, not a clock
        ("Her son is six years old.", "Her son is 6.", 0.9, "supports"),  # a number beside it with its unit
        ("Kim lives in Berlin.", "Kim moved to Berlin last year.", 0.7, "updates"),  # more than what was said
        ("Ana works at Acme.", "Ana left Acme.", 0.7, "updates"),  # a cue of leaving names what stopped holding
        # a near-duplicate about another thing or another owner's restates nothing; one claim worded otherwise does
        ("The billing service got a new dashboard for request latency.",
         "The payments gateway got a new dashboard for request latency.", 0.9, "unrelated"),
        ("The user's brother works as a pilot.", "The user's sister works as a pilot.", 0.9, "unrelated"),
        ("Emma's birthday is on May 4.", "Emma's son's birthday is on June 9.", 0.9, "unrelated"),
        ("We deploy with GitHub Actions.", "Deployments go through GitHub Actions.", 0.9, "supports"),
        ("Dana's email address is dana@newmail.org.", "You can reach Dana at dana@newmail.org.", 0.9, "supports"),
        ("My dentist is Dr. Moreau.", "I see Dr. Moreau for my teeth.", 0.9, "supports"),
        # a label right after the subject's noun names it, as a name would: another build, invoice, room or test
        ("Ticket 41 is closed.", "Ticket 42 is closed.", 0.9, "unrelated"),
        ("Test test_login failed on CI.", "Test test_signup failed on CI.", 0.9, "unrelated"),
        ("Job nightly-export failed at 02:00.", "Job weekly-export failed at 02:00.", 0.9, "unrelated"),
        ("Build 88 failed on the lint step.", "Build 89 failed on the lint step.", 0.95, "unrelated"),
        ("Invoice 2023-114 was paid.", "Invoice 2023-115 was paid.", 0.95, "unrelated"),
        ("Room 204 is booked for Monday.", "Room 305 is booked for Monday.", 0.9, "unrelated"),
        ("User id 4411 logged in.", "User id 4412 logged in.", 0.95, "unrelated"),  # two words after the noun
        # other numbers the rules cannot read as one value: no restatement either way
        ("The API returns 50 items per page.", "The API returns 200 items per page.", 0.95, "unrelated"),
        ("The upload limit is 10 MB.", "The upload limit is 10MB.", 0.95, "supports"),  # one amount, two spellings
        # the same sentence but for the names or labels past its opening: another day, host or browser
        ("The nightly job failed on Monday.", "The nightly job failed on Tuesday.", 0.95, "unrelated"),
        ("Backups run every night at 2am on db-1.", "Backups run every night at 2am on db-2.", 0.95, "unrelated"),
        ("The login page loads slowly on Safari.", "The login page loads slowly on Firefox.", 0.9, "unrelated"),
        ("The deploy on March 3 failed.", "The deploy on March 5 failed.", 0.9, "unrelated"),  # after a name
        ("Meine Chefin heißt Frau Berger.", "Meine Vorgesetzte heißt Frau Berger.", 0.9, "supports"),  # German nouns
        ("Export it with ONNX Runtime.", "Export it with OnnxRuntime.", 0.95, "supports"),  # one name spaced otherwise
        ("The nightly job runs on Monday.", "The nightly job runs on Tuesday.", 0.95, "updates"),  # an attribute
        # where a value stands it is a value: after a linking verb, "version", as a decimal, with a unit
        ("The meeting is in room 204.", "The meeting is in room 305.", 0.9, "updates"),
        ("Version 2 of the API is live.", "Version 3 of the API is live.", 0.95, "updates"),
        ("Python 3.11 is our runtime.", "Python 3.12 is our runtime.", 0.95, "updates"),
        ("Sleeps 8 hours a night.", "Sleeps 6 hours a night.", 0.9, "updates"),
    ],
)  # fmt: skip
def test_values_and_restatements_the_offline_rules_read(older, newer, similarity, relation):
    assert judge_offline(older, newer, similarity, CFG, newer=True).relation == relation


@pytest.mark.parametrize(
    ("older", "newer", "named"),
    [
        ("Kim lives in Lisbon.", "Kim moved from Lisbon to Berlin.", "from lisbon to"),
        ("The shop is open on Sundays.", "The shop is no longer open on Sundays.", "no longer sundays"),
        ("I work at Deloitte.", "I left Deloitte and joined KPMG.", "left deloitte"),
        ("The user drives a Golf.", "The user sold the Golf and bought a bike.", "sold golf"),
        ("We deploy with Jenkins.", "Jenkins was replaced by GitHub Actions for deploys.", "jenkins was replaced"),
        ("The user lives in York.", "The user moved out of York last spring.", "moved out of york"),
        ("The report runs on Mondays.", "The report now runs on Wednesdays instead of Mondays.", "instead of mondays"),
        ("The office is in Leeds.", "The office used to be in Leeds.", "used to leeds"),
        ("Priya is on call this week.", "Diego is on call now, replacing Priya.", "replaced priya"),
        ("We deploy with Jenkins.", "We replaced Jenkins with GitHub Actions.", "replaced jenkins"),
        ("I live in Leeds.", "I don't live in Leeds anymore.", "leeds not any more"),
        ("El usuario vive en Valencia.", "El usuario ya no vive en Valencia.", "ya no vive"),
        ("Ich wohne in Köln.", "Ich wohne nicht mehr in Köln.", "nicht mehr köln"),
        # a guess, not a named past value: the same frame, a change without the old value, another thing ended
        ("The user has a dog named Biscuit.", "The user has a cat named Miso.", None),
        ("The standup is in room 4.", "The standup moved to room 7.", None),
        ("The user has a dog.", "The user no longer has a cat.", None),
        ("Tom works at Amazon.", "Tom no longer works at Google.", None),
        ("The café is next to the bank.", "The café is left of the bank.", None),
        # a marker that describes rather than reports a change (documentation sentences the rule once hid):
        # a path or a range, the generic present, what remains, a side, a purpose, an alternative, a future
        ("Download an S3 object to a file.", "Download this object from S3 to a file-like object.", None),
        ("Masked elements are set to 0 internally.", "Masked fields are replaced by None.", None),
        ("The data will be removed from the internal buffer.", "Flush data that is left in the buffer.", None),
        ("Find the right bracket at the given index.", "Find the left bracket enclosing current position.", None),
        ("Return the number of right children.", "Returns the number of left children under the node.", None),
        ("The object keeps its members.", "It can also return descriptor objects instead of members.", None),
        ("The helper function computes the total.", "Then we won't need this helper function anymore.", None),
        ("The default value of this parameter.", "This parameter should not be changed from its default value.", None),
        ("Function used to extract comparison key from keys.", "Function used to extract comparison key from values.",
         None),
        ("The graph is checked first.", "The intervals used to check the graph are updated as needed.", None),
        ("Return a new string.", "Return a copy with each occurrence of a substring replaced with a new one.", None),
        ("The solver is available on most platforms.", "The solver is automatically replaced by UMFPACK if available.",
         None),
        # a value the older statement itself names as past is no value it holds
        ("Kim moved from Lisbon to Madrid.", "Kim moved from Madrid to Berlin.", "from madrid to"),
        ("The hook is no longer invoked on node creation.", "The hook is no longer invoked on node erasure.", None),
        ("I used to live in York.", "I used to live in Leeds.", None),
        ("The fare rose from 2 to 3 euros in 2024.", "The fare rose from 2 to 3 euros in 2024, the report says.", None),
    ],
)  # fmt: skip
def test_only_a_value_named_as_past_is_an_offline_signal(older, newer, named):
    from audrey_core.rules.english.past_values import named_past_value

    found = named_past_value(older, newer)
    assert (found is None) == (named is None), found
    if named is not None:
        assert found.split()[0] == named.split()[0], found  # the marker (or the value before "was replaced")


def test_near_duplicates_restate_and_sources_rank_by_who_may_replace_whom():
    assert judge_offline("The cache is Redis.", "We cache with Redis.", 0.9, CFG, newer=True).relation == "supports"
    # the same statement later with another literal value: an update in the same words, a dispute in other words
    # (both kept in view); an identifier after a noun is no value
    assert (
        judge_offline("Jake's number is 555-0142.", "Jake's number is 555-0199.", 0.9, CFG, True).relation == "updates"
    )
    assert (
        judge_offline("Jake's number is 555-0142.", "Jake has a new number: 555-0199.", 0.9, CFG, True).relation
        == "contradicts"
    )
    assert can_supersede("told-by-user", "direct-observation", RELIABILITY)  # first-hand replaces first-hand
    assert not can_supersede("inference", "told-by-user", RELIABILITY)
    assert not can_supersede("model-generated", "inference", RELIABILITY)
    assert can_supersede("inference", "model-generated", RELIABILITY)


@pytest.fixture
def placed():
    return PlacedEmbedder(dimensions=64)


def told(brain, placed, text, clock=None, days=0, source="told-by-user"):
    if clock is not None and days:
        clock.advance(days=days)
    return brain.encode(placed.place(text, 0.9), source=source)


def test_descriptions_that_use_a_marker_of_change_hide_nothing(db_path, placed, clock):
    """Documentation and descriptions say "replaced by", "left", "from X to Y" without reporting that anything stopped
    holding: told weeks apart and judged against each other, every one of them stays in recall."""
    older = [
        "Characters are represented internally using unicode.",
        "Returns a list of nodes in a shortest path between source and target.",
        "On success, the data will be removed from the internal buffer.",
    ]
    newer = [
        "Unprintable characters are replaced by XML character references.",
        "Returns a list of nodes in a path from source to target.",
        "Flush data that is left in the buffer.",
    ]
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        ids = [told(brain, placed, text) for text in older]
        ids += [told(brain, placed, text, clock, days=40) for text in newer]
        assert brain.introspect().superseded == 0
        assert [m.state for m in brain.get_many(ids)] == ["active"] * 6


def test_an_update_supersedes_with_links_validity_and_an_event(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        events = []
        brain.on("update", events.append)
        old = told(brain, placed, "The API rate limit is 100 requests per second.")
        new = told(brain, placed, "The API rate limit was lowered from 100 to 25 requests per second.", clock, days=40)
        stored = brain.get(old)
        assert stored.state == "superseded" and stored.superseded_by == new
        assert stored.valid_until == brain.get(new).valid_from and brain.get(new).state == "active"
        assert [e["old"] for e in events] == [old] and events[0]["new"] == new and events[0]["judge"] == "heuristic"
        assert events[0]["signal"] == "named_past_value"
        assert brain.audit_log()[-1]["action"] == "update"
        query = placed.place("What is the API rate limit?", 0.9)
        assert [r.id for r in brain.recall(query)] == [new]  # what is true now
        shown = {r.id: r for r in brain.recall(query, include_superseded=True)}
        assert set(shown) == {old, new} and shown[old].superseded_by == new and shown[old].valid_until is not None
        hit = brain.recall(query, include_provenance=True)[0]
        assert [m.id for m in hit.provenance.supersedes] == [old]
        assert brain.contradictions() == [] and brain.introspect().states["episodic"]["superseded"] == 1


def test_a_guessed_update_is_a_dispute_both_recalled_the_newer_first(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        events = []
        brain.on("update", events.append)
        old = told(brain, placed, "The API rate limit is 100 requests per second.")
        new = told(brain, placed, "The API rate limit was lowered to 25 requests per second.", clock, days=40)
        assert brain.get(old).state != "superseded" and not events  # the old value is not named: a guess
        (dispute,) = brain.contradictions()
        assert dispute.resolution.relation == "updates" and dispute.resolution.signal is None
        assert "nothing says the older value stopped holding" in dispute.resolution.reason
        found = [r.id for r in brain.recall(placed.place("What is the API rate limit?", 0.9))]
        assert found[:2] == [new, old]  # both recalled, the newer first


def test_a_second_value_in_the_same_frame_is_never_hidden(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        dog = told(brain, placed, "The user has a dog named Biscuit.")
        cat = told(brain, placed, "The user has a cat named Miso.", clock, days=40)
        allergy = told(brain, placed, "The user is allergic to penicillin.", clock, days=1)
        second = told(brain, placed, "The user is allergic to shellfish.", clock, days=40)
        assert {m.state for m in brain.get_many([dog, cat, allergy, second])} <= {"active", "disputed"}
        assert {dog, cat} <= {r.id for r in brain.recall(placed.place("What pets does the user have?", 0.9))}


def test_a_weaker_source_cannot_replace_what_was_told(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        fact = told(brain, placed, "My manager is Priya Shah.")
        guess = told(
            brain, placed, "My manager changed from Priya Shah to Tom Becker.", clock, days=40, source="inference"
        )
        assert brain.get(fact).state != "superseded" and brain.get(fact).superseded_by is None
        (contradiction,) = brain.contradictions()
        assert {contradiction.claim_a_id, contradiction.claim_b_id} == {fact, guess}
        assert "cannot replace" in contradiction.resolution.reason
        query = placed.place("Who is my manager?", 0.9)
        results = {r.id: r for r in brain.recall(query)}
        assert contradiction.state == "open"  # both kept, each result carries the other side
        assert [c.memory_id for c in results[fact].counterclaims] == [guess]
        assert [c.memory_id for c in results[guess].counterclaims] == [fact]


def test_chains_and_as_of(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        start = clock()
        a = told(brain, placed, "Kim lives in Lisbon.")
        b = told(brain, placed, "Kim moved from Lisbon to Madrid.", clock, days=30)
        c = told(brain, placed, "Kim moved from Madrid to Berlin.", clock, days=30)
        assert [brain.get(i).state for i in (a, b, c)] == ["superseded", "superseded", "active"]
        query = placed.place("Where does Kim live?", 0.9)
        assert [r.id for r in brain.recall(query)] == [c]
        assert [r.id for r in brain.recall(query, as_of=start + timedelta(days=10))] == [a]
        assert [r.id for r in brain.recall(query, as_of=start + timedelta(days=45))] == [b]
        assert [r.id for r in brain.recall(query, as_of=start + timedelta(days=70))] == [c]
        assert brain.recall(query, as_of=start - timedelta(days=1)) == []  # nothing was known yet
        assert [m.id for m in brain.list_memories(as_of=start + timedelta(days=45))] == [b]
        assert [m.id for m in brain.recall(query, include_provenance=True)[0].provenance.supersedes] == [b, a]
        with pytest.raises(InvalidInputError, match="as_of"):
            brain.recall(query, as_of="yesterday")


def test_forgetting_the_update_revives_what_it_replaced(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        old = told(brain, placed, "The office is on the third floor.")
        new = told(brain, placed, "The office moved from the third floor to the fifth floor.", clock, days=40)
        assert brain.get(old).state == "superseded"
        brain.forget([new])
        revived = brain.get(old)
        assert (revived.state, revived.superseded_by, revived.valid_until) == ("active", None, None)


def test_update_chain_and_introspection(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        a = told(brain, placed, "Kim lives in Lisbon.")
        b = told(brain, placed, "Kim moved from Lisbon to Madrid.", clock, days=30)
        c = told(brain, placed, "Kim moved from Madrid to Berlin.", clock, days=30)
        for member in (a, b, c):
            assert [m.id for m in brain.update_chain(member)] == [a, b, c]
        assert [m.id for m in asyncio.run(brain.aupdate_chain(b))] == [a, b, c]
        assert brain.update_chain("01NOSUCHMEMORY000000000000") == []
        stats = brain.introspect()
        assert stats.superseded == 2 and stats.open_contradictions == 0


def test_the_command_shows_an_update(tmp_path):
    from click.testing import CliRunner

    from audrey_core.admin.cli import cli

    def run(*args):
        db = ["--db", str(tmp_path / "cli.db"), "--embedder", "deterministic"]
        return CliRunner().invoke(cli, [*db, *args])

    run("encode", "The API rate limit is 100 requests per second.")
    newer = run("--json", "encode", "The API rate limit was lowered from 100 to 25 requests per second.")
    status = run("status")
    assert "superseded by updates: 1" in status.output
    chain = run("history", json.loads(newer.output)["id"])
    assert chain.exit_code == 0 and chain.output.count("superseded") == 1 and "from 100 to 25" in chain.output
    assert run("history", "01NOSUCHMEMORY000000000000").exit_code == 4


def test_a_version_3_file_gains_validity_for_its_corrections(tmp_path):
    from audrey_core.storage import SQLiteStorage
    from audrey_core.storage.sqlite.connection import connect
    from audrey_core.storage.sqlite.schema import MIGRATIONS, migrate

    path = tmp_path / "v3.db"
    db = connect(str(path), vectors=False)
    migrate(db, 384, MIGRATIONS[:3])  # a file written before validity intervals existed
    db.executemany(
        "INSERT INTO audrey_config (key, value) VALUES (?, ?)",
        [("embedding_model", "deterministic-hash"), ("embedding_dimensions", "384"), ("vector_table", "v")],
    )
    insert = (
        "INSERT INTO episodes (id, agent, scope, content, source, source_reliability, created_at, state, "
        "supersedes, superseded_by) VALUES (?, 'default', '', ?, 'told-by-user', 0.9, ?, ?, ?, ?)"
    )
    db.execute(insert, ("e1", "the old fact", "2026-01-01T00:00:00.000000+00:00", "superseded", None, None))
    db.execute(insert, ("e2", "the correction", "2026-02-01T00:00:00.000000+00:00", "active", "e1", None))
    db.execute("UPDATE episodes SET superseded_by = 'e2' WHERE id = 'e1'")
    db.close()
    storage = SQLiteStorage(path, model_name="deterministic-hash", dimensions=384)
    try:
        old = storage.get_memory("e1")
        assert old.superseded_by == "e2" and old.valid_until == storage.get_memory("e2").created_at
        assert [m.id for m in storage.supersedes_chain("e2")] == ["e1"]
    finally:
        storage.close()


def test_a_principle_whose_evidence_was_updated_is_retired_at_the_next_consolidation(db_path, placed, clock):
    from .helpers import SOURCES3

    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        episodes = [
            brain.encode(placed.place(f"Deploys go out on Fridays (report {i}).", 0.97), source=s)
            for i, s in enumerate(SOURCES3)
        ]
        (principle,) = brain.consolidate().output_memory_ids
        clock.advance(days=30)
        fixes = [brain.encode(f"Correction {i}: deploys moved to Tuesdays.", supersedes=episodes[i]) for i in range(2)]
        assert brain.get(principle).state == "active"  # nothing similar enough reached it during validation
        brain.consolidate()
        retired = brain.get(principle)
        assert retired.state == "superseded" and retired.superseded_by in fixes and retired.valid_until is not None


def test_an_llm_judges_updates_and_is_recorded(db_path, placed, clock):
    from audrey_core import AudreyConfig
    from audrey_core.rules.prompts import CONTRADICTION_CHECK
    from audrey_core.testing import ScriptedLLM

    typed = {"subject": "the team", "attribute": "bug tracker", "old_value": "Jira", "new_value": "Linear"}
    reply = {"relation": "updates", "reason": "the team changed its tracker", **typed, "single_valued": True}
    llm = ScriptedLLM({"contradiction_check": reply})
    config = AudreyConfig(validation=ValidationConfig(background=False))
    with Audrey(db_path, embedder=placed, llm=llm, config=config, clock=clock) as brain:
        events = []
        brain.on("update", events.append)
        old = told(brain, placed, "Bugs are tracked in Jira.")  # no offline signal: the LLM decides
        new = told(brain, placed, "These days the team files bugs in Linear.", clock, days=20)
        assert brain.get(old).superseded_by == new and len(llm.calls_for("contradiction_check")) == 1
        assert events[0]["judge"] == "llm" and events[0]["prompt_hash"] == CONTRADICTION_CHECK.hash
        assert events[0]["signal"] == "llm_structured" and events[0]["update"]["new_value"] == "Linear"
        same_time = told(brain, placed, "Bugs are tracked in Trello.")  # an LLM 'updates' about the same time
        assert brain.get(same_time).state == "active" and brain.get(new).state == "active"
        assert any(same_time in (c.claim_a_id, c.claim_b_id) for c in brain.contradictions())


def test_prompts_say_when_the_record_disagrees(db_path, placed, clock):
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    from audrey_langchain.middleware import format_memories
    from audrey_llamaindex.messages import render

    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        told(brain, placed, "My manager is Priya Shah.")
        told(brain, placed, "My manager is now Tom Becker.", clock, days=40, source="inference")
        results = brain.recall(placed.place("Who is my manager?", 0.9))
        assert [c.state for c in brain.contradictions()] == ["open"]  # 40 days of decay brought them close
        for text in (format_memories(results), render(results)):
            assert text.count("disputed by: My manager is") == 2


def test_an_llm_judges_near_duplicates_unless_they_use_the_same_words():
    from audrey_core.claims.decide import Pair
    from audrey_core.claims.judges import judge_pairs
    from audrey_core.testing import ScriptedLLM

    llm = ScriptedLLM({"contradiction_check": {"relation": "updates", "reason": "a new tracker"}})
    same = judge_pairs("Bugs are tracked in Jira!", [Pair("Bugs are tracked in Jira.", 0.99, True)], llm, CFG)[0]
    assert same.rules.relation == "supports" and same.llm is None and not llm.calls  # the same words: no call
    other = judge_pairs("Bugs are tracked in Linear.", [Pair("Bugs are tracked in Jira.", 0.9, True)], llm, CFG)[0]
    assert other.llm.relation == "updates" and other.llm.method == "llm" and len(llm.calls) == 1


def test_one_llm_call_judges_every_close_memory(db_path, placed, clock):
    from audrey_core import AudreyConfig
    from audrey_core.rules.prompts import CONTRADICTION_CHECK_BATCH
    from audrey_core.testing import ScriptedLLM

    def reply(messages):
        existing, incoming = messages[-1]["content"].split("\n")
        if "Jira" in existing and "Linear" in incoming:
            typed = {"subject": "the team", "attribute": "bug tracker", "old_value": "Jira", "new_value": "Linear"}
            return {"relation": "updates", "reason": "scripted", **typed, "single_valued": True}
        return {"relation": "unrelated", "reason": "scripted"}

    llm = ScriptedLLM({"contradiction_check": reply})  # a batch is answered pair by pair from this script
    config = AudreyConfig(validation=ValidationConfig(background=False))
    with Audrey(db_path, embedder=placed, llm=llm, config=config, clock=clock) as brain:
        updates = []
        brain.on("update", updates.append)
        jira = told(brain, placed, "Bugs are tracked in Jira.")
        docs = told(brain, placed, "Our docs live in Notion.", clock, days=1)
        chat = told(brain, placed, "The team chats on Slack.", clock, days=1)
        llm.calls.clear()
        linear = told(brain, placed, "These days the team files bugs in Linear.", clock, days=20)
        (call,) = [c for c in llm.calls if c[0] != "claim_extraction"]  # three close memories, one call
        assert call[0] == CONTRADICTION_CHECK_BATCH.name and call[1][-1]["content"].count("\n") == 4
        assert brain.get(jira).superseded_by == linear
        assert brain.get(docs).state == brain.get(chat).state == "active"
        (update,) = updates
        assert update["judge"] == "llm" and update["prompt_hash"] == CONTRADICTION_CHECK_BATCH.hash


def test_a_batch_reply_that_leaves_a_memory_out_falls_back_to_the_heuristic(db_path, placed, clock):
    from audrey_core import AudreyConfig
    from audrey_core.testing import ScriptedLLM

    only_first = {"judgements": [{"memory": 1, "relation": "unrelated", "reason": "scripted"}]}
    llm = ScriptedLLM({"contradiction_check": {"relation": "unrelated"}, "contradiction_check_batch": only_first})
    config = AudreyConfig(validation=ValidationConfig(background=False))
    with Audrey(db_path, embedder=placed, llm=llm, config=config, clock=clock) as brain:
        errors = []
        brain.on("error", errors.append)
        old = told(brain, placed, "My manager is Priya Shah.")
        told(brain, placed, "Our docs live in Notion.", clock, days=1)
        new = told(brain, placed, "My manager is now Tom Becker.", clock, days=20)  # two neighbours: a batch
        assert "judged memories [1] of 1..2" in str(errors[-1]["error"])
        assert brain.get(old).state != "superseded"  # the rules' guess: a dispute, never a hide
        assert {(c.claim_a_id, c.claim_b_id) for c in brain.contradictions()} == {(old, new)}


def test_a_claim_key_replaces_the_same_key_in_the_same_scope_only(db_path, placed, clock):
    with Audrey(db_path, embedder=placed, config=SYNC, clock=clock) as brain:
        leeds = brain.encode("The user lives in Leeds.", key="user.home_city", scope=("user", "ada"))
        other = brain.encode("The user lives in Lyon.", key="user.home_city", scope=("user", "bo"))
        pet = brain.encode("The user has a dog.", key="user.pet.dog", scope=("user", "ada"))
        clock.advance(days=40)
        york = brain.encode("The user lives in York.", key="user.home_city", scope=("user", "ada"))
        old = brain.get(leeds)
        assert (old.state, old.superseded_by, old.valid_until) == ("superseded", york, brain.get(york).valid_from)
        assert {brain.get(i).state for i in (other, pet, york)} == {"active"}  # another scope, another key
        found = [r.id for r in brain.recall("where does the user live", scope=("user", "ada"))]
        assert york in found and leeds not in found
        # stated later about an earlier time: the claim it would replace is newer, so it is the one replaced
        earlier = brain.encode(
            "The user lived in Hull.",
            key="user.home_city",
            scope=("user", "ada"),
            event_time=clock() - timedelta(days=90),
        )
        assert brain.get(earlier).superseded_by == leeds and brain.get(york).state == "active"
        # a batch holding one key twice: a chain, the newest holds
        first, second = brain.encode_batch(
            [
                {
                    "content": "The user's phone is 555-0101.",
                    "key": "user.phone",
                    "event_time": clock() - timedelta(days=1),
                },
                {"content": "The user's phone is 555-0199.", "key": "user.phone"},
            ]
        )
        assert brain.get(first).superseded_by == second and brain.get(second).state == "active"


LONG_OLD = (
    "I spent the morning in meetings. The project database is PostgreSQL 14 and the project database runs fine. "
    "Can you look at the failing test in checkout? Let's keep the scope small."
)
LONG_NEW = (
    "The customer call went fine. We moved the project database to MySQL 8 last weekend. "
    "Please remind me about the onboarding checklist. I'll be out on Friday."
)


@pytest.mark.parametrize("offline_rules", [True, False])
def test_a_fact_changed_inside_a_long_turn_comes_first_when_the_question_asks_how_things_are(
    db_path, placed, clock, offline_rules
):
    config = AudreyConfig(validation=ValidationConfig(background=False, offline_rules=offline_rules))
    with Audrey(db_path, embedder=placed, config=config, clock=clock) as brain:
        old = brain.encode(placed.place(LONG_OLD, 0.9), source="told-by-user", session="s1", speaker="user")
        clock.advance(days=40)
        new = brain.encode(placed.place(LONG_NEW, 0.6), source="told-by-user", session="s2", speaker="user")
        assert brain.get(old).state == "active" and brain.contradictions() == []  # several sentences: not judged
        now = [r.id for r in brain.recall(placed.place("Which database does the project use?", 0.9))]
        then = [r.id for r in brain.recall(placed.place("Which database did the project use?", 0.9))]
    assert now == ([new, old] if offline_rules else [old, new])  # the older ranks first by relevance alone
    assert then == [old, new]  # a question about another time: relevance decides


def test_two_answers_to_one_question_come_together_where_the_better_stood(db_path, placed, clock):
    """The newer of two answers far apart in the results comes first, and the older, which recall ranked first,
    right after it: it does not trade places with the newer one and leave the first results."""
    config = AudreyConfig(validation=ValidationConfig(background=False))
    with Audrey(db_path, embedder=placed, config=config, clock=clock) as brain:
        old = brain.encode(placed.place(LONG_OLD, 0.95), source="told-by-user", session="s1", speaker="user")
        others = [brain.encode(placed.place(f"Unrelated note number {i}.", 0.8 - i / 100)) for i in range(12)]
        clock.advance(days=40)
        new = brain.encode(placed.place(LONG_NEW, 0.3), source="told-by-user", session="s2", speaker="user")
        question = placed.place("Which database does the project use?", 1.0)
        ranked = [r.id for r in brain.recall(question, limit=20, mode="vector")]  # relevance as placed
    assert ranked[:3] == [new, old, others[0]] and len(ranked) == 14


@pytest.mark.parametrize(
    ("texts", "question", "groups"),
    [
        ((LONG_OLD, LONG_NEW), "Which database does the project use?", [[0, 1]]),
        ((LONG_OLD, LONG_NEW), "Which database did the project use in March?", []),  # another time
        ((LONG_OLD, LONG_NEW), "project database", []),  # a search phrase, not a question
        ((LONG_OLD, LONG_OLD.replace("morning", "evening")), "Which database does the project use?", []),  # restated
        ((LONG_OLD, "Should the project database be MySQL?"), "Which database does the project use?", []),  # asked
        ((LONG_OLD, "The project has a new logo."), "Which database does the project use?", []),  # one word shared
        (("Our analytics run on Google Analytics.", "Analytics moved to Plausible."), "Which analytics tool?", []),
        (("Analytics run on Google Analytics.", "Analytics moved to Plausible."), "What about analytics?", [[0, 1]]),
        (("Ana's shop is the corner bakery.", "Ana shops at the market."), "Which shop does Ana use?", [[0, 1]]),
    ],
)  # fmt: skip
def test_which_recalled_texts_answer_one_question(texts, question, groups):
    assert answer_groups(list(texts), question) == groups


def test_a_topic_many_recalled_texts_answer_is_no_changed_value():
    assert parser_available()  # recall reads claims once the parser is loaded (validation loads it)
    said = ["The dance studio opens in May.", "The dance studio opens in June.", "The dance studio opens in July."]
    assert answer_groups(said, "When does the dance studio open?") == []
    assert answer_groups(said[:2], "When does the dance studio open?") == [[0, 1]]
    other = ["The dance studio needs a new floor.", "The dance studio opens in May."]  # two claims of one subject
    assert answer_groups(other, "What is happening at the dance studio?") == []


@given(
    st.lists(st.sampled_from(["in", "test", "Mode", "for", "hotfixes,", "the", "review", "(x)", "a_b", "é", "İ"]),
             min_size=1, max_size=9),
    st.integers(0, 8), st.integers(1, 3),
)  # fmt: skip
def test_a_qualifier_is_cut_as_the_pattern_of_its_words_would_cut_it(words, start, length):
    text = " ".join(words)
    phrase = " ".join(words[start % len(words) :][:length]).lower().strip(",")
    expected = re.sub(rf"\b{re.escape(phrase)}\b,?\s*", "", text, count=1, flags=re.IGNORECASE).strip()
    assert strip_qualifiers(text, phrase) == (expected if phrase else text)
