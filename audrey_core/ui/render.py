"""What every page shares: the settings a request finds on its app (the memory, whether it may change it, the CSRF
token, the templates), rendering a template with them, and the CSRF check of a change."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from ..audrey import Audrey


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
