"""AudreyStore, LangGraph's long-term memory store: operations, isolation, filters, paging, index config, graphs."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TypedDict

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from audrey_langchain import AudreyStore


@pytest.fixture
def store(lc_brain):
    return AudreyStore(audrey=lc_brain)


def test_put_get_replace_delete(store):
    store.put(("user", "alice"), "diet", {"text": "Alice is vegetarian", "since": 2019})
    item = store.get(("user", "alice"), "diet")
    assert (item.key, item.namespace, item.value) == (
        "diet",
        ("user", "alice"),
        {"text": "Alice is vegetarian", "since": 2019},
    )
    store.put(("user", "alice"), "diet", {"text": "Alice is vegan now"})
    assert store.get(("user", "alice"), "diet").value == {"text": "Alice is vegan now"}
    assert len(store.search(("user", "alice"))) == 1
    store.delete(("user", "alice"), "diet")
    assert store.get(("user", "alice"), "diet") is None and store.search(("user",)) == []


def test_an_item_that_says_who_said_it_when_and_where_is_stored_as_such(store, lc_brain):
    """A value naming its speaker, conversation and time carries them into the memory (recall reads a turn with
    its speaker and date); the value comes back exactly as it was put."""
    said = {"text": "I moved to Lisbon", "speaker": "Alice", "session": "chat-3", "event_time": "2024-05-01T09:30:00Z"}
    store.put(("user", "alice"), "move", said)
    (memory,) = lc_brain.list_memories(scope_prefix=("user", "alice"))
    assert (memory.speaker, memory.session) == ("Alice", "chat-3")
    assert memory.event_time == datetime(2024, 5, 1, 9, 30, tzinfo=timezone.utc)
    assert store.get(("user", "alice"), "move").value == said


@pytest.mark.parametrize("other", [("user", "john-doe"), ("user", "john%"), ("user", "john_doe2"), ("user", "john")])
def test_namespaces_are_isolated_scopes(store, other):
    store.put(("user", "john_doe"), "k", {"text": "john_doe's secret"})
    store.put(other, "k", {"text": f"{other[1]}'s note"})
    store.put(("user", "john_doe", "nested"), "k", {"text": "john_doe's nested note"})
    mine = {tuple(i.namespace) for i in store.search(("user", "john_doe"), query="secret note", limit=10)}
    assert mine == {("user", "john_doe"), ("user", "john_doe", "nested")}
    theirs = {tuple(i.namespace) for i in store.search(other, query="secret note", limit=10)}
    assert ("user", "john_doe") not in theirs and all(ns[: len(other)] == other for ns in theirs)
    assert store.get(other, "k").value["text"] != "john_doe's secret"


def test_search_scores_filters_and_paging(store, clock):
    for i, (text, kind) in enumerate(
        [
            ("likes hiking in the alps", "hobby"),
            ("works as a nurse", "job"),
            ("likes climbing and hiking", "hobby"),
            ("owns a cat", "pet"),
        ]
    ):
        store.put(("profile",), f"k{i}", {"text": text, "kind": kind, "rank": i})
        clock.advance(seconds=1)
    hits = store.search(("profile",), query="hiking", limit=2)
    assert len(hits) == 2 and all(h.score is not None for h in hits) and hits[0].score >= hits[1].score
    assert {h.value["kind"] for h in store.search(("profile",), filter={"kind": "hobby"})} == {"hobby"}
    assert [h.key for h in store.search(("profile",), filter={"rank": {"$gte": 2}}, limit=10)] == ["k3", "k2"]
    pages = [store.search(("profile",), limit=2, offset=o) for o in (0, 2)]
    assert [h.key for page in pages for h in page] == ["k3", "k2", "k1", "k0"] and pages[0][0].score is None
    offset_hits = store.search(("profile",), query="hiking", limit=1, offset=1)
    assert offset_hits[0].key == hits[1].key
    with pytest.raises(ValueError, match="nested objects"):
        store.search(("profile",), filter={"text": {"nested": 1}})


def test_list_namespaces(store):
    for ns in [("a", "x"), ("a", "y", "z"), ("b", "x"), ("c",)]:
        store.put(ns, "k", {"text": "v"})
    store.audrey.encode("a memory outside any namespace")  # never listed as a namespace
    assert store.list_namespaces() == [("a", "x"), ("a", "y", "z"), ("b", "x"), ("c",)]
    assert store.list_namespaces(prefix=("a",)) == [("a", "x"), ("a", "y", "z")]
    assert store.list_namespaces(suffix=("x",)) == [("a", "x"), ("b", "x")]
    assert store.list_namespaces(max_depth=1) == [("a",), ("b",), ("c",)]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "y", "z"), ("b", "x")]
    assert store.search((), query="memory outside", limit=10)[0].namespace != ()


def test_batch_runs_in_order_and_last_put_wins(store):
    results = store.batch(
        [
            PutOp(("n",), "k", {"text": "first"}),
            PutOp(("n",), "k", {"text": "second"}),
            GetOp(("n",), "k"),
            PutOp(("n",), "k", None),
            GetOp(("n",), "k"),
            SearchOp(("n",), limit=5),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("n",)),)),
        ]
    )
    assert results[:2] == [None, None] and results[2].value == {"text": "second"}
    assert results[4] is None and results[5] == [] and results[6] == []


async def test_async_batch(store):
    await store.aput(("async",), "k", {"text": "async value"})
    assert (await store.aget(("async",), "k")).value == {"text": "async value"}
    assert [i.key for i in await store.asearch(("async",), query="value")] == ["k"]


def test_index_config_fields_and_embed(tmp_path):
    store = AudreyStore(
        index={"dims": 16, "embed": DeterministicFakeEmbedding(size=16), "fields": ["summary"]},
        path=str(tmp_path / "idx.db"),
    )
    store.put(("docs",), "a", {"summary": "alpha release notes", "body": "long text"})
    store.put(("docs",), "b", {"summary": "beta release notes"}, index=False)
    assert store.audrey.get(store._memory_id(("docs",), "a")).content == "alpha release notes"
    assert store.search(("docs",), query="alpha release notes", limit=1)[0].key == "a"
    assert store.audrey.embedder.model_name == "DeterministicFakeEmbedding"
    store.close()


def test_no_argument_store_uses_the_local_default(monkeypatch):
    store = AudreyStore()
    assert store.audrey.embedder.model_name == "all-MiniLM-L6-v2" and store.audrey.location == ":memory:"
    store.close()


def test_works_in_a_compiled_state_graph(store):
    class State(TypedDict):
        user: str
        fact: str
        recalled: str

    def remember(state: State, runtime: Runtime) -> dict:
        runtime.store.put(("facts", state["user"]), "latest", {"text": state["fact"]})
        return {}

    def recall(state: State, runtime: Runtime) -> dict:
        hits = runtime.store.search(("facts", state["user"]), query=state["fact"], limit=1)
        return {"recalled": hits[0].value["text"] if hits else ""}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=store)
    out = graph.invoke({"user": "u1", "fact": "the printer is on floor 2", "recalled": ""})
    assert out["recalled"] == "the printer is on floor 2"
    assert graph.invoke({"user": "u2", "fact": "x", "recalled": ""})["recalled"] == "x"
    assert {tuple(ns) for ns in store.list_namespaces(prefix=("facts",))} == {("facts", "u1"), ("facts", "u2")}
