"""Checks of the arguments users pass: an encode request (content, source, salience, tags, causal context,
metadata, ids, scope, event time, session and speaker), each failing with an :class:`InvalidInputError` that says
what to pass instead."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..config import SOURCES
from ..errors import ConfigurationError, InvalidInputError
from .expiry import check_expiry
from .inputs import check_json_value, check_moment, check_text

ENCODE_FIELDS = frozenset(
    {
        "content",
        "source",
        "salience",
        "tags",
        "causal",
        "supersedes",
        "metadata",
        "derived_from",
        "id",
        "scope",
        "key",
        "event_time",
        "session",
        "speaker",
        "expires_at",
        "ttl",
    }
)


MAX_ID_LENGTH = 512


@dataclass(frozen=True)
class EncodeRequest:
    """A checked, normalised request to store one episode."""

    content: str
    source: str
    salience: float
    tags: tuple[str, ...]
    causal_trigger: str | None
    causal_consequence: str | None
    supersedes: str | None
    metadata: dict[str, Any]
    derived_from: tuple[str, ...] = ()
    id: str | None = None
    scope: tuple[str, ...] = ()
    key: str | None = None
    event_time: datetime | None = None
    session: str | None = None
    speaker: str | None = None
    expires_at: datetime | None = None  # given, or now + ttl_seconds when stored
    ttl_seconds: float | None = None


def check_request(
    content: Any,
    source: Any = "direct-observation",
    salience: Any = 0.5,
    tags: Any = None,
    causal: Any = None,
    supersedes: Any = None,
    metadata: Any = None,
    derived_from: Any = None,
    id: Any = None,
    scope: Any = None,
    key: Any = None,
    event_time: Any = None,
    session: Any = None,
    speaker: Any = None,
    expires_at: Any = None,
    ttl: Any = None,
) -> EncodeRequest:
    """Validate one encode's arguments; raise :class:`InvalidInputError` saying what is wrong."""
    if not isinstance(content, str):
        raise InvalidInputError(f"content must be a string, got {type(content).__name__}")
    if not content.strip():
        raise InvalidInputError("content is empty or only whitespace; there is nothing to remember")
    check_text("content", content)
    if source not in SOURCES:
        raise InvalidInputError(f"unknown source {source!r}; use one of: {', '.join(SOURCES)}")
    if isinstance(salience, bool) or not isinstance(salience, (int, float)) or not math.isfinite(salience):
        raise InvalidInputError(f"salience must be a number in [0, 1], got {salience!r}")
    if not 0.0 <= salience <= 1.0:
        raise InvalidInputError(f"salience must lie in [0, 1], got {salience}")
    expires_at, ttl_seconds = check_expiry(expires_at, ttl)
    return EncodeRequest(
        content=content,
        source=source,
        salience=float(salience),
        tags=check_tags(tags),
        causal_trigger=_causal_part(causal, "trigger"),
        causal_consequence=_causal_part(causal, "consequence"),
        supersedes=_check_supersedes(supersedes),
        metadata=check_metadata(metadata),
        derived_from=_check_ids("derived_from", derived_from),
        id=_check_name("id", id),
        scope=check_scope(scope),
        key=_check_name("key", key),
        event_time=check_moment("event_time", event_time),
        session=_check_name("session", session),
        speaker=_check_speaker(speaker),
        expires_at=expires_at,
        ttl_seconds=ttl_seconds,
    )


def check_tags(tags: Any) -> tuple[str, ...]:
    """Tags as a tuple of distinct, stripped, non-empty strings."""
    if tags is None:
        return ()
    if isinstance(tags, str) or not isinstance(tags, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"tags must be a list of strings, got {tags!r}; e.g. tags=['stripe']")
    cleaned = []
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip():
            raise InvalidInputError(f"every tag must be a non-empty string, got {tag!r}")
        cleaned.append(check_text("a tag", tag.strip()))
    return tuple(dict.fromkeys(cleaned))


def check_metadata(metadata: Any) -> dict[str, Any]:
    """A JSON-serialisable dict with string keys (stored as JSON). Top-level keys may not start with ``$``: the filter
    language keeps those for its operators, so such a key could be stored but never filtered on."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidInputError(f"metadata must be a dict, got {type(metadata).__name__}")
    if not all(isinstance(key, str) for key in metadata):
        raise InvalidInputError("metadata keys must be strings")
    reserved = sorted(key for key in metadata if key.startswith("$"))
    if reserved:
        raise InvalidInputError(f"metadata keys may not start with '$' (kept for filter operators): {reserved}")
    try:
        plain = json.loads(json.dumps(dict(metadata), allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInputError(f"metadata must be JSON-serialisable (no NaN, sets or objects): {exc}") from exc
    check_json_value("metadata", plain)
    return plain


def _causal_part(causal: Any, key: str) -> str | None:
    if causal is None:
        return None
    if not isinstance(causal, Mapping):
        raise InvalidInputError("causal must be a dict like {'trigger': ..., 'consequence': ...}")
    unknown = set(causal) - {"trigger", "consequence"}
    if unknown:
        raise InvalidInputError(f"causal accepts only 'trigger' and 'consequence', not {sorted(map(str, unknown))}")
    value = causal.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise InvalidInputError(f"causal {key} must be a non-empty string, got {value!r}")
    return None if value is None else check_text(f"causal {key}", value)


def _check_speaker(speaker: Any) -> str | None:
    speaker = _check_name("speaker", speaker)
    if speaker is not None and not speaker.strip():
        raise InvalidInputError("speaker must name someone (not only whitespace)")
    return speaker


def _check_name(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_ID_LENGTH:
        raise InvalidInputError(
            f"{name} must be a non-empty string of at most {MAX_ID_LENGTH} characters, got {value!r}"
        )
    return check_text(name, value)


def check_scope(scope: Any) -> tuple[str, ...]:
    """A scope path: a list of non-empty string labels (``()`` or ``None`` is the root)."""
    if scope is None:
        return ()
    if isinstance(scope, str) or not isinstance(scope, (list, tuple)):
        raise InvalidInputError(f"scope must be a tuple of strings such as ('user', 'alice'), got {scope!r}")
    for label in scope:
        if not isinstance(label, str) or not label or "\x1f" in label:
            raise InvalidInputError(
                f"scope labels must be non-empty strings without the \\x1f character, got {label!r}"
            )
        check_text("a scope label", label)
    return tuple(scope)


def parse_scope_path(text: str, what: str = "scope") -> tuple[str, ...]:
    """A scope written as a path, ``user/alice`` -> ``("user", "alice")`` (an empty path, or ``/``, is the root):
    how the command line, the MCP server and the page take a scope."""
    if not isinstance(text, str):
        raise InvalidInputError(f"{what} must be a path such as user/alice, got {text!r}")
    stripped = text.strip().strip("/")
    labels = tuple(label.strip() for label in stripped.split("/")) if stripped else ()
    if any(not label for label in labels):
        raise InvalidInputError(f"{what} {text!r} has an empty label: write it as user/alice")
    return check_scope(labels)


def scope_path(scope: Sequence[str]) -> str:
    """A scope as a path: ``("user", "alice")`` -> ``user/alice``; the root is ``/``."""
    return "/".join(scope) or "/"


def _check_ids(name: str, ids: Any) -> tuple[str, ...]:
    if ids is None:
        return ()
    if isinstance(ids, str) or not isinstance(ids, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"{name} must be a list of memory ids, got {ids!r}")
    if not all(isinstance(i, str) and i for i in ids):
        raise InvalidInputError(f"{name} must hold memory ids (non-empty strings), got {list(ids)!r}")
    return tuple(dict.fromkeys(check_text(name, i) for i in ids))


def _check_supersedes(supersedes: Any) -> str | None:
    if supersedes is None:
        return None
    if not isinstance(supersedes, str) or not supersedes:
        raise InvalidInputError(f"supersedes must be an episode id (string), got {supersedes!r}")
    return check_text("supersedes", supersedes)


def request_from_item(item: Any, index: int) -> EncodeRequest:
    """Check one ``encode_batch`` item: a dict with ``content`` and the optional encode fields, or a plain string."""
    if isinstance(item, str):
        item = {"content": item}
    if not isinstance(item, Mapping):
        raise InvalidInputError(f"encode_batch item {index} must be a dict or a string, got {type(item).__name__}")
    unknown = set(item) - ENCODE_FIELDS
    if unknown:
        raise InvalidInputError(f"encode_batch item {index} has unknown fields {sorted(map(str, unknown))}")
    if "content" not in item:
        raise InvalidInputError(f"encode_batch item {index} has no 'content'")
    try:
        return check_request(**item)
    except InvalidInputError as exc:
        raise InvalidInputError(f"encode_batch item {index}: {exc}") from exc


def requests_from_items(items: Any, scope: tuple[str, ...]) -> list[EncodeRequest]:
    """Check ``encode_batch``'s items; an item that names no scope (or ``None``) is placed in ``scope``."""
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise InvalidInputError("encode_batch takes a list of dicts (or strings)")
    return [request_from_item(_in_scope(item, scope), i) for i, item in enumerate(items)]


def _in_scope(item: Any, scope: tuple[str, ...]) -> Any:
    if not scope:
        return item
    if isinstance(item, str):
        return {"content": item, "scope": scope}
    if isinstance(item, dict) and item.get("scope") is None:
        return {**item, "scope": scope}
    return item


def check_instance(path: Any, agent: Any, config: Any, config_type: type) -> None:
    """``Audrey(path, agent, config=...)``'s arguments."""
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"path must be a file path, ':memory:' or a postgresql:// URL, got {path!r}")
    if not isinstance(agent, str) or not agent.strip():
        raise InvalidInputError(f"agent must be a non-empty string, got {agent!r}")
    check_text("agent", agent)
    if config is not None and not isinstance(config, config_type):
        raise ConfigurationError(f"config must be an AudreyConfig, got {type(config).__name__}")
