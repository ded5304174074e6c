"""Conversation turns: numbered in their session, found by their neighbours' words and scored with their neighbours'
vectors while returning their own content, kept apart per tenant, the speaker a question names favoured; on both
backends (and through FTS5, the keyword path without tantivy)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from audrey_core import Audrey, AudreyConfig, InvalidInputError, RecallConfig
from audrey_core.config import ValidationConfig
from audrey_core.rules.turns import context_similarities, cosines
from audrey_core.storage import Storage

from .index_helpers import BEFORE_TURNS, downgrade

SYNC = AudreyConfig(validation=ValidationConfig(background=False))
CAMPING = [
    {"content": "How was the camping trip to the lake?", "session": "s1", "speaker": "Mel"},
    {"content": "It was so much fun, the kids loved every minute", "session": "s1", "speaker": "Caro"},
    {"content": "Glad to hear that", "session": "s1", "speaker": "Mel"},
]
OTHER = [
    {"content": "The printer on the third floor is jammed again", "session": "s2", "speaker": "Mel"},
    {"content": "I will call the technician about the printer", "session": "s2", "speaker": "Caro"},
]


def ids_of(results) -> list[str]:
    return [r.id for r in results]


def test_turns_are_numbered_in_session_order_per_tenant_and_keep_their_place_when_replaced(brain):
    first = brain.encode_batch(CAMPING)
    other = brain.encode_batch(OTHER)
    later = brain.encode("See you next week", session="s1", speaker="Mel")
    assert [m.turn for m in brain.get_many([*first, later])] == [0, 1, 2, 3]
    assert [m.turn for m in brain.get_many(other)] == [0, 1]
    assert brain.get(first[1]).speaker == "Caro" and brain.get(first[1]).session == "s1"
    brain.encode_batch([{**CAMPING[1], "id": first[1], "content": "It was fun!"}], replace=True)
    assert brain.get(first[1]).turn == 1 and brain.get(first[1]).content == "It was fun!"
    plain = brain.encode("a note that is no turn")
    assert brain.get(plain).turn is None and brain.get(plain).session is None


@pytest.mark.parametrize("path", ["index", "fts5"])
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_reply_is_found_by_the_question_it_answers_and_returns_its_own_content(brain, mode, path):
    if path == "fts5":
        if getattr(brain._storage, "keyword_index", None) is None:
            pytest.skip("this backend has one keyword path")
        brain._storage.keyword_index = None  # SQLite's FTS5, as without tantivy
    ids = brain.encode_batch(CAMPING)
    brain.encode_batch(OTHER)
    found = {r.id: r for r in brain.recall("camping trip lake", mode=mode)}
    assert ids[1] in found  # the reply holds none of these words
    assert found[ids[1]].content == CAMPING[1]["content"] and found[ids[1]].turn == 1
    assert ids_of(brain.recall("camping trip lake", mode=mode))[0] == ids[0]  # its own words still count more


def test_a_late_neighbour_brings_its_words_to_the_turn_before_it(brain):
    reply = brain.encode("It was so much fun, the kids loved every minute", session="s1", speaker="Caro")
    assert reply not in ids_of(brain.recall("camping trip lake", mode="keyword"))
    brain.encode("The camping trip to the lake was the best of the summer", session="s1", speaker="Mel")
    assert reply in ids_of(brain.recall("camping trip lake", mode="keyword"))


def test_forgetting_a_turn_takes_its_words_out_of_its_neighbours(brain):
    ids = brain.encode_batch(CAMPING)
    assert ids[1] in ids_of(brain.recall("camping trip lake", mode="keyword"))
    brain.forget([ids[0]])
    assert ids_of(brain.recall("camping trip lake", mode="keyword")) == []


def test_neighbours_never_cross_tenants(db_path, embedder):
    with (
        Audrey(db_path, agent="a", embedder=embedder, config=SYNC, scope=("user", "alice")) as alice,
        Audrey(db_path, agent="a", embedder=embedder, config=SYNC, scope=("user", "bob")) as bob,
        Audrey(db_path, agent="b", embedder=embedder, config=SYNC) as other_agent,
    ):
        mine = alice.encode("It was so much fun, the kids loved it", session="shared", speaker="Alice")
        bob.encode("The camping trip to the lake was the best", session="shared", speaker="Bob")
        other_agent.encode("The camping trip to the lake was the best", session="shared", speaker="Bob")
        assert alice.get(mine).turn == 0
        assert alice.recall("camping trip lake", mode="keyword") == []
        [only] = alice.recall("camping trip lake", mode="vector")  # the tenant's one memory, scored alone
        assert only.id == mine and only.relevance == pytest.approx(only.similarity)


def test_a_turn_is_scored_with_its_neighbours_vectors(db_path, embedder):
    cfg = {"with": RecallConfig(), "without": replace(RecallConfig(), turn_context_before=0, turn_context_after=0)}
    relevance = {}
    for name, recall_cfg in cfg.items():
        config = replace(SYNC, recall=recall_cfg)
        with Audrey(db_path, agent=name, embedder=embedder, config=config) as brain:
            ids = brain.encode_batch(CAMPING + OTHER)
            found = {r.id: r for r in brain.recall("camping trip lake", mode="vector", limit=5)}
            relevance[name] = found[ids[1]].relevance
            assert found[ids[1]].similarity == pytest.approx(found[ids[1]].similarity)  # its own cosine, shown
    assert relevance["with"] > relevance["without"]


def test_a_turns_context_cosine_blends_its_unit_vector_with_its_neighbours():
    def unit(v):
        return v / np.linalg.norm(v)

    rng = np.random.default_rng(7)
    vectors = {name: rng.standard_normal(8).astype(np.float32) * (i + 1) for i, name in enumerate("abcdef")}
    vectors["zero"] = np.zeros(8, dtype=np.float32)
    query = rng.standard_normal(8).astype(np.float32)
    windows = {"a": ["b", "c"], "b": ["a", "unknown"], "c": [], "d": ["zero", "e", "f"], "unknown": ["a"]}
    found = context_similarities(query, vectors, windows, self_weight=2.0)
    assert set(found) == {"a", "b", "c", "d"}  # a turn without a vector is left out; one without a neighbour kept
    for turn, around in {"a": ["b", "c"], "b": ["a"], "c": [], "d": ["e", "f"]}.items():
        blended = 2.0 * unit(vectors[turn]) + sum((unit(vectors[n]) for n in around), np.zeros(8))
        assert found[turn] == pytest.approx(float(unit(blended) @ unit(query)), abs=1e-6)
    assert context_similarities(query, vectors, {"unknown": ["a"]}, self_weight=2.0) == {}


def test_the_store_scores_turns_in_context_as_the_rule_does(brain, embedder, monkeypatch):
    """PostgreSQL blends the vectors in SQL and SQLite reads windows and vector rows in one statement and blends the
    index's copies; both must give what every backend's two reads and the numpy rule give, SQLite also for rows its
    index lacks."""
    turns = brain.encode_batch(CAMPING + OTHER)
    late = brain.encode("Shall we go again next summer?", session="s1", speaker="Mel", scope=("trips",))
    brain.encode("A turn of another scope at the same place", session="s1", speaker="Caro", scope=("trips",))
    unspoken = brain.encode_batch([{"content": "The lake was cold", "session": "s3"}])  # a turn alone, no speaker
    plain = brain.encode("The camping gear is in the garage")
    brain.wait_for_idle()
    storage = brain._storage
    ids = [*turns, late, *unspoken, plain, "missing-id"]
    query = np.asarray(embedder.embed(["camping trip lake"])[0], dtype=np.float32) * 3.0  # not a unit vector
    for before, after, weight in ((2, 1, 2.0), (0, 0, 2.0), (1, 3, 0.5)):
        unknown = {turns[1], plain, late, "missing-id"}
        windows, vectors = Storage.windows_and_vectors(storage, ids, unknown, before, after)  # two reads
        around = {i: w.neighbours for i, w in windows.items() if w.neighbours}
        found = storage.turn_relevance(ids, query, unknown, before, after, weight)
        if hasattr(storage, "_turn_relevance_from_index"):  # SQLite's one read, through its index, answered
            assert storage._turn_relevance_from_index(ids, query, unknown, before, after, weight) == found
            real = storage.vector_index.unit_vectors

            def without_odd_rows(
                rows, real=real
            ):  # an index that lost half the rows: the database's copies answer for them
                held, units = real(rows)
                held &= rows % 2 == 0
                return held, units * held[:, None]

            monkeypatch.setattr(storage.vector_index, "unit_vectors", without_odd_rows)
            partly = storage._turn_relevance_from_index(ids, query, unknown, before, after, weight)
            monkeypatch.undo()
            assert partly.speakers == found.speakers
            assert partly.cosines == pytest.approx(found.cosines, abs=1e-5)
            assert partly.in_context == pytest.approx(found.in_context, abs=1e-5)
        assert found.speakers == {i: w.speaker for i, w in windows.items()}
        assert found.speakers[turns[1]] == "Caro" and found.speakers[unspoken[0]] is None
        assert plain not in found.speakers
        assert set(found.cosines) == {turns[1], plain, late}
        assert found.cosines == pytest.approx(cosines({i: vectors[i] for i in found.cosines}, query), abs=1e-5)
        assert found.in_context == pytest.approx(context_similarities(query, vectors, around, weight), abs=1e-5)
        assert (before + after == 0) is (not found.in_context)
    speakers_only = storage.turn_relevance(ids, None, set(ids), 2, 1, 2.0)
    assert speakers_only.speakers == found.speakers and not speakers_only.cosines and not speakers_only.in_context


def test_the_speaker_a_question_names_is_favoured(brain):
    said = brain.encode_batch(
        [
            {"content": "I adopted a beagle from the shelter", "session": "s1", "speaker": "Bob"},
            {"content": "I adopted a beagle from the shelter", "session": "s2", "speaker": "Alice"},
        ]
    )
    assert ids_of(brain.recall("Which dog did Alice adopt?"))[0] == said[1]
    assert ids_of(brain.recall("Which dog did Bob adopt?"))[0] == said[0]
    scores = {r.id: r.score for r in brain.recall("Which dog did Alice and Bob adopt?")}
    assert scores[said[0]] == pytest.approx(scores[said[1]])  # both named: neither favoured


def test_conversation_arguments_are_checked(brain):
    with pytest.raises(InvalidInputError, match="session"):
        brain.encode("hello", session="")
    with pytest.raises(InvalidInputError, match="speaker"):
        brain.encode("hello", session="s", speaker=5)
    with pytest.raises(InvalidInputError, match="speaker"):
        brain.encode("hello", speaker="   ")
    with pytest.raises(InvalidInputError, match="unknown fields"):
        brain.encode_batch([{"content": "hello", "turn": 3}])  # the store numbers turns


@pytest.mark.sqlite_only
def test_a_store_made_before_turns_opens_and_learns_them(tmp_path, embedder):
    path = tmp_path / "old.db"
    with Audrey(path, embedder=embedder, config=SYNC) as brain:
        old = brain.encode("the camping trip to the lake")
    downgrade(path, BEFORE_TURNS)
    with Audrey(path, embedder=embedder, config=SYNC) as brain:
        assert ids_of(brain.recall("camping lake", mode="keyword")) == [old]
        ids = brain.encode_batch(CAMPING)
        assert ids[1] in ids_of(brain.recall("camping trip lake", mode="keyword"))


def test_a_store_copied_through_a_snapshot_keeps_its_turns_and_their_neighbours(db_path, tmp_path, embedder):
    import io

    from audrey_core.admin.maintenance import export_snapshot, import_snapshot, read_snapshot_header

    with Audrey(db_path, agent="a", embedder=embedder, config=SYNC) as brain:
        ids = brain.encode_batch(CAMPING)
        out = io.StringIO()
        export_snapshot(brain._storage, out)
    with Audrey(tmp_path / "copy.db", agent="a", embedder=embedder, config=SYNC) as copy:
        lines = iter(io.StringIO(out.getvalue()).readlines())
        import_snapshot(copy._storage, lines, header=read_snapshot_header(lines))
        assert [(m.session, m.turn, m.speaker) for m in copy.get_many(ids)] == [
            ("s1", 0, "Mel"),
            ("s1", 1, "Caro"),
            ("s1", 2, "Mel"),
        ]
        assert ids[1] in ids_of(copy.recall("camping trip lake", mode="keyword"))
