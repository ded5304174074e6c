"""The changes ``audrey ui --allow-writes`` permits: forget a memory, supersede an episode, settle a dispute, roll
back a consolidation run. Each is a GET that shows what will happen (a confirmation page) and a POST that does it,
carrying the CSRF token; without ``--allow-writes`` both are refused (403). The store is only called on the
threadpool: never on the event loop, which the other requests share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..config import SOURCES
from ..errors import InvalidInputError
from .render import check_csrf, contradiction_or_404, memory_or_404, page, run_or_404, settings_of

READ_ONLY = "this page is read-only: start it with `audrey ui --allow-writes` to change the memory"


def action_routes() -> list[Route]:
    return [
        Route("/memory/{memory_id}/forget", forget, methods=["GET", "POST"]),
        Route("/memory/{memory_id}/supersede", supersede, methods=["GET", "POST"]),
        Route("/disputes/{contradiction_id}/settle", settle, methods=["GET", "POST"]),
        Route("/runs/{run_id}/rollback", rollback, methods=["GET", "POST"]),
    ]


def _writes_allowed(request: Request) -> None:
    if not settings_of(request).allow_writes:
        raise HTTPException(403, READ_ONLY)


def _allowed(request: Request) -> Any:
    """The memory a change applies to (on the threadpool: finding it reads the store)."""
    _writes_allowed(request)
    return settings_of(request).brain_for(request)


async def _form(request: Request) -> dict[str, str]:
    """The POSTed form, its CSRF token checked."""
    form = await request.form()
    check_csrf(request, form.get("csrf"))
    return {k: v for k, v in form.items() if isinstance(v, str)}


async def _change(request: Request, handle: Callable[[Request, dict[str, str] | None], Response]) -> Response:
    """A change's page: refused read-only; the form read (a POST's, its CSRF token checked) on the event loop, then
    ``handle(request, form)`` (form None: the confirmation page) on the threadpool, where the store's calls block."""
    _writes_allowed(request)
    form = await _form(request) if request.method == "POST" else None
    return await run_in_threadpool(handle, request, form)


def _confirm(
    request: Request, what: str, details: list[str], fields: dict[str, str], danger: bool, back: str
) -> Response:
    context = {"what": what, "details": details, "fields": fields, "danger": danger, "action": request.url.path}
    context["back"] = back
    return page(request, "confirm.html", context)


async def forget(request: Request) -> Response:
    return await _change(request, _forget)


def _forget(request: Request, form: dict[str, str] | None) -> Response:
    brain = _allowed(request)
    found = memory_or_404(brain, request.path_params["memory_id"])
    if form is None:
        return _confirm(request, "Forget this memory for good?", [found.content], {}, True, f"/memory/{found.id}")
    brain.forget([found.id])
    return RedirectResponse("/?forgotten=" + found.id, status_code=303)


async def supersede(request: Request) -> Response:
    return await _change(request, _supersede)


def _supersede(request: Request, form: dict[str, str] | None) -> Response:
    brain = _allowed(request)
    found = memory_or_404(brain, request.path_params["memory_id"])
    if found.memory_type != "episodic":
        raise HTTPException(400, "only an episode can be superseded by a correction; forget a principle instead")
    if form is None:
        details = [f"Replaces: {found.content}", "Write what holds now; the old memory is kept, marked superseded."]
        fields = {"content": "", "source": "told-by-user"}
        return _confirm(request, "Correct this memory", details, fields, False, f"/memory/{found.id}")
    source = form.get("source", "told-by-user")
    if source not in SOURCES:
        raise InvalidInputError(f"unknown source {source!r}: choose one of {', '.join(SOURCES)}")
    new = brain.encode(form.get("content", ""), source, supersedes=found.id)
    return RedirectResponse(f"/memory/{new}", status_code=303)


async def settle(request: Request) -> Response:
    return await _change(request, _settle)


def _settle(request: Request, form: dict[str, str] | None) -> Response:
    brain = _allowed(request)
    found = contradiction_or_404(brain, request.path_params["contradiction_id"])
    given = dict(request.query_params) if form is None else form
    winner = given.get("winner", "")
    if winner not in (found.claim_a_id, found.claim_b_id, "both"):
        raise HTTPException(400, "winner must name one of the two claims, or be 'both'")
    if form is None:
        claims = {m.id: m.content for m in brain.get_many([found.claim_a_id, found.claim_b_id]) if m is not None}
        details = ["Both claims hold." if winner == "both" else f"Keep: {claims.get(winner, winner)}"]
        details += [f"Set aside (kept, disputed): {text}" for i, text in claims.items() if winner not in ("both", i)]
        return _confirm(request, "Settle this dispute?", details, {"winner": winner, "reason": ""}, False, "/disputes")
    brain.settle_contradiction(found.id, None if winner == "both" else winner, form.get("reason", ""))
    return RedirectResponse("/disputes?state=resolved", status_code=303)


async def rollback(request: Request) -> Response:
    return await _change(request, _rollback)


def _rollback(request: Request, form: dict[str, str] | None) -> Response:
    brain = _allowed(request)
    found = run_or_404(brain, request.path_params["run_id"])
    if form is None:
        details = [
            f"{len(found.output_memory_ids)} principles it made become rolled_back (kept, out of recall)",
            f"{len(found.input_episode_ids)} episodes it read become unconsolidated again",
        ]
        return _confirm(request, f"Roll back run {found.id}?", details, {}, True, f"/runs/{found.id}")
    brain.rollback(found.id)
    return RedirectResponse(f"/runs/{found.id}", status_code=303)
