"""Serving a memory over the network (``audrey mcp --http``, ``audrey ui``): off this machine a token is required,
since anyone who reaches the port could read and change the memory. Pure."""

from __future__ import annotations

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def needs_token(host: str, token: str | None) -> bool:
    """Whether serving on ``host`` without ``token`` would open the memory to the network."""
    return host not in LOOPBACK and not token
