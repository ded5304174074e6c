"""Fixtures for the LlamaIndex tests."""

from __future__ import annotations

import pytest

from audrey_core import Audrey

from ..conftest import SYNC


@pytest.fixture
def li_brain(tmp_path, embedder, clock):
    with Audrey(tmp_path / "li.db", agent="li", embedder=embedder, clock=clock, config=SYNC) as brain:
        yield brain
