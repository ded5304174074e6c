"""Fakes for tests, Audrey's and yours: no network, no model download, same output every run."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from itertools import pairwise
from typing import Any

import numpy as np

from .errors import LLMError
from .rules.prompts import CLAIM_EXTRACTION, CONTRADICTION_CHECK, CONTRADICTION_CHECK_BATCH, SAME_LESSON

_TOKEN = re.compile(r"[a-z0-9]+")


class DeterministicEmbedder:
    """Feature-hashing embedder: texts sharing words get similar vectors; identical texts get identical vectors.

    Each lowercase word (and, at half weight, each pair of adjacent words) adds a signed unit to a hashed coordinate;
    the vector is normalized. Stable across processes and platforms (hashlib, not ``hash``). Good enough to test
    ranking and filtering; not a language model.
    """

    def __init__(self, dimensions: int = 384, model_name: str = "deterministic-hash", max_tokens: int | None = None):
        if dimensions <= 0:
            raise ValueError("dimensions must be positive")
        self.dimensions = dimensions
        self.max_tokens = max_tokens  # a window in whitespace tokens, to exercise chunking (None: no window)
        self.model_name = model_name if dimensions == 384 else f"{model_name}-{dimensions}"
        self.calls = 0  # number of embed() calls, so tests can check batching

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dimensions, dtype=np.float64)
        words = _TOKEN.findall(text.lower()) or [text]
        features = [(w, 1.0) for w in words] + [(f"{a} {b}", 0.5) for a, b in pairwise(words)]
        for feature, weight in features:
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            sign = 1.0 if value & 1 else -1.0
            vector[(value >> 1) % self.dimensions] += sign * weight
        norm = np.linalg.norm(vector)
        if norm == 0:  # every feature cancelled out: fall back to the whole text as one feature
            vector[int.from_bytes(hashlib.blake2b(text.encode()).digest()[:8], "little") % self.dimensions] = 1.0
            norm = 1.0
        return (vector / norm).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One normalized vector per text."""
        self.calls += 1
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.vstack([self._vector(t) for t in texts])


_MARKER = re.compile(r"^\[audrey:([a-z_]+)\]")


class ScriptedLLM:
    """A fake LLM that answers each Audrey prompt from a script; no network.

    ``script`` maps a prompt name (``contradiction_check``, ``principle_extraction``, ``claim_extraction``) to a
    reply: a dict (sent as JSON), a string (sent as is), a callable ``f(messages) -> dict | str``, or a list of those
    used in turn (the last one repeats). An unscripted prompt raises :class:`LLMError`, except ``claim_extraction``,
    which reads no claims (typed claims are optional). ``calls`` records (prompt name, messages).
    """

    model_name = "scripted-llm"

    def __init__(self, script: Mapping[str, object] | None = None) -> None:
        self.script = dict(script or {})
        self.calls: list[tuple[str, list[dict[str, str]]]] = []
        self._lock = threading.Lock()

    def calls_for(self, prompt_name: str) -> list[list[dict[str, str]]]:
        """The messages of every call made with ``prompt_name``."""
        return [messages for name, messages in self.calls if name == prompt_name]

    def complete(self, messages: list[dict[str, str]]) -> str:
        """Reply to ``messages`` from the script. A ``contradiction_check_batch`` that is not scripted is answered
        from the ``contradiction_check`` script, one numbered memory at a time (one call is recorded)."""
        match = _MARKER.match(messages[0]["content"]) if messages else None
        name = match.group(1) if match else "unknown"
        with self._lock:
            self.calls.append((name, messages))
        if (
            name == CONTRADICTION_CHECK_BATCH.name
            and name not in self.script
            and CONTRADICTION_CHECK.name in self.script
        ):
            return self._batch_from_pairs(messages[-1]["content"])
        return self._reply(name, messages)

    def _reply(self, name: str, messages: list[dict[str, str]]) -> str:
        with self._lock:
            reply: object = self.script.get(name)
            if isinstance(reply, list):
                reply = reply.pop(0) if len(reply) > 1 else (reply[0] if reply else None)
        if reply is None and name == CLAIM_EXTRACTION.name:
            reply = {"claims": []}  # reading typed claims is optional: unscripted, it reads none
        if reply is None and name == SAME_LESSON.name:  # grouping is optional too: unscripted, it joins nothing
            reply = {"judgements": [{"pair": n, "same": False} for n, _, _ in lesson_pairs(messages)]}
        if reply is None:
            raise LLMError(f"ScriptedLLM has no reply for prompt {name!r}")
        if callable(reply):
            reply = reply(messages)
        return reply if isinstance(reply, str) else json.dumps(reply)

    def _batch_from_pairs(self, user: str) -> str:
        head, _, listing = user.partition("\nExisting memories:\n")
        incoming = head.removeprefix("New observation: ")
        judgements = []
        for line in listing.splitlines():
            number, _, existing = line.partition(". ")
            single = CONTRADICTION_CHECK.render(existing=existing, incoming=incoming)
            text = self._reply(CONTRADICTION_CHECK.name, single)
            try:
                reply = json.loads(text)
            except json.JSONDecodeError:
                return text  # a scripted non-JSON reply stays one: the caller's parser refuses it
            judgements.append({**reply, "memory": int(number)})
        return json.dumps({"judgements": judgements})


def lesson_pairs(messages: list[dict[str, str]]) -> list[tuple[int, str, str]]:
    """The numbered pairs of observations a ``same_lesson`` request asks about: (number, A, B), for scripted replies."""
    listed = messages[-1]["content"]
    return [(int(n), a, b) for n, a, b in re.findall(r"^(\d+)\. A: (.*)\n   B: (.*)$", listed, flags=re.MULTILINE)]


class ManualClock:
    """A clock that moves only when told: ``Audrey(clock=clock)``, then ``clock.advance(days=7)``."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=timezone.utc)
        if self._now.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware start")
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, **delta: float) -> datetime:
        """Move forward by ``timedelta(**delta)`` (days=, hours=, seconds=, ...); returns the new time."""
        with self._lock:
            self._now += timedelta(**delta)
            return self._now


def add_principle(brain: Any, content: str, *, memory_type: str = "semantic", **fields: Any) -> str:
    """Store a principle (``semantic``) or a procedure (``procedural``) straight away, with its embedding, as
    consolidation would store one: for a test that needs one without running the sleep cycle. It belongs to the
    instance's agent (and scope, unless ``scope=`` names one inside it); ``fields`` are the record's
    (``source``, ``evidence_episode_ids``, ``created_at``, ...). Returns its id."""
    from .ids import new_ulid
    from .models import Procedural, Semantic
    from .providers.embedding import embed_texts

    if memory_type not in ("semantic", "procedural"):
        raise ValueError(f"memory_type must be 'semantic' or 'procedural', got {memory_type!r}")
    kind = Semantic if memory_type == "semantic" else Procedural
    source = fields.pop("source", "direct-observation")
    scope = tuple(fields.pop("scope", brain.scope))
    brain.tenant.require_scope(scope)
    memory = kind(
        id=fields.pop("id", None) or new_ulid(brain.clock()),
        agent=fields.pop("agent", brain.agent),
        content=content,
        scope=scope,
        source=source,
        source_reliability=brain.config.confidence.source_reliability[source],
        created_at=fields.pop("created_at", brain.clock()),
        **fields,
    )
    brain._storage.insert_memories([memory], embed_texts(brain.embedder, [content]), owner=brain.tenant)
    return memory.id


def set_states(brain: Any, states: Mapping[str, str]) -> None:
    """Move the instance's memories to the given states straight away (the pipeline does it otherwise: validation,
    decay, rollback), for a test that needs one in a state; another tenant's id is refused."""
    held = {m.id for m in brain.get_many(list(states)) if m is not None}
    missing = sorted(set(states) - held)
    if missing:
        raise ValueError(f"no memories {missing} for this instance")
    brain._storage.set_states(dict(states))


__all__ = ["DeterministicEmbedder", "ManualClock", "ScriptedLLM", "add_principle", "set_states"]
