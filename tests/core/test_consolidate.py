"""Consolidation: clustering, the adaptive minimum, independent evidence, extraction, causal links, conflicts with
existing knowledge, interruption and resumption, rollback to the exact prior state."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

import numpy as np
import pytest

from audrey_core import (
    Audrey,
    AudreyConfig,
    ConfigurationError,
    ConsolidationConfig,
    InvalidInputError,
    NotFoundError,
    Procedural,
    Semantic,
    StorageError,
)
from audrey_core.admin.maintenance import reembed
from audrey_core.config import ValidationConfig
from audrey_core.rules.calibration import REFERENCE_BASELINE, Baseline, calibrated, measure
from audrey_core.rules.prompts import PRINCIPLE_EXTRACTION
from audrey_core.rules.union_find import UnionFind
from audrey_core.stages import consolidate as consolidate_stage
from audrey_core.stages.consolidate import cluster_variance, minimum_size
from audrey_core.testing import DeterministicEmbedder, ScriptedLLM, lesson_pairs, set_states

from .helpers import REPO, SOURCES3, add_derived, three_topics
from .vectors import PlacedEmbedder


def config(**consolidation) -> AudreyConfig:
    return AudreyConfig(
        validation=ValidationConfig(background=False), consolidation=ConsolidationConfig(**consolidation)
    )


@pytest.fixture
def placed():
    return PlacedEmbedder(dimensions=256)


def open_brain(path, placed, clock, llm=None, **consolidation):
    return Audrey(path, agent="tester", embedder=placed, clock=clock, llm=llm, config=config(**consolidation))


# -- pure parts -----------------------------------------------------------------------------------------------------


def test_union_find_groups():
    sets = UnionFind(["a", "b", "c", "d", "e"])
    sets.union("a", "c")
    sets.union("d", "e")
    sets.union("c", "a")
    assert sets.groups() == [["a", "c"], ["b"], ["d", "e"]]


def test_cluster_variance_and_adaptive_minimum():
    assert cluster_variance(np.array([[1.0, 0.0], [2.0, 0.0]])) == 0.0
    assert cluster_variance(np.array([[1.0, 0.0], [-1.0, 0.0]])) == pytest.approx(1.0)
    cfg = ConsolidationConfig()
    assert minimum_size(0.0, cfg) == 3 and minimum_size(1.5, cfg) == 3  # ceil(3.0) = 3
    assert minimum_size(1.5001, cfg) == 4
    assert minimum_size(0.5, ConsolidationConfig(min_episodes=1, confidence_target=2.0)) == 1


# -- clustering against a store ------------------------------------------------------------------------------------


def test_clusters_are_connected_components_at_the_threshold(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        close = [brain.encode(placed.place(f"close {i}", 0.9), source=s) for i, s in enumerate(SOURCES3)]
        loose = brain.encode(placed.place("loose", 0.88))  # 0.88 * 0.9 = 0.792 < 0.80 to the others
        far = brain.encode("far away")
        episodes = brain._storage.unconsolidated_episodes(brain.agent, ("active",))
        vectors = brain.vectors([e.id for e in episodes])
        groups = consolidate_stage.cluster_ids(brain._context, episodes, vectors)
    assert sorted(groups) == sorted([sorted(close), [loose], [far]])
    # The same as an all-pairs reference computed the slow way.
    ids = [e.id for e in episodes]
    matrix = np.vstack([vectors[i] for i in ids])
    sims = matrix @ matrix.T
    reference = UnionFind(ids)
    for a in range(len(ids)):
        for b in range(a + 1, len(ids)):
            if sims[a, b] >= 0.80:
                reference.union(ids[a], ids[b])
    assert sorted(groups) == sorted(reference.groups())


@pytest.mark.parametrize("similarity,joined", [(0.8001, True), (0.7999, False)])
def test_cluster_similarity_boundary(db_path, placed, clock, similarity, joined):
    with open_brain(db_path, placed, clock) as brain:
        a = brain.encode(placed.put("The staging deploy needs the VPN (first)", placed.axis(0)))
        b = brain.encode(
            placed.put(
                "The staging deploy needs the VPN (second)",
                similarity * placed.axis(0) + (1 - similarity**2) ** 0.5 * placed.axis(1),
            )
        )
        episodes = brain._storage.unconsolidated_episodes(brain.agent, ("active",))
        vectors = brain.vectors([a, b])
        groups = consolidate_stage.cluster_ids(brain._context, episodes, vectors)
    assert (groups == [[a, b]]) == joined


# -- thresholds calibrated to the store's embedding model ----------------------------------------------------------


def test_a_threshold_keeps_its_place_between_the_baseline_and_one():
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert calibrated(0.80, None) == 0.80  # no baseline: the threshold as written
    reference = Baseline("m", REFERENCE_BASELINE, at)
    assert calibrated(0.80, reference) == pytest.approx(0.80) and calibrated(0.25, reference) == pytest.approx(0.25)
    crowded = Baseline("m", 0.70, at)
    assert calibrated(0.80, crowded) == pytest.approx(0.70 + 0.74 * 0.30 / 0.94)
    assert calibrated(1.0, crowded) == pytest.approx(1.0)
    vectors = np.random.default_rng(3).standard_normal((60, 16)) + 0.5
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    pairs = [float(unit[a] @ unit[b]) for a in range(60) for b in range(a + 1, 60)]
    assert measure("m", vectors, at).mean_cosine == round(float(np.mean(pairs)), 2)


class CrowdedEmbedder:
    """A model whose every pair of texts is close, as some models' are: a direction all texts share, plus the hash
    embedder's vector of the words; texts with no word in common meet at a cosine near 0.85."""

    def __init__(self) -> None:
        self.model_name, self.dimensions = "crowded", 256
        self.words = DeterministicEmbedder(256)

    def embed(self, texts):
        shared = np.full(256, 1 / 16, dtype=np.float32)  # a unit vector
        vectors = 0.92 * shared + 0.39 * self.words.embed(texts)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_on_a_crowded_model_unrelated_episodes_stay_apart_and_restatements_join(db_path, clock):
    embedder = CrowdedEmbedder()
    unrelated = [f"w{i}alpha w{i}bravo w{i}charlie w{i}delta" for i in range(12)]
    told = ["the staging deploy needs the vpn up first"] * 2 + ["the staging deploy needs the vpn up first!"]
    vectors = embedder.embed(unrelated)
    assert (vectors @ vectors.T).min() > 0.80  # cosine 0.80 would join them all into one "principle"
    with Audrey(db_path, agent="tester", embedder=embedder, clock=clock, config=config()) as brain:
        for i, text in enumerate(unrelated):
            brain.encode(text, source=SOURCES3[i % 3])
        restated = [brain.encode(text, source=s) for text, s in zip(told, SOURCES3)]
        run = brain.consolidate()
        baseline = brain._storage.similarity_baseline()
        principles = [brain.get(i) for i in run.output_memory_ids]
    assert baseline is not None and baseline.model == "crowded" and baseline.mean_cosine > 0.80
    assert [sorted(p.evidence_episode_ids) for p in principles] == [sorted(restated)]


def test_the_baseline_is_recorded_with_the_store_and_re_made_by_a_reembed(db_path, clock):
    with Audrey(db_path, agent="tester", embedder=CrowdedEmbedder(), clock=clock, config=config()) as brain:
        brain.encode("one episode")
        assert brain._storage.similarity_baseline() is None  # measured when first needed
        brain.consolidate()
        crowded = brain._storage.similarity_baseline()
        reembed(brain._storage, DeterministicEmbedder(128))
        remade = brain._storage.similarity_baseline()
    assert crowded is not None and crowded.model == "crowded" and crowded.mean_cosine > 0.80
    assert remade is not None and remade.model == "deterministic-hash-128" and remade.mean_cosine < 0.2
    with Audrey(db_path, agent="tester", embedder=DeterministicEmbedder(128), clock=clock, config=config()) as again:
        assert again._storage.similarity_baseline() == remade  # kept with the store, not the process
        assert again.introspect().similarity_baseline == remade.mean_cosine


# -- an LLM groups reports of one lesson in other words ------------------------------------------------------------

LESSON = ["L1 uploads over 5 MB fail", "L1 the tool said: 413 payload too large", "L1 the user: S3 caps our uploads"]
NEGATIVE = "L2 the tool said: 403 expired credentials on upload"  # another failure of the same tool


def same_lesson_judge(messages):
    """A judge that knows the labels: the same lesson when both texts carry one label."""
    same = [(n, a.split()[0] == b.split()[0]) for n, a, b in lesson_pairs(messages)]
    return {"judgements": [{"pair": n, "same": verdict} for n, verdict in same]}


def every_pair_the_same(messages):
    return {"judgements": [{"pair": n, "same": True} for n, _, _ in lesson_pairs(messages)]}


def tell_lesson(brain, placed, at=0.7):
    """Three reports at ``at`` to one direction (so at*at to each other, under cluster_similarity) from three
    sources, and a hard negative as near."""
    told = [brain.encode(placed.place(text, at), source=s) for text, s in zip(LESSON, SOURCES3)]
    negative = brain.encode(placed.place(NEGATIVE, at), source="tool-result")
    return told, negative


def test_an_llm_joins_reports_of_one_lesson_in_other_words_and_keeps_another_failure_apart(db_path, placed, clock):
    extraction = {"principle": "Uploads cap at 5 MB", "evidence_diverse": True}
    llm = ScriptedLLM({"same_lesson": same_lesson_judge, "principle_extraction": extraction})
    with open_brain(db_path, placed, clock, llm=llm) as brain:
        told, negative = tell_lesson(brain, placed)
        brain.encode("far away", source="told-by-user")  # below ask_similarity to everything: never asked
        run = brain.consolidate()
        (principle,) = [brain.get(i) for i in run.output_memory_ids]
        assert sorted(principle.evidence_episode_ids) == sorted(told) and negative not in principle.evidence_episode_ids
        asked = "".join(m[-1]["content"] for m in llm.calls_for("same_lesson"))
        assert asked.count(" A: ") == 6 and "far away" not in asked  # the 4 choose 2 pairs, each once


def test_the_grouping_settings_are_checked():
    with pytest.raises(ConfigurationError, match="ask_similarity"):
        ConsolidationConfig(ask_similarity=0.9)  # above cluster_similarity
    with pytest.raises(ConfigurationError, match="ask_neighbors"):
        ConsolidationConfig(ask_neighbors=-1)


def test_offline_the_same_reports_stay_apart(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        tell_lesson(brain, placed)
        assert not brain.consolidate().output_memory_ids  # 0.49 < 0.80: similarity alone cannot tell


ROUTINE = {  # one routine note about each of three things
    "services": (("The admin site", "The search API", "The data pipeline"), "passed the weekly backup restore drill."),
    "builds": (("Build 88", "Build 89", "Build 90"), "failed on the lint step."),  # a number names the build
}


@pytest.mark.parametrize("routine", sorted(ROUTINE))
@pytest.mark.parametrize("offline_rules", [True, False])
def test_offline_episodes_about_different_things_stay_apart(db_path, placed, clock, offline_rules, routine):
    """Three services passing one drill (or three builds failing one step) are three facts, not one lesson met three
    times: joined, their medoid would be a principle naming one on the others' evidence. Three reports of one subject
    still join."""
    config = AudreyConfig(validation=ValidationConfig(background=False, offline_rules=offline_rules))
    subjects, event = ROUTINE[routine]
    with Audrey(db_path, agent="tester", embedder=placed, clock=clock, config=config) as brain:
        notes = [
            brain.encode(placed.place(f"{subject} {event}", 0.95), source=s) for subject, s in zip(subjects, SOURCES3)
        ]
        elsewhere = PlacedEmbedder(dimensions=256)  # another anchor: far from the routine notes
        vpn = []
        for n, s in enumerate(SOURCES3):
            text = elsewhere.place(f"The nightly export needs the VPN up first ({n}).", 0.95)
            placed.vectors[text] = np.roll(elsewhere.vectors[text], 128)
            vpn.append(brain.encode(text, source=s))
        groups = [sorted(p.evidence_episode_ids) for p in map(brain.get, brain.consolidate().output_memory_ids)]
    assert sorted(groups) == sorted([sorted(vpn)] if offline_rules else [sorted(notes), sorted(vpn)])


def timeout(messages):
    raise TimeoutError("the model server did not answer in 30 s")


@pytest.mark.parametrize(
    "reply",
    [
        '{"judgements": [{"pair": 1, "same": tr',
        "I'm sorry, but I can't help with grouping these observations.",
        timeout,
        {"judgements": [{"pair": 1, "same": True}]},  # five of the six pairs left out
    ],
    ids=["malformed JSON", "a refusal", "a timeout", "pairs left out"],
)
def test_a_failed_grouping_joins_nothing_and_says_so(db_path, placed, clock, reply):
    llm = ScriptedLLM({"same_lesson": reply})
    with open_brain(db_path, placed, clock, llm=llm) as brain:
        errors = []
        brain.on("error", errors.append)
        tell_lesson(brain, placed)
        assert not brain.consolidate().output_memory_ids
        assert [e["event"] for e in errors] == ["consolidation"]


def test_the_adaptive_minimum_at_its_boundary(db_path, placed, clock):
    # Members at 0.9 to a shared direction: variance = 0.19 * (n - 1) / n; with target 28, n=3 needs 4, n=4 needs 4.
    with open_brain(db_path, placed, clock, confidence_target=28.0) as brain:
        for i, source in enumerate(SOURCES3):
            brain.encode(placed.place(f"tight claim {i}", 0.9), source=source)
        assert brain.consolidate().plan == ()
        brain.encode(placed.place("tight claim 3", 0.9), source="inference")
        run = brain.consolidate()
        assert len(run.plan) == 1 and len(run.plan[0]) == 4


@pytest.mark.parametrize(
    "sources,qualifies",
    [
        (["tool-result", "tool-result", "tool-result"], False),
        (["tool-result", "tool-result", "told-by-user"], True),
        (["model-generated", "model-generated", "model-generated"], False),
        (["tool-result", "told-by-user"], False),  # too few
    ],
)
def test_independent_evidence_rules(db_path, placed, clock, sources, qualifies):
    with open_brain(db_path, placed, clock) as brain:
        for i, source in enumerate(sources):
            brain.encode(placed.place(f"The cache holds stale prices (report {i})", 0.95), source=source)
        assert bool(brain.consolidate().plan) == qualifies


def test_only_model_generated_never_becomes_a_principle_even_when_one_source_type_is_allowed(db_path, placed, clock):
    with open_brain(db_path, placed, clock, min_source_types=1) as brain:
        for i in range(5):
            brain.encode(placed.place(f"The cache holds stale prices (generated {i})", 0.95), source="model-generated")
        assert brain.consolidate().plan == ()
        brain.encode(placed.place("The cache holds stale prices (observed 0)", 0.95), source="tool-result")
        brain.encode(placed.place("The cache holds stale prices (observed 1)", 0.95), source="tool-result")
        assert brain.consolidate().plan != ()


def test_episodes_sharing_an_ancestor_count_once(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        root = brain.encode("the original hunch", source="inference")
        for i, source in enumerate(SOURCES3):
            brain.encode(
                placed.place(f"The cache holds stale prices (echo {i})", 0.95), source=source, derived_from=[root]
            )
        assert brain.consolidate().plan == ()  # three episodes, one piece of evidence
        for i, source in enumerate(["tool-result", "told-by-user"]):
            brain.encode(placed.place(f"The cache holds stale prices (independent {i})", 0.95), source=source)
        run = brain.consolidate()
        (principle,) = [brain.get(i) for i in run.output_memory_ids]
        assert principle.evidence_count == 3 and len(principle.evidence_episode_ids) == 5


# -- extraction and promotion ----------------------------------------------------------------------------------------


def test_offline_extraction_takes_the_medoid_and_says_so(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        ids = [
            brain.encode(placed.place(f"stripe throttles {i}", s), source=src)
            for i, (s, src) in enumerate(zip([0.93, 0.97, 0.95], SOURCES3))
        ]
        seen = []
        brain.on("consolidation", seen.append)
        run = brain.consolidate()
        principle = brain.get(run.output_memory_ids[0])
    assert isinstance(principle, Semantic) and principle.content == "stripe throttles 1"  # the most central member
    assert principle.metadata["extractive"] and principle.consolidation_model == "extractive"
    assert principle.metadata["shared_words"] == "stripe throttles"  # what every member says ("1" is its own)
    assert principle.consolidation_prompt_hash is None and run.consolidation_model == "extractive"
    assert principle.evidence_episode_ids == tuple(ids) and principle.source_type_diversity == 3
    assert principle.consolidation_run_id == run.id and run.status == "completed"
    assert seen[0]["principle"].id == principle.id and seen[0]["episodes"] == ids


def test_promotion_marks_episodes_and_records_the_run(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        ids = [
            brain.encode(placed.place(f"deploys fail on fridays {i}", 0.95), source=s) for i, s in enumerate(SOURCES3)
        ]
        other = brain.encode("an unrelated note")
        run = brain.consolidate()
        assert all(brain.get(i).consolidated for i in ids) and not brain.get(other).consolidated
        assert set(run.input_episode_ids) == {*ids, other} and run.checkpoint_cursor == other
        assert [r.status for r in brain.consolidation_history()] == ["completed"]
        assert brain.consolidate().plan == ()  # nothing new to consolidate
        assert [r.status for r in brain.consolidation_history()] == ["completed", "completed"]


def test_llm_extraction_one_call_per_qualifying_cluster(db_path, placed, clock):
    replies = [
        {
            "principle": "Stripe throttles above 100 req/s",
            "boundary_conditions": "live-mode keys",
            "evidence_diverse": True,
            "kind": "semantic",
            "mechanism": "Stripe enforces a per-account rate limit",
            "link_type": "causal",
        },
        {
            "principle": "To deploy, run the migration first",
            "evidence_diverse": True,
            "kind": "procedural",
            "trigger_conditions": "before every deploy",
            "link_type": "causal",
        },
    ]
    llm = ScriptedLLM({"principle_extraction": replies, "same_lesson": every_pair_the_same})
    second = PlacedEmbedder(dimensions=256)
    with open_brain(db_path, placed, clock, llm=llm) as brain:
        for i, s in enumerate(SOURCES3):
            brain.encode(
                placed.place(f"429 from stripe {i}", 0.95),
                source=s,
                causal={"trigger": "batch payments", "consequence": "queue backed up"},
            )
        for i, s in enumerate(SOURCES3 + ["inference", "tool-result"]):
            v = second.place(f"deploy step {i}", 0.95)
            placed.vectors[v] = np.roll(second.vectors[v], 128)  # another direction, orthogonal to the first topic
            brain.encode(v, source=s, causal={"trigger": "deploy"})
        brain.encode("noise that clusters with nothing")
        run = brain.consolidate()
        assert len(llm.calls_for("principle_extraction")) == len(run.plan) == 2
        principles = [brain.get(i) for i in run.output_memory_ids]
        semantic = next(p for p in principles if isinstance(p, Semantic))
        procedure = next(p for p in principles if isinstance(p, Procedural))
        assert semantic.content == "Stripe throttles above 100 req/s" and semantic.conditions == {
            "boundary": "live-mode keys"
        }
        assert procedure.trigger_conditions == {"when": "before every deploy"}
        assert semantic.consolidation_model == "scripted-llm" == run.consolidation_model
        assert semantic.consolidation_prompt_hash == PRINCIPLE_EXTRACTION.hash == run.consolidation_prompt_hash
        links = {link.memory_id: link for link in brain.causal_links()}
        assert links[semantic.id].link_type == "causal" and "rate limit" in links[semantic.id].mechanism
        assert (links[semantic.id].cause, links[semantic.id].effect) == ("batch payments", "queue backed up")
        # The LLM said causal without a mechanism: never causal.
        assert links[procedure.id].link_type == "correlational" and links[procedure.id].mechanism is None


def test_offline_links_are_never_causal(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        for i, s in enumerate(SOURCES3):
            brain.encode(
                placed.place(f"cache miss {i}", 0.95),
                source=s,
                causal={"trigger": "cold start"} if i else {"trigger": "cold start", "consequence": "slow page"},
            )
        brain.consolidate()
        kinds = sorted(((link.cause, link.effect, link.link_type) for link in brain.causal_links()), key=str)
    assert kinds == [("cold start", "slow page", "temporal"), ("cold start", None, "correlational")]


def test_a_principle_that_repeats_known_knowledge_reinforces_it(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        known = add_derived(brain, placed.anchor("retries need jitter"))
        brain._storage.update_memories({known: {"evidence_count": 1}})
        # These episodes sit at 0.90 to the principle: validation reinforces it as they arrive...
        ids = [brain.encode(placed.place(f"retries need jitter {i}", 0.9), source=s) for i, s in enumerate(SOURCES3)]
        assert brain.get(known).evidence_count == 4
        run = brain.consolidate()
        # ...and consolidation folds the cluster into it rather than writing a duplicate principle.
        assert run.output_memory_ids == () and all(brain.get(i).consolidated for i in ids)
        assert brain.get(known).evidence_count == 4  # the same episodes never count twice
        assert brain.introspect().counts["semantic"] == 1


def test_a_principle_that_contradicts_known_knowledge_is_recorded_as_a_contradiction(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        known = add_derived(brain, placed.anchor("the limit is 100 req/s"))
        # Episodes at 0.68 to the principle and 0.95 to each other: validation sees the number change and records
        # episode-level contradictions; consolidation clusters them into a principle that contradicts it too.
        for i, s in enumerate(SOURCES3):
            vector = 0.68 * placed.axis(0) + 0.70 * placed.axis(200) + 0.2 * placed.axis(201 + i)
            brain.encode(placed.put(f"the limit is 25 req/s ({i})", vector), source=s)
        before = len(brain.contradictions())
        run = brain.consolidate()
        new = [c for c in brain.contradictions() if c.consolidation_run_id == run.id]
    assert before == 3 and len(new) == 1
    assert (new[0].claim_a_id, new[0].claim_b_id) == (known, run.output_memory_ids[0])


# -- recall: the lesson before the reports it was learned from ----------------------------------------------------


def test_a_principle_comes_before_the_episodes_it_rests_on(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        groups = three_topics(brain, placed)
        run = brain.consolidate()
        clock.advance(days=60)  # its episodes fade faster than a principle: still, it stands with them, not above all
        (principle,) = [
            p for p in (brain.get(i) for i in run.output_memory_ids) if groups[1][0] in p.evidence_episode_ids
        ]
        near = brain.vectors([groups[1][2]])[groups[1][2]]  # the query is one report, not the principle's text
        results = brain.recall_by_vector(near, limit=5, mode="vector")
        episodes_only = brain.recall_by_vector(near, limit=5, mode="vector", types=["episodic"])
    assert [r.id for r in results[:2]] == [principle.id, groups[1][2]]
    assert results[0].score >= results[1].score and results[0].similarity < results[1].similarity
    assert principle.id not in [r.id for r in episodes_only] and episodes_only[0].id == groups[1][2]


def test_a_principle_outside_the_recall_filter_is_not_brought_in(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        groups = three_topics(brain, placed)
        run = brain.consolidate()
        near = brain.vectors([groups[0][2]])[groups[0][2]]
        dormant = [i for i in run.output_memory_ids if groups[0][0] in brain.get(i).evidence_episode_ids]
        set_states(brain, {dormant[0]: "dormant"})  # its episodes stay consolidated
        default = [r.id for r in brain.recall_by_vector(near, limit=5, mode="vector")]
        asked = [r.id for r in brain.recall_by_vector(near, limit=5, mode="vector", include_dormant=True)]
    assert dormant[0] not in default and default[0] == groups[0][2]
    assert asked[:2] == [dormant[0], groups[0][2]]


@pytest.mark.sqlite_only
def test_principles_made_before_the_evidence_table_are_found_after_the_migration(db_path, placed, clock):
    from .index_helpers import BEFORE_EVIDENCE, downgrade

    with open_brain(db_path, placed, clock) as brain:
        groups = three_topics(brain, placed)
        run = brain.consolidate()
    downgrade(db_path, BEFORE_EVIDENCE)  # the store as schema 11 left it
    with open_brain(db_path, placed, clock) as brain:
        citing = {g[0]: [p.id for p in brain.principles_citing(g[0])] for g in groups}
        near = brain.vectors([groups[2][1]])[groups[2][1]]
        first = brain.recall_by_vector(near, limit=3, mode="vector")[0]
        principle_of = {
            g[0]: [i for i in run.output_memory_ids if g[0] in brain.get(i).evidence_episode_ids] for g in groups
        }
    assert citing == principle_of and first.id == principle_of[groups[2][0]][0]


# -- interruption and resumption ----------------------------------------------------------------------------------


def test_a_failure_between_steps_then_a_rerun_neither_duplicates_nor_loses(db_path, placed, clock, monkeypatch):
    with open_brain(db_path, placed, clock) as brain:
        groups = three_topics(brain, placed)
        real = consolidate_stage.build_links
        calls = {"n": 0}

        def crash_on_second(**kwargs):
            calls["n"] += 1
            if calls["n"] == 2:
                raise RuntimeError("power cut between extraction and promotion")
            return real(**kwargs)

        monkeypatch.setattr(consolidate_stage, "build_links", crash_on_second)
        with pytest.raises(RuntimeError, match="power cut"):
            brain.consolidate()
        (failed,) = brain.consolidation_history()
        assert failed.status == "failed" and "power cut" in failed.error and len(failed.output_memory_ids) == 1
        monkeypatch.setattr(consolidate_stage, "build_links", real)
        resumed = brain.consolidate()
        assert resumed.id == failed.id and resumed.status == "completed"
        assert len(resumed.output_memory_ids) == len(set(resumed.output_memory_ids)) == 3
        assert brain.introspect().counts["semantic"] == 3
        assert all(brain.get(i).consolidated for g in groups for i in g)
        assert len(brain.causal_links()) == 0


def test_a_process_killed_mid_run_is_resumed_without_duplicates(db_path, placed, clock):
    path = db_path
    with open_brain(path, placed, clock) as brain:
        three_topics(brain, placed)
    vectors = {t: v.tolist() for t, v in placed.vectors.items()}
    script = textwrap.dedent(f"""
        import os
        from audrey_core import Audrey, AudreyConfig
        from audrey_core.stages import consolidate as stage
        from audrey_core.config import ValidationConfig
        from tests.core.vectors import TableEmbedder

        real, calls = stage._mark_consolidated, []
        def die_on_second(*args):
            calls.append(1)
            real(*args)
            if len(calls) == 2:
                os._exit(9)  # inside the second cluster's transaction, before it commits
        stage._mark_consolidated = die_on_second
        brain = Audrey({str(path)!r}, agent="tester", embedder=TableEmbedder({vectors!r}, "placed"),
                       config=AudreyConfig(validation=ValidationConfig(background=False)))
        brain.consolidate()
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert result.returncode == 9, result.stderr
    with open_brain(path, placed, clock) as brain:
        (interrupted,) = brain.consolidation_history()
        assert interrupted.status == "running" and len(interrupted.output_memory_ids) == 1
        finished = brain.consolidate()
        assert finished.id == interrupted.id and len(set(finished.output_memory_ids)) == 3
        assert brain.introspect().counts["semantic"] == 3


# -- rollback -------------------------------------------------------------------------------------------------------


def everything(brain):
    with brain._storage._read() as db:
        ids = [
            r[0]
            for r in db.execute(
                "SELECT id FROM episodes UNION ALL SELECT id FROM semantics UNION ALL SELECT id FROM procedures"
            )
        ]
    return {m.id: m for m in brain.get_many(ids) if m is not None}, {c.id: c for c in brain.contradictions()}


def test_rollback_restores_the_exact_prior_state(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        # Encoded before the principles exist, so validation leaves them alone and the run does all the work.
        for i, s in enumerate(SOURCES3):
            brain.encode(placed.place(f"queues back up under load {i}", 0.9), source=s)
        for i, s in enumerate(SOURCES3):
            vector = 0.68 * placed.axis(100) + 0.70 * placed.axis(200) + 0.2 * placed.axis(201 + i)
            brain.encode(placed.put(f"the limit is 25 req/s ({i})", vector), source=s)
        folded_into = add_derived(brain, placed.anchor("queues back up under load"))
        challenged = add_derived(brain, placed.put("the limit is 100 req/s", placed.axis(100)))
        clock.advance(hours=2)
        before_memories, before_contradictions = everything(brain)
        run = brain.consolidate()
        # The run changed existing knowledge: new evidence for one principle, a contradiction against another.
        assert brain.get(folded_into).evidence_count == 4 and run.confidence_deltas[folded_into] > 0
        assert brain.get(challenged).challenge_count == 1 and len(run.output_memory_ids) == 1
        rolled = brain.rollback(run.id)
        assert rolled.status == "rolled_back"
        after_memories, after_contradictions = everything(brain)
        outputs = set(run.output_memory_ids)
        assert {i: m for i, m in after_memories.items() if i not in outputs} == before_memories
        assert all(after_memories[i].state == "rolled_back" for i in outputs)
        assert {
            i: c for i, c in after_contradictions.items() if c.consolidation_run_id != run.id
        } == before_contradictions
        closed = [c for c in after_contradictions.values() if c.consolidation_run_id == run.id]
        assert len(closed) == 1 and closed[0].state == "closed"
        assert brain.audit_log()[-1]["subject_id"] == run.id
        with pytest.raises(InvalidInputError, match="already rolled back"):
            brain.rollback(run.id)
        with pytest.raises(NotFoundError, match="no consolidation run"):
            brain.rollback("no-such-run")
        # The episodes are free again: the next run consolidates them anew.
        assert brain.consolidate().status == "completed"


def test_rollback_of_a_run_that_wrote_principles(db_path, placed, clock):
    with open_brain(db_path, placed, clock) as brain:
        ids = [brain.encode(placed.place(f"fresh claim {i}", 0.95), source=s) for i, s in enumerate(SOURCES3)]
        events = []
        brain.on("rollback", events.append)
        run = brain.consolidate()
        (principle,) = run.output_memory_ids
        brain.rollback(run.id)
        assert brain.get(principle).state == "rolled_back"
        assert not any(brain.get(i).consolidated for i in ids)
        assert brain.recall("fresh claim", types=["semantic"]) == []
        assert brain.causal_links() == []
        assert events[0]["run_id"] == run.id and events[0]["outputs"] == [principle]
        assert [r.status for r in brain.consolidation_history()] == ["rolled_back"]


def test_a_run_recorded_in_its_row_before_schema_13_reads_and_rolls_back_the_same(db_path, backend, placed, clock):
    """Schema 13 (PostgreSQL 9) records a run's undo entries, new principles and confidence changes as rows; what an
    older Audrey wrote sits in the run's own columns and is read first, so its run reads and rolls back exactly after
    the upgrade."""
    from .index_helpers import BEFORE_RUN_LOG, BEFORE_RUN_LOG_POSTGRES, downgrade

    with open_brain(db_path, placed, clock) as brain:
        ids = [brain.encode(placed.place(f"fresh claim {i}", 0.95), source=s) for i, s in enumerate(SOURCES3)]
        run = brain.consolidate()
        logged = brain._storage.run_undo_log(run.id)
    assert logged and len(run.output_memory_ids) == 1
    in_columns = {  # the run as schema 12 (PostgreSQL 8) kept it: everything in its row
        "sqlite": [
            "UPDATE consolidation_runs SET undo_log = (SELECT json_group_array(json(entry)) FROM "
            "(SELECT entry FROM consolidation_undo u WHERE u.run_id = consolidation_runs.id ORDER BY seq))",
            "UPDATE consolidation_runs SET output_memory_ids = (SELECT json_group_array(memory_id) FROM "
            "(SELECT memory_id FROM consolidation_results r WHERE r.run_id = consolidation_runs.id "
            "AND r.confidence_delta IS NULL ORDER BY seq))",
            *BEFORE_RUN_LOG,
        ],
        "postgres": [
            "UPDATE consolidation_runs SET undo_log = (SELECT json_agg(entry::json ORDER BY seq)::text "
            "FROM consolidation_undo u WHERE u.run_id = consolidation_runs.id)",
            "UPDATE consolidation_runs SET output_memory_ids = (SELECT json_agg(memory_id ORDER BY seq)::text "
            "FROM consolidation_results r WHERE r.run_id = consolidation_runs.id AND r.confidence_delta IS NULL)",
            *BEFORE_RUN_LOG_POSTGRES,
        ],
    }
    downgrade(db_path, in_columns[backend])
    with open_brain(db_path, placed, clock) as brain:
        assert brain.consolidation_history() == [run] and brain._storage.run_undo_log(run.id) == logged
        brain.rollback(run.id)
        (principle,) = run.output_memory_ids
        assert brain.get(principle).state == "rolled_back"
        assert not any(brain.get(i).consolidated for i in ids)


def test_a_runs_results_are_rows_its_record_reads_in_order(db_path, placed, clock):
    """The principles a run makes and the confidence changes it makes to existing ones are recorded one row each
    (its record is not rewritten per cluster) and read back as the run's outputs, in order, and summed deltas."""
    with open_brain(db_path, placed, clock) as brain:
        groups = three_topics(brain, placed)
        run = brain.consolidate()
        rests_on = {i: brain.get(i).evidence_episode_ids for i in run.output_memory_ids}
        first = run.output_memory_ids[0]
        brain._storage.record_run_result(run.id, first, 0.25)
        brain._storage.record_run_result(run.id, first, -0.05)
        (again,) = [r for r in brain.consolidation_history() if r.id == run.id]
        with pytest.raises(StorageError, match="no consolidation run"):
            brain._storage.record_run_result("no-such-run", first)
    assert len(run.output_memory_ids) == 3 and run.confidence_deltas == {}
    assert sorted(sorted(e) for e in rests_on.values()) == sorted(sorted(g) for g in groups)
    assert again.output_memory_ids == run.output_memory_ids
    assert again.confidence_deltas == pytest.approx({first: 0.20})


def test_two_instances_consolidating_at_once_give_one_runs_principles(db_path, placed, clock, monkeypatch):
    """The storage's consolidation lock (in-process for SQLite, an advisory lock on PostgreSQL) serialises runs
    of one agent across Audrey instances: the second finds the work done."""
    with open_brain(db_path, placed, clock) as first, open_brain(db_path, placed, clock) as second:
        three_topics(first, placed)
        real = consolidate_stage.extract

        def slow_extract(*args):
            time.sleep(0.2)  # keeps the first run open while the second arrives
            return real(*args)

        monkeypatch.setattr(consolidate_stage, "extract", slow_extract)
        with ThreadPoolExecutor(2) as pool:
            runs = list(pool.map(lambda brain: brain.consolidate(), [first, second]))
        assert sorted(len(run.output_memory_ids) for run in runs) == [0, 3]
        assert first.introspect().counts["semantic"] == 3


def test_principles_citing_an_episode_and_the_timeline(brain, clock):
    ids = [
        brain.encode("the nightly export job takes forty minutes", source=source)
        for source in ("direct-observation", "tool-result", "told-by-user")
    ]
    clock.advance(days=1)
    unrelated = brain.encode("the office plants need water on Fridays")
    run = brain.consolidate()
    (principle_id,) = run.output_memory_ids
    assert [m.id for m in brain.principles_citing(ids[0])] == [principle_id]
    assert brain.principles_citing(unrelated) == [] and brain.principles_citing("no-such-id") == []
    days = {(day, memory_type, state): count for day, memory_type, state, count in brain.timeline()}
    assert days[("2026-01-01", "episodic", "active")] == 3
    assert days[("2026-01-02", "episodic", "active")] == 1
    assert days[("2026-01-02", "semantic", "active")] == 1


def test_runs_contradictions_and_links_are_found_by_their_ids(brain, clock):
    for source in SOURCES3:
        brain.encode(
            "the nightly export job takes forty minutes",
            source=source,
            causal={"trigger": "nightly export", "consequence": "reports late"},
        )
    run = brain.consolidate()
    (principle,) = run.output_memory_ids
    assert brain.consolidation_run(run.id).output_memory_ids == run.output_memory_ids
    assert brain.consolidation_run("no-such-run") is None
    assert [link.memory_id for link in brain.causal_links(involving=principle)] == [principle]
    assert brain.causal_links(involving="no-such-memory") == []
    assert [link.memory_id for link in brain.causal_links(principle, involving=principle)] == [principle]
    assert brain.causal_links("another-principle", involving=principle) == []  # both asked: both must hold
    old = brain.encode("The team standup starts at 9am every weekday", source="told-by-user")
    clock.advance(days=30)
    new = brain.encode("The team standup starts at 10am every weekday", source="told-by-user")
    (dispute,) = brain.contradictions(memory_id=old)
    assert {dispute.claim_a_id, dispute.claim_b_id} == {old, new} and brain.contradictions(memory_id=new) == [dispute]
    assert brain.contradiction(dispute.id) == dispute and brain.contradiction("no-such-dispute") is None
    assert brain.contradictions(memory_id=principle) == []
    with pytest.raises(InvalidInputError):
        brain.contradiction(42)


def test_a_principle_is_brought_in_through_its_episodes_for_its_own_tenant_only(db_path, placed, clock):
    """A principle that shares no word with the query comes in through the consolidated episodes a keyword recall
    reads (the first read takes every candidate: it came after them), but only where the recall's own filter
    reaches: another scope's principle citing those very episodes (which consolidation never writes, but a store may
    hold) never does."""
    mine = Audrey(db_path, agent="tester", scope=("team", "a"), embedder=placed, clock=clock, config=config())
    theirs = Audrey(db_path, agent="tester", scope=("team", "b"), embedder=placed, clock=clock, config=config())
    with mine, theirs:
        groups = three_topics(mine, placed)
        mine.consolidate()
        cited = {"evidence_episode_ids": list(groups[1]), "evidence_count": 3}
        own = add_derived(mine, placed.place("our lesson from those reports, in other words", 0.95), **cited)
        foreign = add_derived(theirs, placed.place("another scope's lesson from the same reports", 0.95), **cited)
        results = [r.id for r in mine.recall("topic 1 claim", limit=10, mode="keyword")]
        everywhere = Audrey(db_path, agent="tester", embedder=placed, clock=clock, config=config())
        with everywhere:  # an instance over both scopes reaches both through the same episodes
            both = [r.id for r in everywhere.recall("topic 1 claim", limit=10, mode="keyword")]
    assert own in results and foreign not in results
    assert results.index(own) < min(results.index(e) for e in groups[1])  # the lesson before its reports
    assert {own, foreign} <= set(both)
