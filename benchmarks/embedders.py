"""Which local embedder a quality benchmark runs: the default (ONNX Runtime where it can run) or sentence-transformers,
the same model either way (``--embedder``), so a change of runtime is measured, not assumed."""

from __future__ import annotations

import argparse
from typing import Any

CHOICES = ("default", "onnx", "sentence-transformers")


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--embedder",
        choices=CHOICES,
        default="default",
        help="the local model through the default runtime (ONNX where it can run), ONNX, or sentence-transformers",
    )


def named(name: str) -> Any:
    from audrey_core import OnnxEmbedder, SentenceTransformerEmbedder, local_embedder

    return {"default": local_embedder, "onnx": OnnxEmbedder, "sentence-transformers": SentenceTransformerEmbedder}[
        name
    ]()
