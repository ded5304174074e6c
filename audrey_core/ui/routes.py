"""The pages: search, a memory, namespaces and their keys (a LangGraph store's items), disputes, consolidation runs, the
timeline and status (read-only), and the changes
``--allow-writes`` enables (:mod:`.actions`). Handlers are plain functions: Starlette runs them on its threadpool, as
Audrey's calls block."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..errors import InvalidInputError
from ..states import CONTRADICTION_STATES, MEMORY_STATES
from .actions import action_routes
from .forms import PAGE, offset_from, search_from
from .plots import line_plot, stacked_bars
from .render import AGENT_COOKIE, memory_or_404, page, run_or_404, settings_of
from .views import confidence_curve, score_parts, timeline_buckets

DISPUTE_STATES = CONTRADICTION_STATES


def routes() -> list[Route]:
    return [
        Route("/", search),
        Route("/agent", pick_agent),
        Route("/memory/{memory_id}", memory),
        Route("/namespaces", namespaces),
        Route("/disputes", disputes),
        Route("/runs", runs),
        Route("/runs/{run_id}", run),
        Route("/timeline", timeline),
        Route("/status", status),
        *action_routes(),
    ]


def brain_of(request: Request) -> Any:
    return settings_of(request).brain_for(request)


def pick_agent(request: Request) -> Response:
    """The agent picker: look at another agent's memory in this store (kept in a cookie), then search it."""
    settings = settings_of(request)
    agent = (request.query_params.get("name") or "").strip()
    settings.opened(agent)  # 404 when the page is confined, 400 when the store holds no such agent
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(AGENT_COOKIE, agent, httponly=True, samesite="strict")
    return response


def render(request: Request, name: str, context: dict[str, Any], status_code: int = 200) -> Response:
    return page(request, name, context, status_code)


def search(request: Request) -> Response:
    form = search_from(request.query_params)
    brain = brain_of(request)
    options = form.recall_options()
    results, listed = [], []
    if form.query:
        found = brain.recall(
            form.query,
            limit=form.limit,
            min_confidence=form.min_confidence,
            mode=form.mode,
            include_provenance=True,
            reinforce=False,  # looking is not using: nothing shown here is reinforced
            **options,
        )
        influence = brain.config.recall.confidence_influence
        results = [(r, score_parts(r, influence, brain.config.confidence)) for r in found]
    else:
        listed = brain.list_memories(limit=PAGE + 1, offset=form.offset, **options)
    others: dict[str, int] = {}
    narrowed = any((form.types, form.tags, form.sources, form.states, form.scope, form.start, form.end))
    if not form.query and not listed and not narrowed and not brain.scope:  # an empty agent: say whose are here
        others = {agent: count for agent, count in brain.agents().items() if agent != brain.agent}
    context = {"form": form, "results": results, "listed": listed[:PAGE], "more": len(listed) > PAGE, "page": PAGE}
    return render(request, "search.html", {**context, "others": others})


def memory(request: Request) -> Response:
    brain = brain_of(request)
    found = memory_or_404(brain, request.path_params["memory_id"])
    chain = brain.update_chain(found.id)
    disputes = brain.contradictions(memory_id=found.id)
    others = brain.get_many([c.claim_b_id if c.claim_a_id == found.id else c.claim_a_id for c in disputes])
    evidence = brain.get_many(list(getattr(found, "evidence_episode_ids", ()) or ()))
    citing = brain.principles_citing(found.id) if found.memory_type == "episodic" else []
    links = brain.causal_links(involving=found.id)
    points, projected, marks = confidence_curve(found, brain.clock(), brain.config.confidence)
    plot = line_plot(points, projected, marks, "confidence over time")
    context = {
        "memory": found,
        "confidence": brain.confidence(found),
        "chain": chain,
        "disputes": list(zip(disputes, others)),
        "evidence": [m for m in evidence if m is not None],
        "citing": citing,
        "links": links,
        "chunks": brain.chunks(found.id),
        "plot": plot,
    }
    return render(request, "memory.html", context)


def namespaces(request: Request) -> Response:
    """Without ``ns``: every scope holding memories (a LangGraph store's namespaces); with ``ns=a/b``: the memories
    of that namespace exactly, each under its key (a store item's key), a page at a time."""
    brain = brain_of(request)
    chosen = (request.query_params.get("ns") or "").strip("/")
    if not chosen:
        found = [("/".join(ns), ns) for ns in brain.scopes() if ns]
        return render(request, "namespaces.html", {"namespaces": found, "namespace": None})
    path = tuple(chosen.split("/"))
    offset = offset_from(request.query_params)
    try:
        listed = brain.list_memories(limit=PAGE + 1, offset=offset, scope=path)
    except InvalidInputError as exc:  # a namespace outside this page's scope, or not a path
        raise HTTPException(400, str(exc)) from exc
    context = {"namespace": chosen, "items": listed[:PAGE], "more": len(listed) > PAGE, "offset": offset}
    return render(request, "namespaces.html", {**context, "page": PAGE})


def disputes(request: Request) -> Response:
    brain = brain_of(request)
    wanted = request.query_params.get("state", "open")
    if wanted not in (*DISPUTE_STATES, "all"):
        raise HTTPException(400, f"unknown state {wanted!r}: choose one of {', '.join(DISPUTE_STATES)} or all")
    offset = offset_from(request.query_params)
    states = None if wanted == "all" else ["open", "reopened"] if wanted == "open" else [wanted]
    found = list(reversed(brain.contradictions(states)))  # newest first
    shown = found[offset : offset + PAGE]
    claims = brain.get_many([i for c in shown for i in (c.claim_a_id, c.claim_b_id)])
    pairs = [(c, claims[2 * i], claims[2 * i + 1]) for i, c in enumerate(shown)]
    context = {"pairs": pairs, "state": wanted, "states": DISPUTE_STATES, "offset": offset, "page": PAGE}
    context["total"] = len(found)
    return render(request, "disputes.html", context)


def runs(request: Request) -> Response:
    brain = brain_of(request)
    offset = offset_from(request.query_params)
    history = list(reversed(brain.consolidation_history()))
    context = {"runs": history[offset : offset + PAGE], "offset": offset, "page": PAGE, "total": len(history)}
    return render(request, "runs.html", context)


def run(request: Request) -> Response:
    brain = brain_of(request)
    found = run_or_404(brain, request.path_params["run_id"])
    inputs = [m for m in brain.get_many(list(found.input_episode_ids)) if m is not None]
    outputs = [m for m in brain.get_many(list(found.output_memory_ids)) if m is not None]
    return render(request, "run.html", {"run": found, "inputs": inputs, "outputs": outputs})


def timeline(request: Request) -> Response:
    rows = brain_of(request).timeline()
    unit, by_type = timeline_buckets(rows, "type")
    _, by_state = timeline_buckets(rows, "state")
    states = MEMORY_STATES
    plots = {
        "type": stacked_bars(by_type, ("episodic", "semantic", "procedural"), "memories stored, by type"),
        "state": stacked_bars(by_state, states, "memories stored, by their state now"),
    }
    table = [(label, counts, sum(counts.values())) for label, counts in by_state]
    return render(request, "timeline.html", {"unit": unit, "plots": plots, "table": table, "states": states})


def status(request: Request) -> Response:
    brain = brain_of(request)
    facts = brain.introspect()
    return render(request, "status.html", {"facts": facts, "store": brain.location})
