"""What every pipeline stage works with: the store, the providers, the settings, the clock and the events."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from ..config import AudreyConfig
from ..events import EventBus
from ..rules.ownership import Tenant
from ..storage import Storage
from ..threads import ReadersFirst
from ..timeutil import Clock


@dataclass(frozen=True)
class StageContext:
    """Passed to stage functions so they need no facade (and tests can build one directly)."""

    storage: Storage
    embedder: Any
    llm: Any
    config: AudreyConfig
    clock: Clock
    events: EventBus
    agent: str
    scope: tuple[str, ...] = ()  # the instance's scope: decay and consolidation work on this subtree of the agent
    queries: Any = None  # the QueryCache recall embeds text queries through
    instance: str = field(default_factory=lambda: uuid.uuid4().hex)  # who claims the episodes it will validate
    # Where the principles a recall handed over go to be reinforced (Background.retrieved: a worker writes, so the
    # read path only reads); None: reinforced at once, on the caller's thread.
    retrievals: Any = None
    # Recalls mark themselves here and background work gives way to them (shared by the instance's every copy).
    readers: ReadersFirst = field(default_factory=ReadersFirst)

    @property
    def tenant(self) -> Tenant:
        """The agent and scope subtree the stages may change."""
        return Tenant(self.agent, self.scope)

    def emit(self, event: str, payload: dict[str, Any]) -> None:
        """Emit ``event`` if anything listens."""
        if self.events.has_handlers(event):
            self.events.emit(event, payload)
