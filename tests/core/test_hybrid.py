"""Hybrid recall: keyword search in step with writes, fusion, modes, and the migration that added full text."""

from __future__ import annotations

import pytest

from audrey_core import Audrey, RecallConfig
from audrey_core.config import AudreyConfig, ValidationConfig
from audrey_core.errors import ConfigurationError, InvalidInputError
from audrey_core.rules.fusion import convex_fusion, reciprocal_rank_fusion
from audrey_core.rules.keywords import TermCounts, informative_terms, query_terms
from audrey_core.storage import SQLiteStorage, VectorFilter
from audrey_core.storage.sqlite.connection import connect
from audrey_core.storage.sqlite.schema import LATEST_VERSION, MIGRATIONS, migrate

from .vectors import PlacedEmbedder


def test_query_terms_drop_question_words_and_repeat():
    assert query_terms("When did Caroline go to the LGBTQ support group? Caroline!") == [
        "caroline",
        "go",
        "lgbtq",
        "support",
        "group",
    ]
    assert query_terms("what is it?") == []
    assert query_terms("What is Mateo's job? Doesn't O’Brien know? We'd say it's fine") == [
        "mateo",
        "job",
        "o",
        "brien",
        "know",
        "say",
        "fine",
    ]


def test_a_possessive_in_a_question_does_not_match_every_contraction(brain):
    """The indexes split "that's" into "that" and "s": a question's "Mateo's" must not rank every turn that holds a
    contraction above the one about Mateo."""
    for i in range(12):
        brain.encode(["That's fair.", "It's late, let's go.", "Haha, that's so you."][i % 3] + f" ({i})")
    about = brain.encode("Mateo started a new job at the bike repair shop")
    hits = brain._storage.keyword_search(query_terms("What is Mateo's job?"), 5, VectorFilter(agent=brain.agent))
    assert [h.memory_id for h in hits] == [about]


def test_fusion_functions():
    assert reciprocal_rank_fusion([["a", "b"], ["b", "c"]]) == pytest.approx(
        {"a": (1 / 61) / (2 / 61), "b": (1 / 62 + 1 / 61) / (2 / 61), "c": (1 / 62) / (2 / 61)}
    )
    fused = convex_fusion({"a": 0.8, "b": 0.4, "c": -0.2}, {"b": 10.0, "d": 5.0}, vector_weight=0.7)
    assert fused == pytest.approx({"a": 0.7, "b": 0.7 * 0.5 + 0.3, "c": 0.0, "d": 0.15})


@pytest.fixture
def placed_brain(db_path, clock):
    embedder = PlacedEmbedder(dimensions=64)
    with Audrey(
        db_path,
        embedder=embedder,
        clock=clock,
        config=AudreyConfig(validation=ValidationConfig(background=False)),
    ) as brain:
        yield brain, embedder


def test_a_keyword_only_match_is_found_by_hybrid_but_missed_by_vector(placed_brain):
    brain, embedder = placed_brain
    target = brain.encode(embedder.place("the invoice reference for the vendor is ZX4411", 0.0))
    for i in range(12):  # semantically closer distractors (spread out, as in a real space) without the reference
        brain.encode(embedder.place(f"billing notes number {i} about vendors", 0.9 - i * 0.07))
    query = embedder.anchor("ZX4411")
    assert target not in [r.id for r in brain.recall(query, limit=10, mode="vector")]
    # Convex fusion: 0.3 for the only keyword match beats vector-only hits under ~43% of the best similarity.
    assert target in [r.id for r in brain.recall(query, limit=10)]  # hybrid is the default
    keyword = brain.recall(query, limit=5, mode="keyword")
    assert [r.id for r in keyword] == [target] and keyword[0].similarity == pytest.approx(0.0, abs=1e-6)


def test_full_text_follows_replace_and_forget(brain):
    brain.encode("the kiln reaches 1200 degrees", id="k1")
    assert [r.id for r in brain.recall("kiln", mode="keyword")] == ["k1"]
    brain.encode_batch([{"content": "the oven reaches 250 degrees", "id": "k1"}], replace=True)
    assert brain.recall("kiln", mode="keyword") == [] and [r.id for r in brain.recall("oven", mode="keyword")] == ["k1"]
    brain.forget(["k1"])
    assert brain.recall("oven", mode="keyword") == []


def test_stemming_and_filters_apply_to_keyword_search(brain):
    painted = brain.encode("Melanie painted a sunrise last week", tags=["art"])
    brain.encode("Melanie paints every weekend", tags=["hobby"])
    assert {r.id for r in brain.recall("painting", mode="keyword")} >= {painted}
    assert [r.id for r in brain.recall("painting", mode="keyword", tags=["art"])] == [painted]


def test_mode_and_fusion_checks(brain):
    with pytest.raises(InvalidInputError, match="mode"):
        brain.recall("x", mode="fuzzy")
    with pytest.raises(InvalidInputError, match="keyword recall needs a text query"):
        brain.recall_by_vector(brain.embed_query("x"), mode="keyword")
    with pytest.raises(ConfigurationError, match="fusion"):
        RecallConfig(fusion="max")
    with pytest.raises(ConfigurationError, match="vector_weight"):
        RecallConfig(vector_weight=1.5)


def test_rrf_fusion_is_available(db_path, embedder):
    config = AudreyConfig(recall=RecallConfig(fusion="rrf"), validation=ValidationConfig(background=False))
    with Audrey(db_path, embedder=embedder, config=config) as brain:
        mid = brain.encode("the backup job runs at midnight")
        assert brain.recall("backup job midnight")[0].id == mid


def test_a_version_1_file_gains_full_text_for_its_existing_memories(tmp_path):
    path = tmp_path / "v1.db"
    db = connect(str(path))
    migrate(db, 384, MIGRATIONS[:1])  # a file written before migration 2 existed
    db.executemany(
        "INSERT INTO audrey_config (key, value) VALUES (?, ?)",
        [
            ("embedding_model", "deterministic-hash"),
            ("embedding_dimensions", "384"),
            ("vector_table", "memory_vectors"),
        ],
    )
    db.execute(
        "INSERT INTO episodes (id, agent, scope, content, source, source_reliability, created_at) "
        "VALUES ('e1', 'default', 'user\x1fann\x1f', 'the greenhouse door sticks in winter', 'told-by-user', 0.9, "
        "'2026-01-01T00:00:00.000000+00:00')"
    )
    db.close()
    storage = SQLiteStorage(path, model_name="deterministic-hash", dimensions=384)
    try:
        versions = [r[0] for r in storage._conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        assert versions == list(range(1, LATEST_VERSION + 1))
        from audrey_core.storage import VectorFilter

        hits = storage.keyword_search(["greenhouse"], 5, VectorFilter(agent="default"))
        assert [h.memory_id for h in hits] == ["e1"]
        for scoped in ({"scope": ("user", "ann")}, {"scope_prefix": ("user",)}):  # migration 3's scope words
            assert [h.memory_id for h in storage.keyword_search(["greenhouse"], 5, VectorFilter(**scoped))] == ["e1"]
        assert storage.keyword_search(["greenhouse"], 5, VectorFilter(scope=("user",))) == []
    finally:
        storage.close()


def test_hybrid_recall_inside_a_transaction_does_not_deadlock(brain):
    mid = brain.encode("the staging cluster restarts every Sunday")
    with brain._storage.transaction():
        assert brain._storage.held_by_this_thread()
        assert [r.id for r in brain.recall("staging cluster Sunday")] == [mid]
    assert not brain._storage.held_by_this_thread()


def test_without_sqlite_vec_audrey_opens_recalls_by_keyword_and_says_why(tmp_path, embedder, monkeypatch):
    import audrey_core.storage.sqlite.store as sqlite_storage
    from audrey_core.errors import StorageError

    path = tmp_path / "novec.db"

    def unavailable(connection):
        raise StorageError("could not load the sqlite-vec extension (simulated)")

    monkeypatch.setattr(sqlite_storage, "load_sqlite_vec", unavailable)
    config = AudreyConfig(validation=ValidationConfig(background=False))
    with pytest.warns(RuntimeWarning, match="without vector search") as warned:
        brain = Audrey(path, embedder=embedder, config=config)
    assert len(warned) == 1
    with brain:
        mid = brain.encode("the printer on floor 3 jams on glossy paper")
        assert [r.id for r in brain.recall("printer jams")] == [mid]  # hybrid falls back to keywords
        with pytest.raises(StorageError, match=r"vector recall is unavailable.*simulated"):
            brain.recall("printer", mode="vector")
        stats = brain.introspect()
        assert "simulated" in stats.vector_search_error and brain._storage.vector_coverage() == (0, 1)
    monkeypatch.undo()  # sqlite-vec is back: the vector table is created and a backfill embeds the memory
    from audrey_core.admin.maintenance import backfill

    with Audrey(path, embedder=embedder, config=config) as brain:
        assert brain.introspect().vector_search_error is None
        assert backfill(brain._storage, embedder) == 1
        assert [r.id for r in brain.recall("printer jams", mode="vector")] == [mid]


def test_type_weights_and_similarity_floors(db_path, clock):
    from types import MappingProxyType

    embedder = PlacedEmbedder(dimensions=64)
    base = AudreyConfig(validation=ValidationConfig(background=False))
    with Audrey(db_path, embedder=embedder, clock=clock, config=base) as brain:
        episode = brain.encode(embedder.place("deploys happen on Thursday", 0.95))
        from .helpers import add_derived

        principle = add_derived(brain, embedder.place("deploys are weekly", 0.80))
        weak = brain.encode(embedder.place("the office plant needs water", 0.30))
        query = embedder.anchor("when do we deploy?")
        assert [r.id for r in brain.recall(query, mode="vector")][:2] == [episode, principle]
    favour = RecallConfig(
        type_weights=MappingProxyType({"episodic": 1.0, "semantic": 1.5, "procedural": 1.0}),
        similarity_floors=MappingProxyType({"episodic": 0.5, "semantic": -1.0, "procedural": -1.0}),
    )
    with Audrey(
        db_path,
        embedder=embedder,
        clock=clock,
        config=AudreyConfig(validation=ValidationConfig(background=False), recall=favour),
    ) as brain:
        ranked = [r.id for r in brain.recall(query, mode="vector")]
        assert ranked[0] == principle and weak not in ranked  # weighted up; floored out
        assert weak not in [r.id for r in brain.recall(query)]  # hybrid: no keyword match, so the floor applies
    with pytest.raises(ConfigurationError, match="type_weights"):
        RecallConfig(type_weights=MappingProxyType({"episodic": 1.0}))


def test_a_floored_principle_read_before_its_episodes_comes_back_through_them(db_path, clock):
    """A principle under its type's similarity floor is a candidate all the same once the recall reads the episodes it
    rests on; read in an earlier batch than they are (its cosine is higher), it is read again when they bring it."""
    from types import MappingProxyType

    from .helpers import add_derived

    embedder = PlacedEmbedder(dimensions=64)
    floors = MappingProxyType({"episodic": -1.0, "semantic": 0.9, "procedural": -1.0})
    config = AudreyConfig(validation=ValidationConfig(background=False), recall=RecallConfig(similarity_floors=floors))
    with Audrey(db_path, embedder=embedder, clock=clock, config=config) as brain:
        others = [brain.encode(embedder.place(f"routine note {i}", 0.595 - i / 1000)) for i in range(5)]
        reports = [brain.encode(embedder.place(f"report {i} of the lesson", 0.58 - i / 100)) for i in range(3)]
        brain._storage.update_memories({r: {"consolidated": True} for r in reports})
        principle = add_derived(brain, embedder.place("the lesson", 0.6), evidence_episode_ids=reports)
        query = embedder.anchor("what did we learn?")
        ranked = [r.id for r in brain.recall(query, mode="vector", limit=2)]  # read 6, then 2 at a time
        assert principle in ranked and not set(ranked) & set(reports)  # it stands for its reports
        alone = [r.id for r in brain.recall(query, mode="vector", limit=2, types=["semantic"])]
        assert alone == []  # with none of its episodes read, the floor holds
        assert others  # (the routine notes the first read takes)


def test_common_terms_are_left_out_of_ranking_in_a_large_store_only():
    counts = {"the": 900, "kiln": 12, "glaze": 40}
    assert informative_terms(["the", "kiln", "glaze"], counts, 999) == ["the", "kiln", "glaze"]  # small store
    assert informative_terms(["the", "kiln", "glaze"], counts, 1500) == ["kiln", "glaze"]
    assert informative_terms(["the", "glaze"], {"the": 900, "glaze": 800}, 1500) == ["glaze"]  # the rarest stays


def test_term_counts_are_asked_again_only_when_the_store_moved_by_a_tenth():
    asked = []
    cache = TermCounts()

    def count(term):
        asked.append(term)
        return len(term)

    assert cache.get(["kiln", "glaze"], 1000, count) == {"kiln": 4, "glaze": 5}
    assert cache.get(["kiln"], 1099, count) == {"kiln": 4} and asked == ["kiln", "glaze"]
    cache.get(["kiln"], 1101, count)
    assert asked == ["kiln", "glaze", "kiln"]


def test_the_store_size_is_read_again_only_after_a_few_seconds():
    reads = iter([1000, 2000])
    cache = TermCounts(total_for_s=60)
    assert cache.total(lambda: next(reads)) == 1000 and cache.total(lambda: next(reads)) == 1000  # not read again
    fresh = TermCounts(total_for_s=0)
    reads = iter([1000, 2000])
    assert fresh.total(lambda: next(reads)) == 1000 and fresh.total(lambda: next(reads)) == 2000
