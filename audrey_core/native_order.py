"""onnxruntime, when installed, is imported before usearch.

usearch 2.26.2 and later link libstdc++ statically and export its symbols; onnxruntime 1.23 and later, imported
after it in the same process, crash at import (a segmentation fault in ``std::codecvt``, measured with usearch 2.26.6
and onnxruntime 1.23.2 to 1.32.0; usearch 2.26.1 and onnxruntime 1.22.1 do not). Imported first, both work: the
local embedder (:mod:`audrey_core.providers.onnx_local`) imports onnxruntime only when it first embeds, which is
usually after a store (and so usearch) was opened. So :func:`first` runs before the index package imports usearch
(~75 ms where onnxruntime is installed, nothing elsewhere), and the embedder is chosen only where importing
onnxruntime is safe (:func:`onnxruntime_importable`: not where the caller imported usearch first).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from importlib.metadata import PackageNotFoundError, version

CRASHING_USEARCH = (2, 26, 2)  # from this version on, with onnxruntime from CRASHING_ONNXRUNTIME on
CRASHING_ONNXRUNTIME = (1, 23)
WHY = "import audrey_core before usearch (or onnxruntime first); sentence-transformers embeds instead"


def first() -> None:
    """Import onnxruntime now, if it is installed and usearch is not imported yet."""
    if "usearch.compiled" not in sys.modules and importlib.util.find_spec("onnxruntime") is not None:
        import onnxruntime  # noqa: F401


def onnxruntime_importable() -> bool:
    """Whether importing onnxruntime now is safe: it is imported already, usearch is not, or their versions do not
    crash together."""
    if "onnxruntime" in sys.modules or "usearch.compiled" not in sys.modules:
        return True
    return _version("usearch") < CRASHING_USEARCH or _version("onnxruntime") < CRASHING_ONNXRUNTIME


def _version(package: str) -> tuple[int, ...]:
    try:
        text = version(package)
    except PackageNotFoundError:
        return ()
    leading = (re.match(r"\d+", part) for part in text.split(".")[:3])  # "23rc1" -> 23, "dev0" -> 0
    return tuple(int(found.group()) if found else 0 for found in leading)
