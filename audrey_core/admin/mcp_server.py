"""``audrey mcp``: one Audrey memory served over the Model Context Protocol (the official ``mcp`` SDK), so Claude
Desktop, Cursor, IDE assistants and LangChain / LlamaIndex agents (through their MCP adapters) share it.

Every tool works through one :class:`~audrey_core.Audrey` instance, so the server reaches only its agent and scope
(``--agent``, ``--scope``) and a scope of another tenant is refused as in Python. Audrey's errors come back as MCP
tool errors carrying Audrey's message, and a refused call writes nothing. Tools run on worker threads, so a slow
embedding never stalls the server's other sessions. The store may be open in a Python agent at the same time (an
SQLite file or a PostgreSQL URL).
"""

# No `from __future__ import annotations`: the SDK reads the tool signatures at run time, scope_path included.

import hmac
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Annotated, Any, TypeVar

import anyio
from pydantic import Field, ValidationError

from .. import __version__
from ..audrey import Audrey
from ..config import MemoryType, Source
from ..conversation import render_memories
from ..errors import AudreyError, ConfigurationError, install_hint
from ..models import to_plain
from ..rules.arguments import check_scope, parse_scope_path, scope_path
from ..rules.recall_options import RecallOrder
from ..rules.serving import needs_token
from ..states import ContradictionState

# The SDK's high-level server: `MCPServer` in mcp 2.x, `FastMCP` in 1.x (2.x renamed it and moved the HTTP settings
# from the constructor to the app). Both are supported: the [mcp] extra alone resolves to 2.x, while
# langchain-mcp-adapters (the [mcp-langchain] extra) still caps mcp below 2.
try:
    from mcp.server.mcpserver import MCPServer as HighLevelServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    SDK_MAJOR = 2
except ImportError:
    try:
        from mcp.server.fastmcp import FastMCP as HighLevelServer  # type: ignore[no-redef]
        from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]
        from mcp.types import ToolAnnotations

        SDK_MAJOR = 1
    except ImportError:  # the `mcp` extra is not installed
        HighLevelServer = None  # type: ignore[assignment,misc]

T = TypeVar("T")
INSTRUCTIONS = (
    "Audrey is a long-term memory that validates what it is told. Call `recall` before answering anything that may "
    "depend on earlier conversations, and `remember` for facts worth keeping, naming honestly where each came from "
    "(`source`): what the user said is told-by-user, what a tool returned is tool-result, your own conclusions are "
    "inference or model-generated. When a fact changed, `supersede` the old memory rather than adding a rival. "
    "Results carry confidence, state and counterclaims: say so when the record disagrees with itself."
)
SOURCE_HELP = (
    "Where this came from: told-by-user (the user said it), direct-observation (seen first-hand; the default), "
    "tool-result (a tool returned it), inference (concluded from other memories), model-generated (written by a model "
    "unprompted)."
)
DEFAULT_SOURCE: Source = "direct-observation"  # as the command line's `audrey encode`


def argument_errors(tool: str, error: ValidationError) -> str:
    """A tool's arguments refused by their schema, in the tool's terms: which argument, and what it takes."""
    said = []
    for problem in error.errors(include_url=False):
        name = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in problem["loc"]).lstrip(".")
        name = name or "the arguments"
        kind, context = problem["type"], problem.get("ctx") or {}
        if kind == "missing":
            said.append(f"'{name}' is required")
        elif kind == "extra_forbidden":
            said.append(f"'{name}' is not an argument of {tool}")
        elif kind == "literal_error":
            said.append(f"'{name}' must be one of {context.get('expected', 'the listed values')}")
        elif kind.startswith("int_"):
            said.append(f"'{name}' must be a whole number")
        elif kind.startswith(("float_", "greater_than", "less_than")):
            said.append(
                f"'{name}' must be a number"
                + (f" {problem['msg'].split('should be ')[-1]}" if "should be" in problem["msg"] else "")
            )
        elif kind.startswith("string_"):
            said.append(f"'{name}' must be text")
        elif kind.startswith("list_"):
            said.append(f"'{name}' must be a list")
        elif kind.startswith("dict_"):
            said.append(f"'{name}' must be a JSON object")
        elif kind.startswith("bool_"):
            said.append(f"'{name}' must be true or false")
        else:
            said.append(f"'{name}': {problem['msg']}")
    return f"Error executing tool {tool}: " + "; ".join(dict.fromkeys(said))


def require_mcp() -> None:
    if HighLevelServer is None:
        installed = _installed_mcp()
        if installed is not None:  # present, but with neither server this one is built on (a 3.x, or a broken one)
            raise ConfigurationError(
                f"audrey mcp needs the MCP SDK 1.x or 2.x (its MCPServer or FastMCP server); mcp {installed} is "
                f"installed: pip install 'mcp>=1.20,<3'"
            )
        raise ConfigurationError(f"audrey mcp needs the MCP SDK: {install_hint('mcp')}")


def _installed_mcp() -> str | None:
    """The version of the installed MCP SDK, if any."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp")
    except PackageNotFoundError:
        return None


def _server_class() -> Any:
    """The SDK's server whose arguments refused by a tool's schema are said in the tool's terms (which argument,
    what it takes) instead of pydantic's text. Both majors look ``call_tool`` up on the class."""

    class AudreyServer(HighLevelServer):  # type: ignore[misc,valid-type]
        async def call_tool(self, name: str, arguments: dict[str, Any], *rest: Any, **options: Any) -> Any:
            try:
                return await super().call_tool(name, arguments, *rest, **options)
            except ToolError as exc:
                if isinstance(exc.__cause__, ValidationError):
                    raise ToolError(argument_errors(name, exc.__cause__)) from None
                raise

    return AudreyServer


def build_server(brain: Audrey, name: str = "audrey", host: str = "127.0.0.1", port: int = 8765) -> Any:
    """The SDK's high-level server whose tools remember, recall, forget, supersede, consolidate, list
    contradictions and report status through ``brain``. ``host`` and ``port`` matter for HTTP only (localhost turns
    on the SDK's DNS-rebinding protection); on mcp 2.x they are given to :func:`http_app` instead."""
    require_mcp()
    serving = _server_class()
    if SDK_MAJOR >= 2:
        server = serving(name, instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
    else:
        server = serving(name, instructions=INSTRUCTIONS, host=host, port=port, log_level="WARNING")
        # FastMCP 1.x takes no version: its server would report the SDK's as its own in `serverInfo`
        server._mcp_server.version = __version__

    async def run(work: Callable[[], T]) -> T:
        try:
            return await anyio.to_thread.run_sync(work)
        except AudreyError as exc:
            raise ToolError(str(exc)) from exc

    own = scope_path(brain.scope)
    below = "/".join([*brain.scope, "project"])

    def scope_of(given: Any) -> tuple[str, ...] | None:
        """A scope argument, "user/alice" or a list of labels, inside this server's scope (else a clear refusal)."""
        if given is None:
            return None
        labels = parse_scope_path(given) if isinstance(given, str) else check_scope(given)
        if not brain.tenant.contains(labels):
            raise ToolError(
                f"scope {scope_path(labels)} lies outside this server's scope {own}: it serves {own} and the scopes "
                f"below it (such as {below}); another scope needs its own server (audrey mcp --scope PATH)"
            )
        return labels

    scope_path_argument = Annotated[
        str | list[str] | None,
        Field(
            description=f"A scope such as {below!r}: this server's scope ({own!r}) or one below it, as a path "
            "(a list of labels also works). Omit for the server's own scope."
        ),
    ]

    read_only = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
    writes = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)

    @server.tool(annotations=writes)
    async def remember(
        content: Annotated[str, Field(description="The observation or fact to keep, in a sentence or a few.")],
        source: Annotated[Source, Field(description=SOURCE_HELP)] = DEFAULT_SOURCE,
        tags: Annotated[list[str] | None, Field(description="Labels to filter recall by later.")] = None,
        scope: scope_path_argument = None,  # type: ignore[valid-type]
        salience: Annotated[float, Field(description="How much it matters, 0 to 1.", ge=0, le=1)] = 0.5,
        metadata: Annotated[dict[str, Any] | None, Field(description="JSON values stored with it.")] = None,
        session: Annotated[
            str | None,
            Field(description="For a turn of a conversation: the conversation's id (turns are read together)."),
        ] = None,
        speaker: Annotated[str | None, Field(description="For a turn of a conversation: who said it.")] = None,
        ttl_seconds: Annotated[
            float | None,
            Field(description="Forget it after this many seconds (it is never recalled again, then deleted).", gt=0),
        ] = None,
    ) -> dict[str, Any]:
        """Store an observation as a new memory. Audrey checks it against what it already holds in the background:
        a repeat reinforces, a newer value of the same fact updates, a disagreement is kept as a contradiction."""
        where = {"scope": scope_of(scope), "session": session, "speaker": speaker, "ttl": ttl_seconds}
        encode = partial(brain.encode, content, source, salience, tags, None, None, metadata, **where)
        return {"id": await run(encode)}

    @server.tool(annotations=read_only)
    async def recall(
        query: Annotated[str, Field(description="What to look for, in words.")],
        limit: Annotated[int, Field(description="How many memories at most.", ge=1)] = 10,
        types: Annotated[list[MemoryType] | None, Field(description="Only these memory types.")] = None,
        tags: Annotated[list[str] | None, Field(description="Only memories with any of these tags.")] = None,
        sources: Annotated[list[Source] | None, Field(description="Only memories from these sources.")] = None,
        scope: scope_path_argument = None,  # type: ignore[valid-type]
        min_confidence: Annotated[
            float, Field(description="Leave out memories below this confidence (0 to 1).", ge=0, le=1)
        ] = 0.0,
        token_budget: Annotated[int | None, Field(description="Stop before the contents exceed this.", ge=1)] = None,
        order: Annotated[RecallOrder, Field(description="'time': the chosen memories oldest first.")] = "relevance",
    ) -> dict[str, Any]:
        """Memories relevant to the query, best first by relevance x confidence, answering what is true now (a
        replaced fact is left out). Dates and times in the query ("in May 2023", "last week") narrow or favour what
        was said then. Each result says why it was returned (relevance, confidence and its parts), its state and
        source, and the other side of any open contradiction it is part of."""
        filters: dict[str, Any] = {"token_budget": token_budget, "order": order}
        if scope is not None:
            filters["scope_prefix"] = scope_of(scope)
        options = {"min_confidence": min_confidence, "types": types, "tags": tags, "sources": sources}
        found = partial(brain.recall, query, limit, **options, **filters)
        return {"results": [_result(hit) for hit in await run(found)]}

    @server.tool(annotations=writes)
    async def supersede(
        memory_id: Annotated[str, Field(description="The id of the memory that no longer holds.")],
        content: Annotated[str, Field(description="What holds now.")],
        source: Annotated[Source, Field(description=SOURCE_HELP)] = DEFAULT_SOURCE,
        tags: Annotated[list[str] | None, Field(description="Labels to filter recall by later.")] = None,
    ) -> dict[str, Any]:
        """Record that a fact changed: a new memory replaces the old one, which is kept (marked superseded, out of
        recall) so its history stays visible."""
        if await run(partial(brain.get, memory_id)) is None:
            raise ToolError(f"memory_id {memory_id!r} names no memory this server holds")
        encode = partial(brain.encode, content, source, 0.5, tags, None, memory_id)
        return {"id": await run(encode), "supersedes": memory_id}

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False))
    async def forget(
        ids: Annotated[list[str], Field(description="Ids of memories to delete for good.")],
    ) -> dict[str, Any]:
        """Delete memories permanently (an audit entry records it). Prefer `supersede` when a fact merely changed."""
        deleted = await run(partial(brain.forget, ids))
        return {"forgotten": deleted, "not_found": [i for i in dict.fromkeys(ids) if i not in deleted]}

    @server.tool(annotations=writes)
    async def consolidate() -> dict[str, Any]:
        """Run a consolidation ("sleep") cycle: clusters of related episodes become principles and procedures,
        each linked to the episodes it rests on. Returns what was learned."""
        done = await run(brain.consolidate)
        learned = await run(partial(brain.get_many, list(done.output_memory_ids)))
        return {
            "run_id": done.id,
            "status": done.status,
            "episodes_used": len(done.input_episode_ids),
            "learned": [{"id": m.id, "memory_type": m.memory_type, "content": m.content} for m in learned if m],
            "error": done.error,
        }

    @server.tool(annotations=read_only)
    async def contradictions(
        states: Annotated[
            list[ContradictionState] | None,
            Field(description="Only contradictions in these states (default: all)."),
        ] = None,
    ) -> dict[str, Any]:
        """Claims in the memory that disagree, both sides kept, with the state of each disagreement."""
        found = await run(partial(brain.contradictions, states))
        claims = await run(partial(brain.get_many, [i for c in found for i in (c.claim_a_id, c.claim_b_id)]))
        by_id = {m.id: m for m in claims if m is not None}
        return {"contradictions": [_contradiction(c, by_id) for c in found]}

    @server.tool(annotations=read_only)
    async def status() -> dict[str, Any]:
        """What the memory holds: counts by type and state, contradictions, last consolidation, sources, model."""
        summary = to_plain(await run(brain.introspect))
        for index in summary.get("indexes") or []:
            index.pop("folder", None)  # where the server keeps its files is not the client's business
        return {"agent": brain.agent, "scope": own, **summary}

    return server


def _result(hit: Any) -> dict[str, Any]:
    relevance = hit.relevance if hit.relevance is not None else hit.similarity
    why = f"relevance {relevance:.2f} x confidence {hit.confidence:.2f} = score {hit.score:.2f}"
    return {
        "id": hit.id,
        "content": hit.content,
        "memory_type": hit.memory_type,
        "state": hit.state,
        "source": hit.source,
        "confidence": round(hit.confidence, 4),
        "score": round(hit.score, 4),
        "why": why,
        "confidence_parts": to_plain(hit.breakdown),
        "scope": scope_path(hit.scope),
        "tags": list(hit.tags),
        "created_at": hit.created_at.isoformat(),
        "observed_at": hit.observed_at.isoformat(),
        "reports": hit.evidence_count,
        "conditions": hit.conditions,
        "session": hit.session,
        "speaker": hit.speaker,
        "claim": to_plain(hit.claim) if hit.claim is not None else None,  # what it states, typed, if known
        "counterclaims": [_counterclaim(c) for c in hit.counterclaims],
        "as_text": render_memories([hit], None, show_type=False),
    }


def _counterclaim(c: Any) -> dict[str, Any]:
    """The other side of a dispute (or of a context-dependent pair), with when it was observed."""
    observed = c.observed_at.isoformat() if c.observed_at is not None else None
    return {"memory_id": c.memory_id, "content": c.content, "source": c.source, "relation": c.relation,
            "conditions": c.conditions, "observed_at": observed}  # fmt: skip


def _contradiction(found: Any, claims: dict[str, Any]) -> dict[str, Any]:
    def side(memory_id: str) -> dict[str, Any]:
        claim = claims.get(memory_id)
        return {"id": memory_id, "content": claim.content if claim else None, "source": claim.source if claim else None}

    return {
        "id": found.id,
        "state": found.state,
        "claim_a": side(found.claim_a_id),
        "claim_b": side(found.claim_b_id),
        "resolution": to_plain(found.resolution),
        "created_at": found.created_at.isoformat(),
    }


class BearerToken:
    """ASGI middleware: HTTP requests must carry ``Authorization: Bearer <token>`` (compared in constant time)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                from starlette.responses import JSONResponse

                response = JSONResponse({"error": "a valid bearer token is required"}, status_code=401)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def check_http(host: str, token: str | None) -> None:
    """Off localhost a token is required: the memory would otherwise be open to the network."""
    if needs_token(host, token):
        raise ConfigurationError(
            f"serving on {host} needs a token (--token or AUDREY_MCP_TOKEN): anyone who reaches the port could "
            "read and change this memory; use 127.0.0.1 to serve this machine only"
        )


def http_app(server: Any, host: str) -> Any:
    """The server's streamable HTTP app (path ``/mcp``); 2.x takes the host here, 1.x took it at construction."""
    if SDK_MAJOR >= 2:
        return server.streamable_http_app(host=host)
    return server.streamable_http_app()


def serve(brain: Audrey, http: tuple[str, int] | None = None, token: str | None = None) -> None:
    """Serve ``brain`` over stdio (``http=None``) or streamable HTTP at ``http`` (path ``/mcp``) until stopped."""
    if http is None:
        build_server(brain).run("stdio")
        return
    host, port = http
    check_http(host, token)
    app = http_app(build_server(brain, host=host, port=port), host)
    if token:
        app = BearerToken(app, token)
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")
