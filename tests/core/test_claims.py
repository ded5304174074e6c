"""Claims read from the parse (spaCy's small English pipeline): subject, predicate, values and qualifiers of a
statement, and the rule that two statements are about one thing only when subject and predicate agree. Through
validation and recall, on SQLite and PostgreSQL: look-alike subjects and routine notes are never disputed, and a
question about one look-alike recalls its own first."""

from __future__ import annotations

import pytest

from audrey_core import Audrey, OnnxEmbedder
from audrey_core.claims.about import about_one_thing
from audrey_core.claims.parse import MAX_WORDS, WORD, is_statement, parser_available, read, read_many
from audrey_core.config import ValidationConfig
from audrey_core.rules.english.answers import answer_groups
from audrey_core.rules.english.judge import judge_offline

from ..conftest import SYNC

EMBEDDER = OnnxEmbedder()


@pytest.mark.parametrize(
    ("text", "subject", "predicate", "values"),
    [
        ("The user's sister lives in Lyon.", ("user", "sister"), "live", ("in lyon",)),  # a possessor
        ("The search API had its config loading refactored.", ("search", "api"), None, ("its config loading",)),
        ("The warehouse database was backed up.", ("warehouse", "database"), "back up", ()),  # passive, particle
        ("The office in Madrid opens at 8 am.", ("madrid", "office"), "open", ("at 8 am",)),  # a phrase narrows it
        ("My manager is now Dana.", ("i", "manager"), "be", ("dana",)),  # first person: the speaker
        ("We switched from Postgres to MySQL.", ("i",), "switch", ("from postgres", "to mysql")),
        ("The user used to live in Paris.", ("user",), "live", ("in paris",)),  # the second verb says what
    ],
)
def test_a_statement_reads_as_subject_predicate_and_values(text, subject, predicate, values):
    reading = read(text)
    assert reading is not None and reading.subject == subject and reading.values == values
    assert predicate is None or reading.predicate == predicate


def test_negation_time_joined_verbs_and_what_cannot_be_read():
    assert read("Nina cannot eat soy.").negated and not read("Nina eats soy.").negated
    ran = read("The user ran 10 km on Saturday.")
    assert ran.values == ("10 km",) and ran.qualifiers == ("on saturday",) and ran.tense == "past"
    quit_ = read("Lena quit Google and now works at Stripe.")
    assert quit_.predicate == "quit" and quit_.also == ("work",) and "at stripe" in quit_.values
    for unread in ("El usuario vive en Madrid.", "ok thanks", "Hello there", "I moved. Then I left."):
        assert read(unread) is None  # another language, a fragment, two sentences: no claim
    read_many(["Tom finished reading Dune.", "Tom started a pottery class."])  # one batch, read back the same
    assert read("Tom finished reading Dune.").predicate == "read"


def test_a_claim_is_read_from_one_statement_of_at_most_max_words():
    longest = "The user visited " + ", ".join(f"town{n}" for n in range(MAX_WORDS - 5)) + " and Lyon."
    assert len(WORD.findall(longest)) == MAX_WORDS and is_statement(longest)
    assert read(longest) is not None and read(longest).predicate == "visit"
    longer = longest.replace(" and Lyon.", ", Nice and Lyon.")
    assert not is_statement(longer) and read(longer) is None  # a longer text states no one claim
    assert not is_statement("Dr. Okafor moved. She lives in Leeds.") and is_statement("Dr. Okafor lives in Leeds.")


@pytest.mark.parametrize(
    ("older", "newer", "one_thing"),
    [
        ("The user's sister lives in Lyon.", "The user's brother lives in Berlin.", False),  # look-alikes
        ("The staging cluster runs Kubernetes 1.27.", "The production cluster runs Kubernetes 1.29.", False),
        ("The office in Madrid opens at 8 am.", "The office in Dublin opens at 9 am.", False),
        ("The search API had its old feature flags cleaned up.", "The search API had its config refactored.", False),
        ("The user's car had its tyres replaced.", "The user's car had its oil changed.", False),  # routine notes
        ("The auth service rotated its signing keys.", "The auth service dropped support for TLS 1.0.", False),
        ("I live in Lisbon.", "My home is now in Porto.", True),  # owner and owned, a copula
        ("The team uses Postgres.", "Our team switched from Postgres to MySQL.", True),  # a change of what it says
        ("Lena works at Google.", "Lena quit Google and now works at Stripe.", True),  # a joined verb
        ("The frontend is written in Angular.", "The frontend was rewritten in React.", True),  # re-
        ("Ben is the on-call engineer.", "Priya took over on-call from Ben.", True),  # the subject among the values
        ("The user lives in Rome.", "I live in Milan.", True),  # the user is the speaker
    ],
)
def test_two_statements_are_about_one_thing_when_subject_and_predicate_agree(older, newer, one_thing):
    assert about_one_thing(older, newer) is one_thing


def test_unread_statements_leave_the_question_open():
    assert about_one_thing("El usuario vive en Madrid.", "El usuario vive en Sevilla.") is None
    # a subject of numbers alone names nothing to compare (a real corpus sentence once raised here)
    assert about_one_thing("2019 was a good year for the team.", "The team had a good year.") is None


def test_the_offline_judge_never_disputes_look_alikes_or_routine_notes():
    cfg = ValidationConfig()
    for older, newer in [
        ("The user's sister lives in Lyon.", "The user's brother lives in Berlin."),
        ("The search API had its old feature flags cleaned up.", "The search API had its config loading refactored."),
    ]:
        for newer_time in (True, None):
            verdict = judge_offline(older, newer, 0.8, cfg, newer=newer_time)
            assert verdict is not None and verdict.relation == "unrelated", verdict
    verdict = judge_offline("My manager is Priya Shah.", "My manager is now Tom Becker.", 0.8, cfg, newer=True)
    assert verdict is not None and verdict.relation == "updates"  # one subject, one predicate: still judged


def test_recall_puts_newer_first_only_within_one_claim():
    assert parser_available()  # recall reads claims once the parser is loaded (validation loads it)
    question = "Where does the user's sister live?"
    look_alikes = ["The user's sister lives in Lyon.", "The user's brother lives in Berlin."]
    assert answer_groups(look_alikes, question) == []  # two subjects: their order is the ranking's
    moved = ["The user's sister lives in Lyon.", "The user's sister lives in Nantes now."]
    assert answer_groups(moved, question) == [[0, 1]]


def test_look_alikes_and_routine_notes_stay_undisputed_and_recall_their_own_first(db_path, clock):
    """With the default model: the real similarities of look-alikes (0.7-0.8) are in the zone judged."""
    told = [
        "The user's sister lives in Lyon.",
        "The user's brother lives in Berlin.",
        "The user's car had its tyres replaced.",
        "The user's car had its oil changed.",
    ]
    with Audrey(db_path, embedder=EMBEDDER, config=SYNC, clock=clock) as brain:
        ids = []
        for text in told:
            ids.append(brain.encode(text, source="told-by-user"))
            clock.advance(days=30)
        assert brain.contradictions() == []
        assert [m.state for m in brain.get_many(ids)] == ["active"] * 4
        sister = [r.id for r in brain.recall("Where does the user's sister live?")]
        assert sister.index(ids[0]) < sister.index(ids[1])  # its own first, though the brother's is newer


def test_without_the_parser_only_explicit_signals_change_anything_said_once(db_path, clock, monkeypatch, caplog):
    from audrey_core.claims import parse
    from audrey_core.testing import DeterministicEmbedder

    embedder = DeterministicEmbedder()
    with Audrey(db_path, agent="parsed", embedder=embedder, config=SYNC, clock=clock) as brain:
        old = brain.encode("The API rate limit is 100 requests per second.")
        clock.advance(days=40)
        brain.encode("The API rate limit was lowered from 100 to 25 requests per second.")
        assert brain.get(old).state == "superseded"  # with the parser, the change that names 100 replaces it
    monkeypatch.setattr(parse, "_pipeline", lambda: None)
    monkeypatch.setattr(parse, "parser_installed", lambda: False)
    monkeypatch.setattr(parse, "_said", [])
    with caplog.at_level("WARNING", logger="audrey_core.claims.parse"):
        for _ in range(2):
            with Audrey(db_path, embedder=embedder, config=SYNC, clock=clock) as brain:
                old = brain.encode("The API rate limit is 100 requests per second.")
                clock.advance(days=40)
                new = brain.encode("The API rate limit was lowered from 100 to 25 requests per second.")
                assert brain.contradictions() == [] and brain.get(old).state == "active"  # no pair judged
                keyed = brain.encode("Home: Lisbon.", key="user.home")
                clock.advance(days=1)
                brain.encode("Home: Porto.", key="user.home")
                assert brain.get(keyed).state == "superseded" and brain.get(new).state == "active"
    said = [r for r in caplog.records if "not installed" in r.getMessage()]
    assert len(said) == 1  # once a process, at the first start


def test_a_statement_is_read_once_and_its_reading_kept_with_the_episode(db_path, clock):
    """Readings are derived: stored by validation, read again when another reader made them, gone with the episode."""
    from audrey_core.claims.parse import from_json, reader
    from audrey_core.claims.readings import statements_read

    said = "The user's sister lives in Lyon."
    with Audrey(db_path, embedder=EMBEDDER, config=SYNC, clock=clock) as brain:
        lonely = brain.encode("The quarterly invoices are archived in Frankfurt.")
        sister = brain.encode(said)
        assert brain._storage.readings([lonely], reader()) == {}  # alone in its zone: nothing to judge it against
        brain.encode("The user's brother lives in Berlin.")  # near the sister's: both are read for their pair
        turn = brain.encode("No problem, John. Let me know if you need help.")  # two sentences: no one claim
        store = brain._storage
        assert store.readings([sister, turn], reader()) == {sister: store.readings([sister], reader())[sister]}
        assert from_json(store.readings([sister], reader())[sister]) == read(said)
        store.keep_readings({sister: None}, "an older parser")
        assert store.readings([sister], reader()) == {}  # another reader's is not this one's
        statements_read(store, brain.get_many([sister]))
        assert from_json(store.readings([sister], reader())[sister]) == read(said)  # read again, and kept
        brain.forget([sister])
        assert store.readings([sister], reader()) == {}
        store.keep_readings({sister: None}, reader())  # an episode forgotten meanwhile leaves no reading
        assert store.readings([sister], reader()) == {}


FRESH_PROCESS_RECALL = """
import json, sys
from audrey_core import Audrey
from audrey_core.claims.parse import parser_loaded
from audrey_core.testing import DeterministicEmbedder
with Audrey(sys.argv[1], embedder=DeterministicEmbedder()) as brain:
    found = [r.id for r in brain.recall("Where does the user's sister live?", limit=5)]
    print(json.dumps({"found": found, "parser_loaded": parser_loaded()}))
"""


def test_a_fresh_process_tells_look_alikes_apart_without_loading_the_parser(tmp_path, clock):
    """Recall never waits for the parser to load; it reads the statements it found as validation stored them."""
    import json
    import sqlite3
    import subprocess
    import sys

    from audrey_core.testing import DeterministicEmbedder

    db = tmp_path / "audrey.db"
    with Audrey(db, embedder=DeterministicEmbedder(), config=SYNC, clock=clock) as brain:
        sister = brain.encode("The user's sister lives in Lyon.", source="told-by-user")
        clock.advance(days=30)
        brother = brain.encode("The user's brother lives in Berlin.", source="told-by-user")

    def recalled() -> dict:
        done = subprocess.run([sys.executable, "-c", FRESH_PROCESS_RECALL, str(db)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    fresh = recalled()
    assert not fresh["parser_loaded"] and fresh["found"][:2] == [sister, brother]
    with sqlite3.connect(db) as plain:
        plain.execute("DELETE FROM claim_readings")  # nothing stored: the two read as answers to one question
    assert recalled()["found"][:2] == [brother, sister]
