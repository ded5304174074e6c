"""Fixtures for the LlamaIndex tests."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core", reason="the llamaindex extra is not installed")

from audrey_core import Audrey

from ..conftest import SYNC


@pytest.fixture
def li_brain(tmp_path, embedder, clock):
    with Audrey(tmp_path / "li.db", agent="li", embedder=embedder, clock=clock, config=SYNC) as brain:
        yield brain
