"""The LangChain surfaces keep tenants apart on both backends: two agents (or two scopes) sharing one store never
read, replace or delete each other's documents and items, whatever ids, keys or namespaces they pass."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from audrey_core import Audrey
from audrey_langchain import AudreyStore, AudreyVectorStore

from ..conftest import SYNC


def brain(location, embedder, agent, scope=None):
    return Audrey(location, agent=agent, embedder=embedder, config=SYNC, scope=scope)


def test_vector_stores_of_two_agents_never_touch_each_others_documents(store_location, embedder):
    with brain(store_location, embedder, "alice") as a, brain(store_location, embedder, "alice2") as b:
        alice, mallory = AudreyVectorStore(audrey=a), AudreyVectorStore(audrey=b)
        (secret,) = alice.add_documents([Document("alice's vault code is 4711", metadata={"k": 1})], ids=["doc-1"])
        assert mallory.get_by_ids([secret]) == []
        with pytest.raises(ValueError, match="cannot be used"):
            mallory.add_documents([Document("mallory was here")], ids=[secret])
        mallory.delete([secret])
        mallory.delete()  # "everything" is everything of mallory's
        assert all("4711" not in d.page_content for d in mallory.similarity_search("vault code", k=10))
        assert [d.page_content for d in alice.get_by_ids([secret])] == ["alice's vault code is 4711"]
        assert alice.similarity_search("vault code", k=1)[0].id == secret


def test_langgraph_stores_keep_agents_and_scopes_apart(store_location, embedder):
    with brain(store_location, embedder, "alice") as a, brain(store_location, embedder, "alice2") as b:
        alice, mallory = AudreyStore(audrey=a), AudreyStore(audrey=b)
        alice.put(("users", "john"), "profile", {"text": "john's vault code is 4711"})
        assert mallory.get(("users", "john"), "profile") is None
        mallory.put(("users", "john"), "profile", {"text": "mallory's own item"})  # a separate item of its own
        mallory.delete(("users", "john"), "profile")
        assert alice.get(("users", "john"), "profile").value == {"text": "john's vault code is 4711"}
        assert mallory.search(("users",), query="vault code") == []
        assert mallory.list_namespaces() == []
    with brain(store_location, embedder, "alice", scope=("users", "john_doe")) as doe_brain:
        doe = AudreyStore(audrey=doe_brain)
        assert doe.get(("users", "john"), "profile") is None
        assert doe.search(("users", "john_doe"), query="vault code") == []
        with pytest.raises(ValueError, match="outside this instance's scope"):
            doe.search(("users",), query="vault code")
        with pytest.raises(ValueError, match="outside this instance's scope"):
            doe.put(("users", "john"), "profile", {"text": "overwritten"})
    with brain(store_location, embedder, "alice") as a:
        assert AudreyStore(audrey=a).get(("users", "john"), "profile").value == {"text": "john's vault code is 4711"}
