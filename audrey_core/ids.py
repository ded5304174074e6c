"""ULID identifiers: 48-bit millisecond time + 80 random bits, Crockford base32, sortable by creation time."""

from __future__ import annotations

import hashlib
import os
import threading
from datetime import datetime

from .rules.inputs import check_text

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_lock = threading.Lock()
_last_ms = -1
_last_random = 0


def _encode(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        value, digit = divmod(value, 32)
        chars.append(_ALPHABET[digit])
    return "".join(reversed(chars))


def new_ulid(moment: datetime) -> str:
    """A new ULID for ``moment``; ids made within one millisecond stay strictly increasing (monotonic ULID)."""
    global _last_ms, _last_random
    ms = int(moment.timestamp() * 1000)
    with _lock:
        if ms <= _last_ms:
            # Same (or an earlier, injected-clock) millisecond: keep order by incrementing the random part.
            ms = _last_ms
            _last_random = (_last_random + 1) & ((1 << 80) - 1)
        else:
            _last_ms = ms
            _last_random = int.from_bytes(os.urandom(10), "big") >> 1  # headroom for increments
        rand = _last_random
    return _encode(ms, 10) + _encode(rand, 16)


def deterministic_id(prefix: str, *parts: str) -> str:
    """A stable id derived from its inputs, for outputs that must not duplicate when work is re-run. Inputs that are
    not valid text (a NUL or a lone surrogate) raise :class:`InvalidInputError`, as they would when stored."""
    joined = check_text("a name an id is derived from", "\x1f".join(parts))
    digest = hashlib.sha256(joined.encode("utf-8")).digest()
    return prefix + _encode(int.from_bytes(digest[:16], "big"), 26)
