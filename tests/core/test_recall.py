"""Recall: KNN against a brute-force reference, confidence ranking, filters, dormancy, streaming, reinforcement."""

from __future__ import annotations

import inspect
import random
from dataclasses import replace

import numpy as np
import pytest

from audrey_core import Audrey, InvalidInputError
from audrey_core.config import SOURCES
from audrey_core.rules.confidence import memory_confidence
from audrey_core.rules.ranking import Ranked, is_self_citation, pool_size, ranking_key
from audrey_core.rules.recall_options import RECALL_ARGUMENTS, RecallArguments
from audrey_core.states import RECALLABLE_STATES
from audrey_core.storage import VectorFilter
from audrey_core.testing import set_states

from .helpers import add_derived
from .vectors import RandomVectorEmbedder, TableEmbedder

WORDS = [
    "stripe",
    "rate",
    "limit",
    "payment",
    "queue",
    "deploy",
    "friday",
    "user",
    "french",
    "tea",
    "export",
    "job",
    "nightly",
    "cache",
    "redis",
    "timeout",
    "retry",
    "backoff",
    "schema",
    "migration",
    "vector",
    "index",
    "latency",
    "memory",
    "agent",
    "tool",
    "result",
    "error",
]


@pytest.fixture
def random_brain(tmp_path, clock):
    with Audrey(tmp_path / "random.db", agent="tester", embedder=RandomVectorEmbedder(), clock=clock) as brain:
        yield brain


def populate(brain: Audrey, clock, n: int = 240, seed: int = 7) -> list[str]:
    """Encode n distinct observations with varied sources, salience, tags and ages."""
    rng = random.Random(seed)
    ids = []
    for i in range(n):
        words = " ".join(rng.sample(WORDS, 4))
        ids.append(
            brain.encode(
                f"{words} observation {i}",
                source=rng.choice(SOURCES),
                salience=round(rng.random(), 2),
                tags=rng.sample(["alpha", "beta", "gamma"], rng.randint(0, 2)),
            )
        )
        clock.advance(hours=rng.randint(1, 30))
    return ids


def brute_force(brain: Audrey, query: str, limit: int, where: VectorFilter, min_confidence: float = 0.0) -> list[str]:
    """The recall contract computed the slow way: cosine over every stored vector, the same candidate pool size,
    then similarity x confidence. Filters are applied in Python over the full memory records."""
    from audrey_core.rules.recall_options import RecallOptions

    options = RecallOptions(limit, min_confidence, where, False)
    k = pool_size(options, brain.config.recall)
    db = brain._storage._conn
    ids = [row[0] for row in db.execute("SELECT id FROM episodes UNION ALL SELECT id FROM semantics")]
    memories = {m.id: m for m in brain.get_many(ids) if m is not None}
    vectors = brain.vectors(ids)
    q = brain.embedder.embed([query])[0]
    q = q / np.linalg.norm(q)

    def keep(m) -> bool:
        return (
            (where.agent is None or m.agent == where.agent)
            and (where.states is None or m.state in where.states)
            and (where.memory_types is None or m.memory_type in where.memory_types)
            and (where.sources is None or m.source in where.sources)
            and (where.tags is None or bool(set(m.tags) & set(where.tags)))
        )

    candidates = [m for m in memories.values() if keep(m)]
    sims = {m.id: float(vectors[m.id] @ q / np.linalg.norm(vectors[m.id])) for m in candidates}
    pool = sorted(candidates, key=lambda m: -sims[m.id])[:k]
    now = brain.clock()
    scored = {m.id: Ranked(m, sims[m.id], memory_confidence(m, now, brain.config.confidence), sims[m.id]) for m in pool}
    for m in candidates:  # a principle scores at least what the best of its consolidated episodes found scores
        evidence = getattr(m, "evidence_episode_ids", ())
        cited = [scored[e].score for e in evidence if e in scored and getattr(scored[e].memory, "consolidated", False)]
        if cited:
            own = Ranked(m, sims[m.id], memory_confidence(m, now, brain.config.confidence), sims[m.id])
            scored[m.id] = own if own.score > max(cited) else replace(own, carried=max(cited))
    ranked = list(scored.values())
    ranked = [r for r in ranked if r.breakdown.value >= min_confidence]
    ranked.sort(key=ranking_key)
    return [r.memory.id for r in ranked[:limit]]


@pytest.mark.parametrize(
    "query,limit,filters",
    [
        ("stripe rate limit payment", 5, {}),
        ("deploy friday nightly export", 10, {}),
        ("vector index latency", 3, {"types": ["episodic"]}),
        ("retry backoff timeout", 8, {"sources": ["tool-result", "told-by-user"]}),
        ("cache redis memory", 6, {"tags": ["beta"]}),
        ("agent tool result error", 7, {"tags": ["alpha", "gamma"], "sources": ["inference", "model-generated"]}),
    ],
)
def test_recall_matches_a_brute_force_reference(random_brain, clock, query, limit, filters):
    brain = random_brain
    ids = populate(brain, clock)
    add_derived(brain, "a semantic memory in the mix", evidence_episode_ids=tuple(ids[:3]))
    set_states(brain, {i: "dormant" for i in ids[::9]})
    from audrey_core.rules.recall_options import check_options

    where = check_options(agent=brain.agent, limit=limit, **filters).where
    expected = brute_force(brain, query, limit, where)
    got = brain.recall(query, limit=limit, mode="vector", **filters)
    assert [r.id for r in got] == expected
    assert len(got) == limit
    assert [r.score for r in got] == sorted((r.score for r in got), reverse=True)


def test_knn_equals_exact_cosine_top_k(random_brain, clock):
    brain = random_brain
    populate(brain, clock, n=300)
    db = brain._storage._conn
    ids = [row[0] for row in db.execute("SELECT id FROM episodes")]
    vectors = brain.vectors(ids)
    matrix = np.vstack([vectors[i] for i in ids])
    q = brain.embedder.embed(["payment queue latency"])[0]
    sims = matrix @ q / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(q))
    expected = [ids[i] for i in np.argsort(-sims)[:25]]
    hits = brain._storage.knn(q, 25, VectorFilter(agent=brain.agent))
    assert [h.memory_id for h in hits] == expected
    assert [h.similarity for h in hits] == pytest.approx(sorted(sims, reverse=True)[:25], abs=1e-5)


def test_a_reliable_memory_outranks_a_slightly_more_similar_model_generated_one(db_path):
    table = {
        "query": [1, 0, 0, 0],
        "observed: the limit is 100 req/s": [0.90, 0.4359, 0, 0],  # cosine 0.90 to the query
        "generated: the limit is 100 req/s": [0.95, 0, 0.3122, 0],  # cosine 0.95 to the query
    }
    with Audrey(db_path, embedder=TableEmbedder(table)) as brain:
        brain.encode("observed: the limit is 100 req/s", source="direct-observation")
        brain.encode("generated: the limit is 100 req/s", source="model-generated")
        first, second = brain.recall("query", mode="vector")
    assert second.similarity > first.similarity
    assert first.source == "direct-observation" and second.source == "model-generated"
    assert second.confidence == 0.6 and second.breakdown.capped
    assert first.score == pytest.approx(first.similarity * first.confidence)


def test_dormant_memories_are_excluded_unless_asked(brain):
    awake = brain.encode("the cache lives in redis")
    asleep = brain.encode("the cache used to live in memcached")
    set_states(brain, {asleep: "dormant"})
    assert [r.id for r in brain.recall("cache")] == [awake]
    with_dormant = brain.recall("cache", include_dormant=True)
    assert {r.id for r in with_dormant} == {awake, asleep}
    assert {r.id: r.state for r in with_dormant}[asleep] == "dormant"
    assert brain.get(asleep).prior_state == "active"


def test_default_states_and_explicit_states(brain):
    ids = {
        state: brain.encode(f"claim about the deploy window, {state} one")
        for state in ("active", "disputed", "context_dependent", "superseded", "rolled_back")
    }
    set_states(brain, {ids[s]: s for s in ids if s != "active"})
    assert {r.state for r in brain.recall("deploy window claim")} == set(RECALLABLE_STATES)
    assert [r.state for r in brain.recall("deploy window claim", states=["rolled_back"])] == ["rolled_back"]


def test_recall_is_scoped_to_the_agent(db_path, embedder):
    with Audrey(db_path, agent="alice", embedder=embedder) as alice:
        alice.encode("alice keeps her keys in the blue drawer")
    with Audrey(db_path, agent="alice2", embedder=embedder) as other:
        other.encode("alice2 keeps her keys in the red drawer")
        assert [r.agent for r in other.recall("where are the keys")] == ["alice2"]
    with Audrey(db_path, agent="alice", embedder=embedder) as alice:
        assert [r.agent for r in alice.recall("where are the keys")] == ["alice"]
        assert alice.introspect().counts["episodic"] == 1
        assert alice.introspect(all_agents=True).counts["episodic"] == 2


def test_confidence_floor_widens_the_candidate_pool(brain):
    # 60 near-identical model-generated memories (confidence 0.6) crowd the first candidate pool.
    brain.encode_batch([{"content": f"stripe rate limit guess {i}", "source": "model-generated"} for i in range(60)])
    solid = brain.encode("an observed fact about stripe", source="direct-observation")
    hits = brain.recall("stripe rate limit guess", limit=1, min_confidence=0.7)
    assert [h.id for h in hits] == [solid]
    assert brain.recall("stripe rate limit guess", limit=5, min_confidence=0.99) == []


def test_a_relevance_floor_leaves_out_what_is_unrelated_whatever_words_it_shares(db_path, clock):
    from .vectors import PlacedEmbedder

    placed = PlacedEmbedder(dimensions=64)
    query = placed.anchor("what should I eat on the flight")
    with Audrey(db_path, embedder=placed, clock=clock) as brain:
        close = brain.encode(placed.place("I am allergic to peanuts", 0.35))
        far = brain.encode(placed.place("the flight leaves from gate 12", 0.1))  # shares the word "flight"
        brain.encode_batch([placed.place(f"unrelated note {i}", 0.05) for i in range(40)])
        assert far in [r.id for r in brain.recall(query, limit=5)]
        assert [r.id for r in brain.recall(query, limit=5, min_similarity=0.2)] == [close]
        assert [r.id for r in brain.recall(query, limit=5, min_similarity=0.2, mode="vector")] == [close]
        assert brain.recall(query, limit=5, min_similarity=0.5) == []
        assert far in [r.id for r in brain.recall(query, limit=5, min_similarity=0.2, mode="keyword")]  # no cosine
        for bad in (1.5, "high", True):
            with pytest.raises(InvalidInputError, match="min_similarity"):
                brain.recall(query, min_similarity=bad)


def test_filters_by_type_tag_and_source(brain):
    episode = brain.encode("stripe limits observed", tags=["stripe"], source="tool-result")
    brain.encode("stripe limits rumoured", tags=["gossip"], source="model-generated")
    principle = add_derived(brain, "stripe limits are 100 req/s", evidence_episode_ids=(episode,))
    assert [r.id for r in brain.recall("stripe limits", types=["semantic"])] == [principle]
    assert [r.id for r in brain.recall("stripe limits", tags=["stripe"])] == [episode]
    assert [r.id for r in brain.recall("stripe limits", sources=["tool-result"])] == [episode]
    assert {r.memory_type for r in brain.recall("stripe limits")} == {"episodic", "semantic"}


def test_a_statement_repeated_word_for_word_is_recalled_once_unless_two_sources_or_two_turns_said_it(brain, clock):
    first = brain.encode("Stripe allows 100 req/s in live mode", source="told-by-user")
    clock.advance(days=1)
    again = brain.encode("Stripe allows  100 req/s in live mode ", source="told-by-user")  # a script run twice
    both = {first, again}
    found = [r.id for r in brain.recall("stripe rate limit", limit=10)]
    assert len(both & set(found)) == 1 and brain.get(first) is not None and brain.get(again) is not None
    witness = brain.encode("Stripe allows 100 req/s in live mode", source="tool-result")
    found = [r.id for r in brain.recall("stripe rate limit", limit=10)]
    assert witness in found and len(both & set(found)) == 1  # another source is another witness
    turns = [brain.encode("Yes, I did!", session="s1", speaker="ann"), brain.encode("Yes, I did!", session="s1")]
    assert set(turns) <= {r.id for r in brain.recall("Yes, I did!", limit=10)}  # two turns are two events


def test_recall_equals_the_listed_stream_and_scores_descend(brain, clock):
    populate(brain, clock, n=60)
    listed = list(brain.recall_stream("payment retry backoff", limit=12))
    assert [(r.id, r.score) for r in brain.recall("payment retry backoff", limit=12)] == [
        (r.id, r.score) for r in listed
    ]
    assert [r.score for r in listed] == sorted((r.score for r in listed), reverse=True)


def test_stream_stops_early_and_reinforces_only_what_was_taken(brain):
    ids = [add_derived(brain, f"principle {i} about deploys on friday") for i in range(3)]
    stream = brain.recall_stream("deploys on friday", limit=3)
    taken = next(stream)
    stream.close()
    counts = {i: brain.get(i).retrieval_count for i in ids}
    assert counts[taken.id] == 1 and sum(counts.values()) == 1
    for r in brain.recall("deploys on friday", limit=3):
        assert brain.get(r.id).last_retrieved_at is not None


def test_recall_without_reinforcing_leaves_every_memory_as_it_was(brain):
    ids = [add_derived(brain, f"principle {i} about deploys on friday") for i in range(3)]
    looked = brain.recall("deploys on friday", limit=3, reinforce=False)
    assert {r.id for r in looked} == set(ids)
    assert all(brain.get(i).retrieval_count == 0 and brain.get(i).last_retrieved_at is None for i in ids)
    with pytest.raises(InvalidInputError, match="reinforce must be True or False"):
        brain.recall("deploys", reinforce="no")


def test_retrieval_reinforcement_raises_confidence_next_time(brain, clock):
    principle = add_derived(brain, "retries need exponential backoff", evidence_episode_ids=())
    first = brain.recall("retries backoff", limit=1)[0]
    clock.advance(hours=1)
    second = brain.recall("retries backoff", limit=1)[0]
    assert first.id == second.id == principle
    assert second.breakdown.retrieval > 0 == first.breakdown.retrieval
    assert second.confidence > first.confidence - 0.01  # the Ret gain outweighs an hour of decay


def test_self_citation_guard(brain):
    own = brain.encode("I think the queue is slow", source="inference")
    observed = brain.encode("the queue took 40 s", source="tool-result")
    self_cited = add_derived(
        brain, "the queue is slow: my own inference", source="inference", evidence_episode_ids=(own,)
    )
    supported = add_derived(
        brain, "the queue is slow: observed", source="tool-result", evidence_episode_ids=(own, observed)
    )
    brain.recall("queue is slow", limit=10)
    assert brain.get(self_cited).retrieval_count == 0
    assert brain.get(supported).retrieval_count == 1
    m = brain.get(self_cited)
    assert is_self_citation(m, [("inference", "tester")], "tester")
    assert not is_self_citation(m, [("inference", "tester")], "someone-else")
    assert not is_self_citation(m, [("inference", "tester"), ("told-by-user", "tester")], "tester")
    assert is_self_citation(m, [], "tester")  # no evidence recorded: judged by its own source and agent


def test_provenance(brain):
    a = brain.encode(
        "stripe answered 429 at 120 req/s",
        source="direct-observation",
        causal={"trigger": "batch job", "consequence": "backlog"},
    )
    b = brain.encode("stripe answered 429 at 110 req/s", source="tool-result", supersedes=a)
    c = brain.encode("stripe answered 429 above 100 req/s", source="tool-result", supersedes=b)
    principle = add_derived(brain, "stripe throttles above 100 req/s", evidence_episode_ids=(a, c))
    results = {r.id: r for r in brain.recall("stripe 429 req/s", include_provenance=True, states=["active"])}
    assert [m.id for m in results[c].provenance.supersedes] == [b, a]
    assert [m.id for m in results[principle].provenance.evidence] == [a, c]
    assert results[principle].provenance.evidence[0].causal_trigger == "batch job"
    assert all(r.provenance is None for r in brain.recall("stripe"))


def test_recall_by_vector_matches_recall(brain, clock, embedder):
    populate(brain, clock, n=40)
    by_text = [r.id for r in brain.recall("nightly export job", limit=5, mode="vector")]
    assert [r.id for r in brain.recall_by_vector(embedder.embed(["nightly export job"])[0], limit=5)] == by_text
    with pytest.raises(Exception, match="dimensional"):
        brain.recall_by_vector([0.1, 0.2], limit=5)


def test_recall_options_are_declared_once(brain):
    """recall's keyword arguments, RecallArguments (what recall_by_vector and the adapters pass through) and the set
    recall checks arguments against are one list; a name missing from any of them fails here."""
    signature = inspect.signature(Audrey.recall_stream).parameters
    keywords = {name for name, p in signature.items() if p.kind is p.KEYWORD_ONLY} - {"query_vector"}
    assert keywords == set(RecallArguments.__optional_keys__) == RECALL_ARGUMENTS
    with pytest.raises(InvalidInputError, match="unknown recall options"):
        brain.recall_by_vector([0.0] * brain.embedder.dimensions, limit=5, mood="hybrid")  # type: ignore[call-arg]
    with pytest.raises(InvalidInputError, match="mode must be one of hybrid, vector, keyword"):
        brain.recall("x", mode="fuzzy")  # type: ignore[arg-type]


def test_query_cache_skips_the_model_for_repeated_queries(brain, embedder):
    brain.encode("something to find")
    before = embedder.calls
    for _ in range(3):
        brain.recall("something")
    assert embedder.calls == before + 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"limit": 0},
        {"limit": "5"},
        {"min_confidence": 1.2},
        {"types": "semantic"},
        {"types": ["memories"]},
        {"sources": ["rumour"]},
        {"states": ["asleep"]},
        {"tags": "x"},
        {"types": []},
    ],
)
def test_bad_recall_options(brain, kwargs):
    with pytest.raises(InvalidInputError):
        brain.recall("query", **kwargs)


def test_empty_query_is_refused(brain):
    with pytest.raises(InvalidInputError, match="query"):
        brain.recall("  ")


async def test_async_twins(brain):
    mid = await brain.aencode("async memories work", source="told-by-user")
    assert await brain.aencode_batch(["one more", "and another"])
    hits = await brain.arecall("async memories", limit=1)
    assert hits[0].id == mid
    streamed = []
    async for hit in brain.arecall_stream("memories", limit=3):
        streamed.append(hit.id)
        break
    assert streamed == [mid]
    assert (await brain.aget(mid)).content == "async memories work"
    assert (await brain.aintrospect()).counts["episodic"] == 3
    listed = [m.id async for m in brain.aiter_memories()]
    assert mid in listed and sorted(listed) == sorted(m.id for m in brain.iter_memories())
    vector = await brain.aembed_query("async memories")
    assert vector.shape == (brain.embedder.dimensions,)
    assert set(await brain.avectors([mid])) == {mid}


def test_every_public_method_has_an_async_twin():
    import inspect

    public = {
        name
        for name, member in inspect.getmembers(Audrey)
        if not name.startswith(("_", "a")) and callable(member) and not isinstance(member, type)
    }
    lifecycle = {"on", "off", "confidence"}  # cheap, never blocking: no twin needed
    missing = sorted(name for name in public - lifecycle if not hasattr(Audrey, f"a{name}"))
    assert not missing, f"methods without an async twin: {missing}"


def test_recency_halves_after_one_half_life_in_a_real_recall(brain, clock):
    brain.encode("an episode to watch fade")
    principle = add_derived(brain, "a principle to watch fade", source="direct-observation")
    fresh = {r.memory_type: r.breakdown.recency for r in brain.recall("watch fade", states=["active"])}
    assert fresh == {"episodic": 1.0, "semantic": 1.0}
    clock.advance(days=7)
    week = {r.memory_type: r.breakdown.recency for r in brain.recall("watch fade", types=["episodic"])}
    assert week["episodic"] == pytest.approx(0.5)
    clock.advance(days=23)  # 30 days after creation; the recall above did not touch the principle
    month = brain.recall("watch fade", types=["semantic"])[0]
    assert month.id == principle and month.breakdown.recency == pytest.approx(0.5)


def test_model_generated_memory_stays_capped_however_often_it_is_retrieved(brain, clock):
    other = brain.encode("the user asked about the cache", source="told-by-user")
    guess = add_derived(
        brain,
        "the cache is probably redis",
        source="model-generated",
        salience=1.0,
        evidence_count=40,
        evidence_episode_ids=(other,),
    )
    for _ in range(50):
        hit = brain.recall("cache redis", types=["semantic"])[0]
        clock.advance(minutes=5)
    assert brain.get(guess).retrieval_count == 50  # reinforced (its evidence is not its own agent's inference)
    assert hit.breakdown.retrieval > 0.9 and hit.confidence == 0.6 and hit.breakdown.capped
