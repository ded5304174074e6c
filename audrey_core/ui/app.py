"""``audrey ui``'s web application: Starlette, server-rendered Jinja2 pages, no JavaScript, nothing fetched from a
network. Who may reach it and what it may change are decided here, once for every page:

* the Host header must name the address it serves (Starlette's ``TrustedHostMiddleware``: a page of another site
  cannot reach a local one by DNS rebinding); off localhost a token is required, given once as ``?token=`` (then
  exchanged for a session cookie signed with it, which holds no token and ends with the process) or as a
  ``Bearer`` header;
* read-only unless ``allow_writes``; then every change is a POST behind a confirmation page, carrying the process's
  CSRF token and, when the browser sends one, an Origin of this address;
* bad input anywhere is a 4xx page with Audrey's message; nothing else ever shows a traceback.

Every call to the store runs on Starlette's threadpool (pages and error pages are plain functions; a change reads its
form on the event loop and does the rest there too): a slow call never holds up the other requests.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from ..audrey import Audrey
from ..errors import AudreyError, InvalidInputError, NotFoundError
from ..rules.serving import LOOPBACK, needs_token
from .render import Settings, page
from .routes import routes

log = logging.getLogger(__name__)
HERE = Path(__file__).parent
TOKEN_COOKIE = "audrey_ui_session"


def build_app(
    brain: Audrey,
    *,
    host: str = "127.0.0.1",
    port: int = 8787,
    allow_writes: bool = False,
    token: str | None = None,
    open_agent: Callable[[str], Audrey] | None = None,
) -> Starlette:
    """The application serving ``brain`` at ``host:port`` (the address is needed to check Host and Origin). With
    ``open_agent`` (how to open another agent's memory in the same store; leave it out to confine the page to
    ``brain``) the page has an agent picker."""
    if needs_token(host, token):
        raise InvalidInputError(f"serving on {host} needs a token (--token): use 127.0.0.1 to serve this machine only")
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
    env.filters["replace_param"] = _replace_param
    templates = Jinja2Templates(env=env)
    settings = Settings(brain, allow_writes, secrets.token_urlsafe(32), templates, open_agent)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            settings.close()  # the other agents' memories the picker opened; ``brain`` is its opener's to close

    app = Starlette(
        routes=[*routes(), Mount("/static", StaticFiles(directory=HERE / "static"), name="static")],
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=trusted_hosts(host)),
            Middleware(Guard, host=host, port=port, token=token),
        ],
        exception_handlers={HTTPException: _http_error, AudreyError: _audrey_error, Exception: _server_error},
        lifespan=lifespan,
    )
    app.state.ui = settings
    return app


def trusted_hosts(host: str) -> list[str]:
    """The names a request's Host may give: the address served (and every loopback name for a loopback one); any,
    on every interface (the token is the check there)."""
    if host in ("0.0.0.0", "::"):
        return ["*"]
    return sorted({host} | (set(LOOPBACK) if host in LOOPBACK else set()))


class Guard(BaseHTTPMiddleware):
    """The token and the Origin of writes, before any page runs (the Host is TrustedHostMiddleware's)."""

    def __init__(self, app: Any, host: str, port: int, token: str | None) -> None:
        super().__init__(app)
        self.names = set(trusted_hosts(host))
        self.any_host = "*" in self.names
        self.port = port
        self.token = token
        # A session is this process's signature with the token: the cookie never holds the token itself.
        self.session = (
            hmac.new(token.encode(), b"audrey ui session " + secrets.token_bytes(16), "sha256").hexdigest()
            if token is not None
            else None
        )

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if self.token is not None and self.session is not None:
            given = request.query_params.get("token")
            if given is not None:
                if not same_secret(given, self.token):
                    return _plain(request, 401, "wrong token")
                clean = request.url.remove_query_params("token")
                response = RedirectResponse(str(clean), status_code=303)
                response.set_cookie(TOKEN_COOKIE, self.session, httponly=True, samesite="strict")
                return response
            scheme, _, credential = request.headers.get("authorization", "").partition(" ")
            bearer = credential.strip() if scheme.lower() == "bearer" else ""  # only "Bearer TOKEN" carries it
            cookie = request.cookies.get(TOKEN_COOKIE, "")
            if not (same_secret(cookie, self.session) or (bearer and same_secret(bearer, self.token))):
                return _plain(request, 401, "this page needs the server's token: open it once with ?token=...")
        if request.method not in ("GET", "HEAD"):
            origin = request.headers.get("origin")
            if origin and urlsplit(origin).hostname not in self.names and not self.any_host:
                return _plain(request, 403, f"a change from another site ({origin}) is refused")
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response


def same_secret(given: str, secret: str) -> bool:
    """Whether ``given`` is ``secret``, in constant time; any text may be given (compare_digest takes ASCII str)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), secret.encode("utf-8", "surrogateescape"))


SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # "no-referrer" makes a browser send Origin: null with a form
}


def _replace_param(params: Any, key: str, value: Any) -> str:
    """A query string with ``key`` set to ``value`` (the pager's links keep every other parameter)."""
    kept = [(k, v) for k, v in params.multi_items() if k != key]
    return urlencode([*kept, (key, str(value))])


def _plain(request: Request, status: int, message: str) -> Response:
    return Response(f"{status}: {message}\n", status_code=status, media_type="text/plain")


def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return page(request, "error.html", {"status": exc.status_code, "message": exc.detail}, exc.status_code)


def _audrey_error(request: Request, exc: Exception) -> Response:
    status = 404 if isinstance(exc, NotFoundError) else 400 if isinstance(exc, InvalidInputError) else 409
    return page(request, "error.html", {"status": status, "message": str(exc)}, status)


def _server_error(request: Request, exc: Exception) -> Response:
    log.exception("audrey ui: %s %s failed", request.method, request.url.path)
    message = "something went wrong on the server; its log says what"
    return page(request, "error.html", {"status": 500, "message": message}, 500)
