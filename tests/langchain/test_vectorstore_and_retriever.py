"""AudreyVectorStore and AudreyRetriever beyond the standard suites: Audrey's fields, filters, MMR, LCEL, adapters."""

from __future__ import annotations

import json

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda

from audrey_core import Audrey
from audrey_core.providers.llm import ask
from audrey_core.rules.prompts import CONTRADICTION_CHECK
from audrey_langchain import AudreyRetriever, AudreyVectorStore, LangChainEmbedder, LangChainLLM

STORED = [
    Document("the user is vegetarian", metadata={"source": "told-by-user", "salience": 0.9, "tags": ["diet"]}),
    Document("docs loaded from disk", metadata={"source": "/data/notes.txt"}),  # a loader's path, not a source
]


def test_metadata_maps_to_audreys_fields_and_comes_back_as_stored(lc_brain):
    store = AudreyVectorStore(audrey=lc_brain)
    ids = store.add_documents(STORED)
    told = lc_brain.get(ids[0])
    assert (told.source, told.salience, told.tags) == ("told-by-user", 0.9, ("diet",))
    assert lc_brain.get(ids[1]).source == "direct-observation"
    found = store.similarity_search("what does the user eat?", k=2)
    assert {d.id: d.metadata for d in found} == {i: d.metadata for i, d in zip(ids, STORED)}  # exactly as stored
    assert [d.metadata for d in store.get_by_ids(ids)] == [d.metadata for d in STORED]
    vector = lc_brain.embed_query("what does the user eat?").tolist()
    assert [d.metadata for d in store.similarity_search_by_vector(vector, k=1)] == [STORED[0].metadata]


def test_texts_added_with_a_ttl_expire(lc_brain, clock):
    store = AudreyVectorStore(audrey=lc_brain)
    brief, lasting = store.add_texts(["the guest wifi code is 1234"], ttl=60) + store.add_texts(["the wifi is slow"])
    assert {d.id for d in store.similarity_search("wifi", k=5)} == {brief, lasting}
    clock.advance(seconds=60)
    assert [d.id for d in store.similarity_search("wifi", k=5)] == [lasting]
    assert store.get_by_ids([brief]) == []


def test_scored_searches_add_audreys_fields_and_the_switch_sets_them_everywhere_or_nowhere(lc_brain):
    ids = AudreyVectorStore(audrey=lc_brain).add_documents(STORED)
    for method in ("similarity_search_with_score", "similarity_search_with_relevance_scores"):
        doc, _ = getattr(AudreyVectorStore(audrey=lc_brain), method)("what does the user eat?", k=1)[0]
        assert doc.id == ids[0] and doc.metadata["memory_type"] == "episodic" and doc.metadata["state"] == "active"
        assert doc.metadata["source"] == "told-by-user" and 0.0 < doc.metadata["confidence"] <= 1.0
    everywhere = AudreyVectorStore(audrey=lc_brain, audrey_metadata=True)
    assert 0.0 < everywhere.similarity_search("what does the user eat?", k=1)[0].metadata["confidence"] <= 1.0
    loaded = everywhere.get_by_ids([ids[1]])[0]
    assert loaded.metadata["source"] == "/data/notes.txt"  # the caller's value is never overwritten...
    assert loaded.metadata["audrey_source"] == "direct-observation"  # ...Audrey's goes beside it
    nowhere = AudreyVectorStore(audrey=lc_brain, audrey_metadata=False)
    doc, _ = nowhere.similarity_search_with_score("what does the user eat?", k=1)[0]
    assert doc.metadata == STORED[0].metadata


def test_scores_relevance_and_filters(lc_brain):
    store = AudreyVectorStore(audrey=lc_brain)
    store.add_texts(
        ["stripe limits in live mode", "stripe limits in test mode", "the cafeteria menu"],
        metadatas=[{"mode": "live", "n": 1}, {"mode": "test", "n": 2}, {"n": 3}],
    )
    scored = store.similarity_search_with_score("stripe limits", k=3)
    assert [s for _, s in scored] == sorted((s for _, s in scored), reverse=True)
    relevance = store.similarity_search_with_relevance_scores("stripe limits", k=3)
    assert all(0.0 <= r <= 1.0 for _, r in relevance)
    assert [d.metadata["mode"] for d in store.similarity_search("stripe", k=3, filter={"mode": "test"})] == ["test"]
    assert len(store.similarity_search("stripe", k=3, filter={"n": {"$gte": 2}})) == 2
    vector = store.audrey.embed_query("the cafeteria menu").tolist()
    assert store.similarity_search_by_vector(vector, k=1)[0].page_content == "the cafeteria menu"


def test_mmr_prefers_diverse_results(lc_brain):
    store = AudreyVectorStore(audrey=lc_brain)
    store.add_texts(["deploy on friday", "deploy on friday afternoon", "deploy on friday evening", "rollback plan"])
    plain = [d.page_content for d in store.similarity_search("deploy friday rollback", k=2, mode="vector")]
    diverse = [
        d.page_content
        for d in store.max_marginal_relevance_search("deploy friday rollback", k=2, fetch_k=4, lambda_mult=0.3)
    ]
    assert "rollback plan" in diverse and plain != diverse


def test_construction_forms_and_delete_all(tmp_path):
    store = AudreyVectorStore.from_texts(
        ["a", "b"], DeterministicFakeEmbedding(size=8), ids=["1", "2"], path=tmp_path / "vs.db", agent="kb"
    )
    assert store.audrey.agent == "kb" and [d.id for d in store.get_by_ids(["2", "1", "9"])] == ["2", "1"]
    store.delete()
    assert store.similarity_search("a", k=5) == []
    store.close()
    with pytest.raises(ValueError, match="either audrey="):
        AudreyVectorStore(
            DeterministicFakeEmbedding(size=8),
            audrey=Audrey(embedder=LangChainEmbedder(DeterministicFakeEmbedding(size=8))),
        )


async def test_async_paths(lc_brain):
    store = AudreyVectorStore(audrey=lc_brain)
    ids = await store.aadd_texts(["async memory one", "async memory two"])
    assert [d.id for d in await store.aget_by_ids(ids)] == ids
    assert (await store.asimilarity_search("memory two", k=1))[0].id == ids[1]
    await store.adelete([ids[0]])
    assert [d.id for d in await store.asimilarity_search("memory", k=5)] == [ids[1]]


def test_retriever_ranks_by_confidence_with_provenance_and_runs_in_lcel(lc_brain):
    episode = lc_brain.encode("the build broke after the schema migration", source="tool-result")
    lc_brain.encode("maybe the build broke because of the schema migration", source="model-generated")
    fix = lc_brain.encode("the build broke after the migration; rerun it", supersedes=episode)
    retriever = AudreyRetriever(audrey=lc_brain, k=2, include_provenance=True)
    docs = retriever.invoke("why did the build break?")
    assert docs[0].id == fix and docs[0].metadata["confidence"] > docs[1].metadata["confidence"]
    assert docs[0].metadata["provenance"]["supersedes"][0]["id"] == episode
    assert len(retriever.invoke("build", k=1)) == 1
    assert AudreyRetriever(audrey=lc_brain, min_confidence=0.7).invoke("build broke")[0].metadata["source"] != (
        "model-generated"
    )
    prompt = ChatPromptTemplate.from_messages([("system", "Context:\n{context}"), ("human", "{question}")])
    model = FakeListChatModel(responses=["Rerun the migration."])
    chain = (
        {
            "context": retriever | RunnableLambda(lambda ds: "\n".join(d.page_content for d in ds)),
            "question": RunnableLambda(lambda q: q),
        }
        | prompt
        | model
        | StrOutputParser()
    )
    assert chain.invoke("why did the build break?") == "Rerun the migration."


def test_langchain_embeddings_as_audreys_embedder(tmp_path):
    embedder = LangChainEmbedder(DeterministicFakeEmbedding(size=16))
    assert embedder.dimensions == 16 and embedder.model_name == "DeterministicFakeEmbedding"
    with Audrey(tmp_path / "e.db", embedder=embedder) as brain:
        mid = brain.encode("remember this exact sentence")
        assert brain.recall("remember this exact sentence", limit=1)[0].id == mid
    probed = LangChainEmbedder(DeterministicFakeEmbedding(size=12), model_name="custom")
    probed._dimensions = None
    assert probed.dimensions == 12
    with pytest.raises(TypeError, match="Embeddings"):
        LangChainEmbedder(object())


def test_langchain_chat_model_as_audreys_llm():
    reply = json.dumps({"relation": "contradicts", "reason": "different numbers"})
    llm = LangChainLLM(FakeListChatModel(responses=[reply]))
    assert ask(llm, CONTRADICTION_CHECK, existing="100 req/s", incoming="25 req/s").relation == "contradicts"
    with pytest.raises(TypeError, match="chat model"):
        LangChainLLM("gpt")
