"""Fixtures shared by every test package: a deterministic embedder, a manual clock and a file-backed Audrey."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing in the suite may reach a model hub

from audrey_core import Audrey, AudreyConfig
from audrey_core.config import ValidationConfig
from audrey_core.testing import DeterministicEmbedder, ManualClock


@pytest.fixture
def embedder() -> DeterministicEmbedder:
    return DeterministicEmbedder()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "audrey.db"


SYNC = AudreyConfig(validation=ValidationConfig(background=False))  # validation inside encode(): deterministic tests


@pytest.fixture
def brain(db_path, embedder, clock):
    with Audrey(path=db_path, agent="tester", embedder=embedder, clock=clock, config=SYNC) as instance:
        yield instance
