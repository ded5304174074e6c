"""What a cosine means under the store's embedding model.

Similarity thresholds are written for all-MiniLM-L6-v2. Under another model the same cosine can mean something else:
unrelated sentences meet at 0.06 under all-MiniLM-L6-v2 but at 0.7 under some models, where a cosine of 0.80 that only
restatements reach under the first is routine. So a store records its model's baseline, the mean cosine between
:data:`.reference_texts.REFERENCE_TEXTS` (sentences on unrelated subjects, the same for every store: the model's
baseline, not what one store happens to talk about; BERTScore rescales with such a baseline), and a threshold keeps
its place between the baseline and 1."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, Protocol

import numpy as np

from ..providers.embedding import embed_texts
from ..timeutil import from_iso, to_iso
from .reference_texts import REFERENCE_TEXTS

REFERENCE_BASELINE = 0.06
"""all-MiniLM-L6-v2's baseline (0.0561 with sentence-transformers, 0.0562 with the ONNX embedder: 0.06 rounded)."""


@dataclass(frozen=True)
class Baseline:
    """The mean cosine between the reference texts under ``model``."""

    model: str
    mean_cosine: float
    measured_at: datetime

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "measured_at": to_iso(self.measured_at)})

    @classmethod
    def from_json(cls, text: str) -> Baseline:
        held = json.loads(text)
        return cls(held["model"], float(held["mean_cosine"]), from_iso(held["measured_at"]))


def measure(model: str, vectors: np.ndarray, now: datetime) -> Baseline:
    """The mean cosine between distinct rows of ``vectors``, to two places (the same model through another runtime
    gives the same baseline)."""
    n = len(vectors)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    total = unit.sum(axis=0)
    # The sum over all ordered pairs is |sum of units|^2; take away the n self-pairs (each 1).
    return Baseline(model, round((float(total @ total) - n) / (n * (n - 1)), 2), now)


class BaselineStore(Protocol):
    """Where a baseline is recorded (every storage)."""

    def similarity_baseline(self) -> Baseline | None: ...
    def record_similarity_baseline(self, baseline: Baseline) -> None: ...


def baseline_for(store: BaselineStore, embedder: Any, now: datetime) -> Baseline:
    """The baseline recorded with the store for ``embedder``'s model; measured and recorded first when there is
    none (one embedding call of the reference texts), or taken from the embedder's ``similarity_baseline`` when it
    states one."""
    recorded = store.similarity_baseline()
    if recorded is not None and recorded.model == embedder.model_name:
        return recorded
    stated = getattr(embedder, "similarity_baseline", None)
    if stated is not None:
        baseline = Baseline(embedder.model_name, float(stated), now)
    else:
        baseline = measure(embedder.model_name, embed_texts(embedder, list(REFERENCE_TEXTS)), now)
    store.record_similarity_baseline(baseline)
    return baseline


_measured: dict[str, Baseline] = {}  # baselines measured by reads, per model, once per process (never recorded)


def read_baseline(store: BaselineStore, embedder: Any, now: datetime) -> Baseline:
    """:func:`baseline_for` for a read, which writes nothing: the recorded baseline or the embedder's own, else one
    measured once per process and kept in memory (the next write-side use records it)."""
    recorded = store.similarity_baseline()
    if recorded is not None and recorded.model == embedder.model_name:
        return recorded
    stated = getattr(embedder, "similarity_baseline", None)
    if stated is not None:
        return Baseline(embedder.model_name, float(stated), now)
    if embedder.model_name not in _measured:
        vectors = embed_texts(embedder, list(REFERENCE_TEXTS))
        _measured[embedder.model_name] = measure(embedder.model_name, vectors, now)
    return _measured[embedder.model_name]


def calibrated(threshold: float, baseline: Baseline | None) -> float:
    """``threshold`` (a cosine under the reference model) under the store's model: the same fraction of the way from
    the baseline to 1. The reference model's stores get the threshold itself."""
    if baseline is None or baseline.mean_cosine == REFERENCE_BASELINE:
        return threshold
    b = baseline.mean_cosine
    return min(1.0, b + (threshold - REFERENCE_BASELINE) * (1.0 - b) / (1.0 - REFERENCE_BASELINE))
