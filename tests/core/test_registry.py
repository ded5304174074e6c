"""Third-party providers registered through entry points: the CLI reopens a store built with an embedder that only an
installed distribution knows, in a fresh interpreter that finds it the way pip-installed plugins are found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from audrey_core import Audrey, ConfigurationError
from audrey_core.providers.registry import embedder_for, llm_for, registered
from audrey_core.testing import DeterministicEmbedder

PLUGIN = '''
from audrey_core.testing import DeterministicEmbedder


class MyCorpEmbedder(DeterministicEmbedder):
    """A third party's embedder: Audrey knows nothing of it but its entry point."""

    def __init__(self, model_name="mycorp-embed-v1", dimensions=None):
        super().__init__(dimensions or 24)
        self.model_name = model_name


def make_embedder(model_name, dimensions):
    return MyCorpEmbedder(model_name, dimensions)


class Echo:
    def __init__(self, model_name, base_url):
        self.model_name, self.base_url = model_name, base_url

    def complete(self, messages):
        return messages[-1]["content"]
'''
ENTRY_POINTS = """
[audrey.embedders]
mycorp-embed-v1 = mycorp_audrey:make_embedder
mycorp-* = mycorp_audrey:MyCorpEmbedder

[audrey.llms]
mycorp-chat = mycorp_audrey:Echo
broken-* = mycorp_audrey:missing_name
"""


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """An installed distribution as pip leaves one in site-packages: a module and its dist-info."""
    site = tmp_path / "site"
    info = site / "mycorp_audrey-1.0.dist-info"
    info.mkdir(parents=True)
    (site / "mycorp_audrey.py").write_text(textwrap.dedent(PLUGIN))
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mycorp-audrey\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(site))
    return site


def test_the_cli_reopens_a_store_built_with_a_registered_embedder(plugin, tmp_path):
    import mycorp_audrey

    db = tmp_path / "store.db"
    with Audrey(db, embedder=mycorp_audrey.make_embedder("mycorp-embed-v1", 24)) as brain:
        mid = brain.encode("the deploy freeze starts on friday", source="told-by-user")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "audrey_core.admin.cli", "--db", str(db), "--json", "recall", "deploy freeze"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [hit["id"] for hit in json.loads(done.stdout)] == [mid]
    without = subprocess.run(command, capture_output=True, text=True, timeout=120)  # the plugin not installed
    assert without.returncode != 0 and "mycorp-embed-v1" in without.stderr


def test_exact_names_win_over_prefixes_and_built_ins_stay_built_in(plugin):
    exact = embedder_for("mycorp-embed-v1", 24)
    assert (exact.model_name, exact.dimensions) == ("mycorp-embed-v1", 24)
    by_prefix = embedder_for("mycorp-embed-v2", 32)
    assert (by_prefix.model_name, by_prefix.dimensions) == ("mycorp-embed-v2", 32)
    assert isinstance(embedder_for("deterministic-hash-16"), DeterministicEmbedder)
    assert registered("audrey.embedders", "all-MiniLM-L6-v2") is None
    llm = llm_for("mycorp-chat", "http://localhost:9")
    assert (llm.base_url, llm.complete([{"role": "user", "content": "hi"}])) == ("http://localhost:9", "hi")


def test_a_registered_provider_that_cannot_load_says_which(plugin):
    with pytest.raises(ConfigurationError, match=r"'broken-\*' .*cannot be loaded"):
        llm_for("broken-model")
