"""What every page shares: the settings a request finds on its app (the memory, whether it may change it, the CSRF
token, the templates), rendering a template with them, the CSRF check of a change, and finding the record a URL
names (a 404 page when this instance has none)."""

from __future__ import annotations

import hmac
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from ..audrey import Audrey
from ..models import ConsolidationRun, Contradiction, Memory

AGENT_COOKIE = "audrey_ui_agent"


@dataclass(frozen=True)
class Settings:
    """What a page needs besides the request: the memory, whether it may change it, and the CSRF token.
    ``open_agent`` (a page not confined to one tenant) opens another agent's memory in the same store: the agent
    picker's choice, kept in a cookie, each opened once and closed with the app."""

    brain: Audrey
    allow_writes: bool
    csrf: str
    templates: Jinja2Templates
    open_agent: Callable[[str], Audrey] | None = None
    _opened: dict[str, Audrey] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def brain_for(self, request: Request) -> Audrey:
        """The memory this request looks at: the picked agent's when the page may pick, else the one it serves."""
        wanted = request.cookies.get(AGENT_COOKIE)
        if self.open_agent is None or not wanted or wanted == self.brain.agent:
            return self.brain
        return self.opened(wanted)

    def opened(self, agent: str) -> Audrey:
        """``agent``'s memory in this store (opened on first use); only an agent the store holds."""
        if self.open_agent is None:
            raise HTTPException(404, "this page is confined to one agent")
        if agent == self.brain.agent:
            return self.brain
        with self._lock:
            if agent not in self._opened:
                if agent not in self.brain.agents():
                    raise HTTPException(400, f"this store holds no memories of agent {agent!r}")
                self._opened[agent] = self.open_agent(agent)
            return self._opened[agent]

    def close(self) -> None:
        with self._lock:
            for other in self._opened.values():
                other.close()
            self._opened.clear()


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.ui
    return settings


def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    """``name`` rendered with ``context`` and what every page shows (the agent, its scope, whether writes are on, and
    the agents to pick from when the page may pick)."""
    settings = settings_of(request)
    try:
        brain = settings.brain_for(request)
    except HTTPException:  # a stale cookie: the page it names says so; the header shows the served agent
        brain = settings.brain
    common = {"writes": settings.allow_writes, "csrf": settings.csrf, "agent": brain.agent}
    common["scope"] = "/".join(brain.scope)
    if settings.open_agent is not None:  # the store's agents, and the served one even before it holds anything
        common["agents"] = sorted(set(settings.brain.agents()) | {settings.brain.agent})
    else:
        common["agents"] = []
    return settings.templates.TemplateResponse(request, name, {**common, **context}, status_code=status)


def check_csrf(request: Request, given: Any) -> None:
    """A change must carry this process's CSRF token (a page of another site cannot read it)."""
    if not isinstance(given, str) or not hmac.compare_digest(given, settings_of(request).csrf):
        raise HTTPException(403, "this form is out of date or did not come from this page: reload it and try again")


def memory_or_404(brain: Audrey, memory_id: str) -> Memory:
    """The instance's memory ``memory_id`` (another tenant's is as missing as an unknown one)."""
    found = brain.get(memory_id)
    if found is None:
        raise HTTPException(404, f"no memory {memory_id} here (or not in this agent's scope)")
    return found


def run_or_404(brain: Audrey, run_id: str) -> ConsolidationRun:
    """The instance's consolidation run ``run_id``."""
    found = brain.consolidation_run(run_id)
    if found is None:
        raise HTTPException(404, f"no consolidation run {run_id} here")
    return found


def contradiction_or_404(brain: Audrey, contradiction_id: str) -> Contradiction:
    """The instance's contradiction ``contradiction_id``."""
    found = brain.contradiction(contradiction_id)
    if found is None:
        raise HTTPException(404, f"no contradiction {contradiction_id} here")
    return found
