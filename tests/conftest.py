"""Fixtures shared by every test package: a deterministic embedder, a manual clock and a file-backed Audrey."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing in the suite may reach a model hub

from audrey_core import Audrey, AudreyConfig, native_order
from audrey_core.config import ValidationConfig
from audrey_core.testing import DeterministicEmbedder, ManualClock

native_order.first()  # test modules import usearch themselves: onnxruntime before it (see native_order)


@pytest.fixture
def embedder() -> DeterministicEmbedder:
    return DeterministicEmbedder()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


BACKENDS = ("sqlite", "postgres")


def pytest_generate_tests(metafunc):
    """Core and pipeline behaviour tests run on every backend, through ``db_path``; a test that reads SQLite's own
    tables says so with ``@pytest.mark.sqlite_only``."""
    if "db_path" in metafunc.fixturenames:
        shared = metafunc.module.__name__.startswith("tests.core") and not metafunc.definition.get_closest_marker(
            "sqlite_only"
        )
        metafunc.parametrize("backend", BACKENDS if shared else BACKENDS[:1], indirect=True)


@pytest.fixture
def backend(request) -> str:
    return request.param


@pytest.fixture
def db_path(tmp_path, backend):
    """Where the test's store lives: an SQLite file, or a fresh PostgreSQL schema's URL."""
    if backend == "postgres":
        from .postgres_server import fresh_database_url

        return fresh_database_url()
    return tmp_path / "audrey.db"


SYNC = AudreyConfig(validation=ValidationConfig(background=False))  # validation inside encode(): deterministic tests


@pytest.fixture
def brain(db_path, embedder, clock):
    with Audrey(path=db_path, agent="tester", embedder=embedder, clock=clock, config=SYNC) as instance:
        yield instance


@pytest.fixture(params=BACKENDS)
def store_location(request, tmp_path):
    """An SQLite file or a fresh PostgreSQL schema, for adapter tests that must hold on both backends."""
    if request.param == "postgres":
        from .postgres_server import fresh_database_url

        return fresh_database_url()
    return str(tmp_path / "shared.db")


@pytest.fixture
def both_locations(tmp_path):
    """An SQLite file and a fresh PostgreSQL schema, for tests that give both backends the same calls."""
    from .postgres_server import fresh_database_url

    return [str(tmp_path / "both.db"), fresh_database_url()]


@pytest.fixture
def both_brains(both_locations, embedder):
    """The same agent on SQLite and on PostgreSQL."""
    brains = [Audrey(location, agent="prop", embedder=embedder, config=SYNC) for location in both_locations]
    yield brains
    for brain in brains:
        brain.close()
