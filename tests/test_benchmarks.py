"""The benchmark harness's data handling and scoring (the figures themselves are never pass/fail)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from audrey_core.testing import DeterministicEmbedder
from benchmarks.locomo import load, normalise_evidence
from benchmarks.retrieval import evaluate, summarise

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "locomo_dev.json"


def test_malformed_evidence_ids_are_split_normalised_and_checked():
    known = {"D1:3", "D2:5", "D30:5"}
    assert normalise_evidence(["D1:3; D2:5"], known) == {"D1:3", "D2:5"}
    assert normalise_evidence(["D30:05", "D9:9", "D1:3 D2:5"], known) == {"D30:5", "D1:3", "D2:5"}
    assert normalise_evidence([], known) == frozenset()


def synthetic(tmp_path):
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a grey cat named Pixel"},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "I started learning the violin"},
            ],
            "session_2_date_time": "10:00 am on 20 June, 2023",
            "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "We moved to a flat near the river"}],
            "session_3_date_time": "9:00 am on 1 July, 2023",
        },
        "qa": [
            {"question": "What is the name of Ann's cat?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
            {"question": "Which instrument is Bob learning?", "answer": "violin", "evidence": ["D1:02"], "category": 1},
            {"question": "Where did Ann move?", "answer": "river", "evidence": ["D2:1; D9:9"], "category": 2},
            {"question": "What colour is Bob's car?", "adversarial_answer": "x", "evidence": [], "category": 5},
        ],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([sample]))
    return path


def test_harness_scores_a_synthetic_conversation(tmp_path):
    conversations = load(synthetic(tmp_path))
    (conv,) = conversations
    assert len(conv.turns) == 3 and len(conv.questions) == 3  # the question without evidence is left out
    assert conv.turns[2].when.month == 6 and conv.questions[1].evidence == {"D1:2"}
    table = summarise(evaluate(conversations, DeterministicEmbedder(), {}))
    assert table["1-4"]["n"] == 3 and table["5"]["n"] == 0
    assert table["1-4"]["dense@10"] == 100.0 and table["1-4"]["audrey@10"] == 100.0  # only 3 turns: all found
    assert 0 <= table["1-4"]["audrey@1"] <= 100


def test_harness_stores_turns_session_by_session_or_at_once_and_counts_what_validation_did(tmp_path):
    conversations = load(synthetic(tmp_path))
    for at_once in (False, True):
        result = evaluate(conversations, DeterministicEmbedder(), {}, at_once=at_once)
        assert result["changed"] == {"superseded": 0, "contradictions": 0}  # three unrelated turns: nothing changed
        assert summarise(result)["1-4"]["audrey@10"] == 100.0


def test_harness_compares_limits_and_the_fts5_path_on_the_same_questions(tmp_path, monkeypatch):
    pytest.importorskip("tantivy")
    from audrey_core.index import KeywordIndex

    searched = []
    real_search = KeywordIndex.search
    monkeypatch.setattr(
        KeywordIndex, "search", lambda self, *a, **kw: searched.append(a) or real_search(self, *a, **kw)
    )
    conversations = load(synthetic(tmp_path))
    for options, through_index in (({"limit": 20}, True), ({"fts5": True}, False)):
        searched.clear()
        result = evaluate(conversations, DeterministicEmbedder(), {"mode": "keyword"}, **options)
        assert bool(searched) is through_index
        # keyword-only recall finds the cat and the violin by their words, whichever path ranks them
        assert result["hits"]["audrey"][10][:2] == [True, True]


def test_harness_compares_the_two_keyword_paths_question_by_question(tmp_path, capsys):
    pytest.importorskip("tantivy")
    from benchmarks.retrieval import paired_paths

    conversations = load(synthetic(tmp_path))
    index, fts5 = (evaluate(conversations, DeterministicEmbedder(), {}, fts5=f) for f in (False, True))
    assert len(index["ranks"]) == len(index["categories"]) == 3 and all(1 <= r <= 3 for r in index["ranks"])
    paired = paired_paths(index, fts5)
    assert paired["1-4@10"] == {"first": 3, "second": 3, "only_first": 0, "only_second": 0, "p": 1.0}
    assert paired["5@10"]["first"] == 0  # no adversarial question in this conversation
    assert paired["1-4 rank"]["better_first"] + paired["1-4 rank"]["better_second"] <= 3
    assert "categories 1-4 @10: index 3, FTS5 3 of 3" in capsys.readouterr().out


def test_harness_refuses_a_limit_below_the_deepest_k(tmp_path, capsys):
    from benchmarks.retrieval import main

    with pytest.raises(SystemExit):
        main(["--data", str(synthetic(tmp_path)), "--limit", "5"])
    assert "--limit must be at least 10" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_DATA.is_file(), reason="../shared/data/locomo_dev.json is not present")
def test_harness_runs_on_the_shared_data():
    from benchmarks.retrieval import main

    summary = main(["--data", str(SHARED_DATA), "--conversations", "1"])
    assert summary["table"]["1-4"]["n"] > 0 and summary["table"]["1-4"]["dense@10"] is not None


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--kill-every", "5"], "--kill-every takes MIN,MAX"),
        (["--kill-every", "soon,later"], "--kill-every takes MIN,MAX"),
        (["--kill-every", "5,2"], "0 < MIN <= MAX"),
        (["--writers", "0"], "--writers >= 1"),
        (["--delete-indexes-every", "-1"], "--delete-indexes-every takes N >= 0"),
    ],
)
def test_the_soak_refuses_bad_arguments_before_starting_anything(arguments, message, capsys):
    from benchmarks.soak import main

    with pytest.raises(SystemExit):
        main(arguments)
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_the_soak_kills_workers_and_finds_everything_that_returned():
    from benchmarks.soak import main

    arguments = ["--seconds", "6", "--writers", "2", "--kill-every", "1.5,2", "--pause", "0.5", "--sample", "200"]
    summary = main([*arguments, "--delete-indexes-every", "1"])  # the index folder deleted under the workers too
    assert summary["kills"] >= 2 and summary["index_folder_deletions"] >= 2 and summary["encoded"] > 0
    assert summary["errors"] == [] and summary["workers_failed"] == 0
    for found in (summary["after"], summary["after_deleting_indexes"]):
        assert found["lost"] == found["forgotten_still_stored"] == found["forgotten_found"] == 0
        assert found["keyword_misses"] == found["vector_misses"] == 0  # a small store: vectors are scanned exactly


def test_our_conversation_set_is_deterministic_labelled_and_keeps_its_blind_phrasings_apart(tmp_path):
    from benchmarks.conversation_set.generate import conversation
    from benchmarks.conversation_set.topics import EVENTS, FACTS, LISTS

    assert conversation(3, "dev") == conversation(3, "dev") and conversation(3, "dev") != conversation(4, "dev")
    path = tmp_path / "ours.json"
    path.write_text(json.dumps([conversation(seed, split) for seed, split in ((1, "dev"), (2, "dev"), (101, "blind"))]))
    conversations = load(path)
    kinds = {q.kind for c in conversations for q in c.questions}
    assert kinds == {"single", "list", "temporal", "order", "update"}
    for conv in conversations:
        text = {t.dia_id: t.said for t in conv.turns}
        for question in conv.questions:
            assert question.evidence and question.evidence <= set(text), question
            if question.kind == "list":  # three items, told in three sessions
                assert len({e.split(":")[0] for e in question.evidence}) == 3
            if question.kind == "update":
                assert question.stale and not question.stale & question.evidence
    blind_only = {text for family in (*FACTS, *LISTS, *EVENTS) for i in family.blind for _, text in family.tell[i]}
    dev_said = {t.said for c in conversations[:2] for t in c.turns}
    templates = [t.split("{")[0] for t in blind_only if len(t.split("{")[0]) > 12]
    assert not any(said.startswith(template) for said in dev_said for template in templates)


def test_the_conversations_benchmark_scores_each_kind_and_variant(tmp_path, monkeypatch):
    import benchmarks.conversations as bench

    monkeypatch.setattr(bench, "EMBEDDER", DeterministicEmbedder(), raising=False)
    conversations = load(synthetic(tmp_path))
    summary = bench.run_set("tiny", conversations, ["plain", "full", "-words"], said=True)
    full = summary["table"]["full"]
    assert full["categories 1-4"]["n"] == 3 and full["categories 1-4"]["recall@10"] == 100.0
    assert summary["table"]["plain"]["paired_with_full"]["first"] == 3  # three turns: every variant finds all
    assert set(summary["encode_turns_per_s"]) == {"plain", "turns"}


def test_every_benchmark_is_listed_with_its_command():
    import subprocess
    import sys

    from benchmarks.__main__ import runnable

    root = Path(__file__).resolve().parents[1]
    listed = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--help"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    readme = (root / "benchmarks" / "README.md").read_text(encoding="utf-8")
    names = runnable()
    assert {"bulk_load", "speed", "retrieval", "text_recall", "cold_start"} <= set(names)
    for name, line in names.items():
        assert f"  {name} " in listed and line in listed
        assert f"`python -m benchmarks.{name}" in readme, f"benchmarks/README.md does not list {name}"


def test_working_chats_plant_each_change_in_a_long_turn_and_keep_the_splits_apart():
    from benchmarks.conversation_set.working_chats import SPLITS, chats

    questions = {}
    for split, changes in SPLITS.items():
        data = chats(split)
        assert data == chats(split)  # the same every time
        by_question = {c.question: c for c in changes}
        assert sorted(qa["question"] for c in data for qa in c["qa"]) == sorted(by_question)
        for c in data:
            turns = {t["dia_id"]: t["text"] for v in c["conversation"].values() if isinstance(v, list) for t in v}
            for qa in c["qa"]:
                change = by_question[qa["question"]]
                (newer,) = [turns[i] for i in qa["evidence"]]
                assert change.new in newer and len(re.split(r"(?<=[.!?])\s+", newer)) >= 4  # among 3 or more others
                assert any(change.old in turns[i] for i in qa["stale"])
        questions[split] = set(by_question)
    assert not questions["dev"] & questions["held-out"]


def test_the_held_out_working_chats_are_frozen():
    import hashlib

    from benchmarks.conversation_set.working_chats import chats

    text = json.dumps(chats("held-out"), sort_keys=True).encode()
    assert hashlib.sha256(text).hexdigest() == HELD_OUT_CHATS_SHA256, "the held-out working chats changed"


HELD_OUT_CHATS_SHA256 = "4e8b1f737baff2cfd55eaa7ceb4a43640125fcb994ab78e17193842cc277cc6c"


def test_long_turns_reports_each_share_and_what_was_hidden():
    from benchmarks import long_turns

    row = long_turns.run_split("dev", DeterministicEmbedder(), misses=False)
    assert row["questions"] == 24 and row["hidden"] == 0
    assert {"newer_above", "newer_first", "newer_found", "older_found"} <= set(row)
    assert row["newer_first"] <= row["newer_above"] <= row["newer_found"]


def test_lessons_reports_principles_formed_mixed_and_the_task_rank():
    from benchmarks import lessons
    from benchmarks.lesson_cases import DEVELOPMENT_LESSONS

    row = lessons.run(DEVELOPMENT_LESSONS[:3], DeterministicEmbedder(), misses=False)
    assert row["lessons"] == 3 and row["episodes"] == 300 + 3 * 4 and row["run_status"] == "completed"
    assert 0 <= row["formed"] <= 100 and 0 <= row["top3"] <= 100 and row["mixed"] >= 0
    assert -1 <= row["report_cosine_min"] <= row["report_cosine_median"] <= row["report_cosine_max"] <= 1
    assert 0 <= row["separable"] <= 100 and 0 <= row["word_separable"] <= 100


def test_a_lesson_is_word_separable_when_rare_words_join_its_reports_and_nothing_else():
    from benchmarks.lessons import _word_separable

    told = [
        ("spf", "tool-result", "Mail bounced: SPF check failed for our sending domain."),
        ("spf", "told-by-user", "Add the new mailer to the SPF record before sending."),
        ("spf", "direct-observation", "Customers never got the receipts the new mailer sent; SPF again."),
        ("oom", "tool-result", "worker OOMKilled at 512Mi."),
        ("oom", "told-by-user", "The resizer loads every photo into memory."),  # shares no rare word
        ("oom", "direct-observation", "The worker died halfway through the batch."),
        ("negative:oom", "tool-result", "worker OOMKilled while starting."),  # joins the lesson's tool report
    ]
    assert _word_separable(told) == 1  # "spf" and "mailer" join its three reports alone
    assert _word_separable([*told, ("distractor", "tool-result", "The SPF record was reviewed.")]) == 0


def test_the_adapters_benchmark_tells_each_turn_through_every_arm_and_finds_it_again(tmp_path):
    pytest.importorskip("llama_index.core", reason="the llamaindex extra is not installed")
    pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
    from benchmarks import adapters

    (conv,) = load(synthetic(tmp_path))
    for arm in adapters.ARMS:  # three turns, top 10: every question finds its turn when the arm stored it
        assert adapters.run_arm(arm, conv, tmp_path, DeterministicEmbedder()) == [True, True, True], arm


def test_repeated_chat_turns_keep_each_text_with_its_own_vector():
    """The chat benchmarks repeat a conversation's turns to size: each row must carry its own text's vector (the
    copies offset from it), never another turn's, and no two rows may share a vector."""
    import numpy as np

    from benchmarks.bulk_load import repeated

    rng = np.random.default_rng(0)
    base = rng.standard_normal((7, 16)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    texts = [f"turn {i}" for i in range(7)]
    out_texts, out = repeated(texts, base, 30)
    assert len(out_texts) == len(out) == 30
    assert out_texts[:7] == texts and out_texts[7] == "turn 0 (#1)" and out_texts[29] == "turn 1 (#4)"
    np.testing.assert_allclose(out[:7], base, atol=1e-6)
    own = np.einsum("ij,ij->i", out, base[np.arange(30) % 7])
    assert own.min() > 0.9  # each row's own turn, offset
    nearest = (out @ base.T).argmax(axis=1)
    assert (nearest == np.arange(30) % 7).all()
    assert len(np.unique(out.round(5), axis=0)) == 30


def test_offline_hides_pairs_each_sentence_with_its_nearest_others():
    import numpy as np

    from benchmarks.offline_hides import nearest

    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((257, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    found, cosines = nearest(vectors, k=5, block=100)  # blocks that do not divide the rows
    scores = vectors @ vectors.T
    np.fill_diagonal(scores, -np.inf)
    expected = np.argsort(-scores, axis=1)[:, :5]
    assert (found == expected).all() and not (found == np.arange(257)[:, None]).any()
    assert np.allclose(cosines, np.take_along_axis(scores, expected, axis=1))
    assert (np.diff(cosines, axis=1) <= 0).all()  # closest first
