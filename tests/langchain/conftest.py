"""Fixtures for the LangChain tests: Audrey on a real SQLite file with the default local model (what a prompt is
shown depends on what a real model finds similar: the relevance floor is a cosine under it)."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
pytest.importorskip("langchain", reason="the langchain extra is not installed")
pytest.importorskip("langgraph", reason="the langchain extra is not installed")

from audrey_core import Audrey, local_embedder

from ..conftest import SYNC


@pytest.fixture
def lc_brain(tmp_path, clock):
    with Audrey(tmp_path / "lc.db", agent="lc", embedder=local_embedder(), clock=clock, config=SYNC) as brain:
        yield brain
