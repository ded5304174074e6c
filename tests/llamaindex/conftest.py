"""Fixtures for the LlamaIndex tests: Audrey on a real SQLite file with the default local model (what a prompt is
shown depends on what a real model finds similar: the relevance floor is a cosine under it)."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core", reason="the llamaindex extra is not installed")

from audrey_core import Audrey, local_embedder

from ..conftest import SYNC


@pytest.fixture
def li_brain(tmp_path, clock):
    with Audrey(tmp_path / "li.db", agent="li", embedder=local_embedder(), clock=clock, config=SYNC) as brain:
        yield brain
