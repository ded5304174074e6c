"""The LlamaIndex vector store keeps agents apart on both backends: nodes of one agent are never read, replaced or
deleted through another agent's store, whatever node ids or document ids it passes."""

from __future__ import annotations

import pytest
from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.types import VectorStoreQuery

from audrey_core import Audrey
from audrey_llamaindex import AudreyVectorStore

from ..conftest import SYNC


def test_vector_stores_of_two_agents_never_touch_each_others_nodes(store_location, embedder):
    with (
        Audrey(store_location, agent="alice", embedder=embedder, config=SYNC) as a,
        Audrey(store_location, agent="alice2", embedder=embedder, config=SYNC) as b,
    ):
        alice, mallory = AudreyVectorStore(audrey=a), AudreyVectorStore(audrey=b)
        node = TextNode(text="alice's vault code is 4711", id_="node-1")
        node.relationships = {}
        alice.add([node])
        assert mallory.get_nodes(node_ids=["node-1"]) == []
        with pytest.raises(ValueError, match="cannot be used"):
            mallory.add([TextNode(text="mallory was here", id_="node-1")])
        mallory.delete_nodes(node_ids=["node-1"])
        mallory.clear()
        found = mallory.query(VectorStoreQuery(query_str="vault code", similarity_top_k=5))
        assert found.ids == []
        assert [n.get_content() for n in alice.get_nodes(node_ids=["node-1"])] == ["alice's vault code is 4711"]
