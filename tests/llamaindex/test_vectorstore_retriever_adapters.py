"""AudreyVectorStore with a real VectorStoreIndex, every filter operator, AudreyRetriever, and both adapters."""

from __future__ import annotations

import json

import pytest
from llama_index.core import Document, StorageContext, VectorStoreIndex
from llama_index.core.llms import MockLLM
from llama_index.core.schema import MetadataMode
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
)

from audrey_core import Audrey
from audrey_core.providers.llm import ask
from audrey_core.rules.prompts import CONTRADICTION_CHECK
from audrey_llamaindex import AudreyRetriever, AudreyVectorStore, LlamaIndexEmbedder, LlamaIndexLLM

from ..conftest import SYNC
from .fakes import HashEmbedding, ScriptedLLM

DOCS = [
    Document(
        text="Stripe throttles above 100 requests per second",
        metadata={"team": "payments", "year": 2023},
        doc_id="d-stripe",
    ),
    Document(text="The build server lives in rack 4", metadata={"team": "infra", "year": 2024}, doc_id="d-rack"),
    Document(
        text="Payments retries use exponential backoff", metadata={"team": "payments", "year": 2025}, doc_id="d-retry"
    ),
]


@pytest.fixture
def index(tmp_path, clock):
    embed_model = HashEmbedding()
    brain = Audrey(tmp_path / "vs.db", embedder=LlamaIndexEmbedder(embed_model), clock=clock, config=SYNC)
    store = AudreyVectorStore(audrey=brain)
    index = VectorStoreIndex.from_documents(
        DOCS, storage_context=StorageContext.from_defaults(vector_store=store), embed_model=embed_model
    )
    yield index, store, brain
    brain.close()


def test_index_round_trip_returns_the_stored_metadata_exactly_by_default(index):
    """Built as README shows it: nodes come back as stored (LlamaIndex's own stores do so; a pipeline that
    re-stores or compares nodes needs it), the score in NodeWithScore."""
    idx, store, _ = index
    nodes = idx.as_retriever(similarity_top_k=1).retrieve("how fast can we call Stripe?")
    node = nodes[0].node
    assert node.get_content() == DOCS[0].text and node.ref_doc_id == "d-stripe"
    assert node.metadata == DOCS[0].metadata and 0 < nodes[0].score <= 1
    assert [n.metadata for n in store.get_nodes(node_ids=[node.node_id])] == [DOCS[0].metadata]


def test_a_node_that_says_who_said_it_when_and_where_is_stored_as_such(index):
    """A node's metadata naming its speaker, conversation and time carries them into the memory; the node still
    comes back exactly as it was added."""
    idx, store, brain = index
    said = {"speaker": "Alice", "session": "chat-3", "event_time": "2024-05-01T09:30:00+00:00", "source": "inference"}
    idx.insert(Document(text="I moved to Lisbon", metadata=said, doc_id="d-move"))
    (memory,) = [m for m in brain.list_memories() if m.content == "I moved to Lisbon"]
    assert (memory.speaker, memory.session, memory.source) == ("Alice", "chat-3", "inference")
    assert memory.event_time is not None and memory.event_time.isoformat() == said["event_time"]
    assert [n.metadata for n in store.get_nodes(node_ids=[memory.id])] == [said]


def test_audrey_metadata_adds_audreys_fields_for_the_llm_not_the_embedding(index):
    idx, store, brain = index
    store.audrey_metadata = True
    nodes = idx.as_retriever(similarity_top_k=1).retrieve("how fast can we call Stripe?")
    node = nodes[0].node
    assert node.metadata["team"] == "payments" and node.metadata["memory_type"] == "episodic"
    assert 0 < node.metadata["confidence"] <= 1 and node.metadata["state"] == "active"
    assert "confidence" in node.get_content(metadata_mode=MetadataMode.LLM)
    assert "confidence" not in node.get_content(metadata_mode=MetadataMode.EMBED)
    assert nodes[0].score == pytest.approx(
        brain.recall("how fast can we call Stripe?", limit=1, mode="vector")[0].score
    )
    # the index's query engine answers from the stored text (MockLLM echoes its prompt)
    answer = idx.as_query_engine(llm=MockLLM(), similarity_top_k=1).query("rack of the build server")
    assert "rack 4" in str(answer)


def test_delete_by_ref_doc_id_and_node_access(index):
    idx, store, brain = index
    idx.delete_ref_doc("d-rack")
    assert all(n.node.ref_doc_id != "d-rack" for n in idx.as_retriever(similarity_top_k=5).retrieve("rack"))
    ids = [m.id for m in brain.list_memories(limit=10)]
    assert [n.node_id for n in store.get_nodes(node_ids=ids)] == ids
    store.delete_nodes(node_ids=ids[:1])
    assert len(brain.list_memories(limit=10)) == 1
    store.clear()
    assert brain.list_memories(limit=10) == []


CASES = [
    (FilterOperator.EQ, "team", "payments", {"d-stripe", "d-retry"}),
    (FilterOperator.NE, "team", "payments", {"d-rack"}),
    (FilterOperator.GT, "year", 2024, {"d-retry"}),
    (FilterOperator.LT, "year", 2024, {"d-stripe"}),
    (FilterOperator.GTE, "year", 2024, {"d-rack", "d-retry"}),
    (FilterOperator.LTE, "year", 2024, {"d-stripe", "d-rack"}),
    (FilterOperator.IN, "team", ["infra", "legal"], {"d-rack"}),
    (FilterOperator.NIN, "team", ["infra", "legal"], {"d-stripe", "d-retry"}),
]


@pytest.mark.parametrize("operator,key,value,expected", CASES, ids=[c[0].name for c in CASES])
def test_every_filter_operator(index, operator, key, value, expected):
    _, store, _ = index
    filters = MetadataFilters(filters=[MetadataFilter(key=key, value=value, operator=operator)])
    query = VectorStoreQuery(
        query_embedding=HashEmbedding().get_query_embedding("anything"), similarity_top_k=10, filters=filters
    )
    assert {n.ref_doc_id for n in store.query(query).nodes} == expected


@pytest.mark.parametrize(
    "condition,expected", [(FilterCondition.AND, {"d-retry"}), (FilterCondition.OR, {"d-stripe", "d-rack", "d-retry"})]
)
def test_and_or_and_nested_filters(index, condition, expected):
    idx, _, _ = index
    filters = MetadataFilters(
        condition=condition,
        filters=[
            MetadataFilter(key="team", value="payments"),
            MetadataFilters(filters=[MetadataFilter(key="year", value=2025, operator=FilterOperator.GTE)]),
        ],
    )
    if condition == FilterCondition.OR:
        filters.filters.append(MetadataFilter(key="team", value="infra"))
    retriever = idx.as_retriever(similarity_top_k=10, filters=filters)
    assert {n.node.ref_doc_id for n in retriever.retrieve("payments")} == expected


def test_unsupported_filters_and_queries_say_so(index):
    _, store, _ = index
    bad = MetadataFilters(filters=[MetadataFilter(key="team", value="x", operator=FilterOperator.TEXT_MATCH)])
    with pytest.raises(ValueError, match="text_match"):
        store.query(VectorStoreQuery(query_str="x", filters=bad))
    with pytest.raises(ValueError, match="node_ids"):
        store.query(VectorStoreQuery(query_str="x", node_ids=["a"]))
    with pytest.raises(ValueError, match="query_embedding or query_str"):
        store.query(VectorStoreQuery())


async def test_audrey_retriever_ranks_by_audreys_score(li_brain):
    solid = li_brain.encode("the deploy freeze starts on Friday", source="told-by-user")
    li_brain.encode("the deploy freeze probably starts on Friday", source="model-generated")
    retriever = AudreyRetriever(li_brain, similarity_top_k=2)
    nodes = retriever.retrieve("when does the deploy freeze start?")
    assert nodes[0].node.node_id == solid and nodes[0].score >= nodes[1].score
    assert nodes[0].node.metadata["source"] == "told-by-user" and "confidence" in nodes[0].node.metadata
    assert [n.node.node_id for n in await retriever.aretrieve("deploy freeze")] == [n.node.node_id for n in nodes]
    assert len(AudreyRetriever(li_brain, similarity_top_k=1, sources=["told-by-user"]).retrieve("freeze")) == 1
    with pytest.raises(ValueError):
        AudreyRetriever(li_brain, similarity_top_k=0)


def test_llm_and_embedding_adapters(tmp_path):
    embedder = LlamaIndexEmbedder(HashEmbedding())
    assert embedder.model_name == "hash-embedding" and embedder.dimensions == 384
    with Audrey(tmp_path / "a.db", embedder=embedder, config=SYNC) as brain:
        mid = brain.encode("an exact sentence to find")
        assert brain.recall("an exact sentence to find", limit=1)[0].id == mid
    reply = json.dumps({"relation": "supports", "reason": "same claim"})
    llm = LlamaIndexLLM(ScriptedLLM(replies=[reply]))
    assert ask(llm, CONTRADICTION_CHECK, existing="a", incoming="b").relation == "supports"
    assert llm.model_name == "scripted-llamaindex-llm"
    with pytest.raises(TypeError):
        LlamaIndexLLM("gpt")
    with pytest.raises(TypeError):
        LlamaIndexEmbedder(object())


def test_nodes_added_with_a_ttl_expire(index, clock):
    idx, store, brain = index
    store.ttl = 60.0
    idx.insert(Document(text="The canteen closes early today", doc_id="d-canteen"))
    store.add([Document(text="Parking is free this week", doc_id="d-parking")], ttl=600)
    query = "when does the canteen close and is parking free?"
    assert {n.node.ref_doc_id for n in idx.as_retriever(similarity_top_k=5).retrieve(query)} >= {"d-canteen"}
    clock.advance(seconds=60)
    found = {n.node.ref_doc_id or n.node.node_id for n in idx.as_retriever(similarity_top_k=5).retrieve(query)}
    assert "d-canteen" not in found and "d-parking" in found
    clock.advance(seconds=540)
    assert len(brain.sweep_expired()) == 2
