"""Fixtures for the LangChain tests: Audrey on a real SQLite file with the deterministic embedder."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
pytest.importorskip("langchain", reason="the langchain extra is not installed")
pytest.importorskip("langgraph", reason="the langchain extra is not installed")

from audrey_core import Audrey

from ..conftest import SYNC


@pytest.fixture
def lc_brain(tmp_path, embedder, clock):
    with Audrey(tmp_path / "lc.db", agent="lc", embedder=embedder, clock=clock, config=SYNC) as brain:
        yield brain
