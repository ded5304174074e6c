"""What every page shares: the settings a request finds on its app (the memory, whether it may change it, the CSRF
token, the templates), rendering a template with them, the CSRF check of a change, and finding the record a URL
names (a 404 page when this instance has none)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from ..audrey import Audrey
from ..models import ConsolidationRun, Contradiction, Memory


@dataclass(frozen=True)
class Settings:
    """What a page needs besides the request: the memory, whether it may change it, and the CSRF token."""

    brain: Audrey
    allow_writes: bool
    csrf: str
    templates: Jinja2Templates


def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.ui
    return settings


def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    """``name`` rendered with ``context`` and what every page shows (the agent, its scope, whether writes are on)."""
    settings = settings_of(request)
    common = {"writes": settings.allow_writes, "csrf": settings.csrf, "agent": settings.brain.agent}
    common["scope"] = "/".join(settings.brain.scope)
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
    found = next((r for r in brain.consolidation_history() if r.id == run_id), None)
    if found is None:
        raise HTTPException(404, f"no consolidation run {run_id} here")
    return found


def contradiction_or_404(brain: Audrey, contradiction_id: str) -> Contradiction:
    """The instance's contradiction ``contradiction_id``."""
    found = next((c for c in brain.contradictions() if c.id == contradiction_id), None)
    if found is None:
        raise HTTPException(404, f"no contradiction {contradiction_id} here")
    return found
