"""LangChain's own standard test suites, run unmodified against AudreyVectorStore and AudreyRetriever."""

from __future__ import annotations

from collections.abc import Generator

import pytest
from langchain_core.vectorstores import VectorStore
from langchain_tests.integration_tests import RetrieversIntegrationTests, VectorStoreIntegrationTests

from audrey_core import Audrey
from audrey_core.testing import DeterministicEmbedder
from audrey_langchain import AudreyRetriever, AudreyVectorStore


class TestAudreyVectorStore(VectorStoreIntegrationTests):
    """Sync and async variants (has_sync / has_async default to True), on the store built as README shows it: the
    suite compares returned documents with what was stored, which the default keeps exact."""

    @pytest.fixture
    def vectorstore(self) -> Generator[VectorStore, None, None]:
        store = AudreyVectorStore(embedding=self.get_embeddings(), path=":memory:")
        try:
            yield store
        finally:
            store.close()


@pytest.fixture(scope="module")
def filled_audrey():
    brain = Audrey(":memory:", embedder=DeterministicEmbedder())
    brain.encode_batch([f"note {i} about the deployment pipeline" for i in range(6)])
    yield brain
    brain.close()


class TestAudreyRetriever(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _brain(self, filled_audrey):
        self.brain = filled_audrey

    @property
    def retriever_constructor(self) -> type[AudreyRetriever]:
        return AudreyRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"audrey": self.brain}

    @property
    def retriever_query_example(self) -> str:
        return "deployment pipeline"
