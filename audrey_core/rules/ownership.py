"""Who may reach a memory. An Audrey instance is one tenant: an agent, and a scope within that agent's memory (the
root scope ``()`` is the whole agent). It reads and changes only memories of its agent whose scope lies at or below
its own; a memory outside behaves exactly like a missing one. Pure rules, no I/O: storage applies them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInputError


@dataclass(frozen=True)
class Tenant:
    """An agent and the scope subtree it may reach."""

    agent: str
    scope: tuple[str, ...] = ()

    def contains(self, scope: Sequence[str]) -> bool:
        """True when ``scope`` lies at or below this tenant's scope (whole labels)."""
        return tuple(scope[: len(self.scope)]) == self.scope

    def holds(self, agent: str, scope: Sequence[str]) -> bool:
        """True when a memory of ``agent`` in ``scope`` belongs to this tenant."""
        return agent == self.agent and self.contains(scope)

    def owns(self, memory: Any) -> bool:
        """True when ``memory`` (anything with ``agent`` and ``scope``) belongs to this tenant."""
        return self.holds(memory.agent, memory.scope)

    def require_scope(self, scope: Sequence[str], what: str = "scope") -> tuple[str, ...]:
        """``scope`` unchanged if this tenant may reach it, else :class:`InvalidInputError` saying how to cross."""
        scope = tuple(scope)
        if not self.contains(scope):
            raise InvalidInputError(
                f"{what} {scope!r} lies outside this instance's scope {self.scope!r}; an instance reaches only its "
                "own scope and those below it. To work in another scope on purpose, open an Audrey for it (or one "
                "without a scope, which reaches the whole agent)"
            )
        return scope

    def mine(self, memories: Iterable[Any]) -> list[Any]:
        """The memories this tenant owns, in order."""
        return [m for m in memories if self.owns(m)]


__all__ = ["Tenant"]
