"""``AudreyMemoryMiddleware`` for ``langchain.agents.create_agent``, and memory tools for agents that manage memory
themselves. Recall and encoding are Audrey's; this module only moves messages in and context out."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.tools import ToolRuntime
from langchain_core.messages import AnyMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from audrey_core import SOURCES, Audrey, RecallResult
from audrey_core.conversation import (
    REMEMBERED_SPEAKERS,
    message_id,
    remembered_speakers,
    render_memories,
    source_for_role,
    speaker_for_role,
    worth_remembering,
)

from .adapters import message_text


def format_memories(results: Sequence[RecallResult]) -> str:
    """The block of recalled memories put in front of the model (Audrey's rendering, with memory types)."""
    return render_memories(results)


def latest_user_text(messages: Sequence[AnyMessage]) -> str | None:
    """The text of the last human message, if any."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            text = message_text(message).strip()
            return text or None
    return None


def turn_items(
    messages: Sequence[AnyMessage],
    agent: str,
    scope: tuple[str, ...] | None,
    session: str | None = None,
    speakers: frozenset[str] = frozenset(REMEMBERED_SPEAKERS),
    questions: bool = False,
) -> list[dict[str, Any]]:
    """``encode_batch`` items for the last turn (from the last human message on) worth remembering
    (``audrey_core.conversation.worth_remembering``): the user's words as told-by-user, the model's own text as
    model-generated and, when ``speakers`` has ``tool``, tool output as tool-result (never a tool's error, nor the
    output of Audrey's own memory tools: what recall returned is not a new memory). Ids derive from message ids, so
    encoding a turn twice stores it once. With a ``session`` (the thread), each message is stored as a turn of it,
    with its speaker (the message's ``name`` when it has one): recall reads it with its neighbours."""
    start = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=None)
    if start is None:
        return []
    items = []
    for message in messages[start:]:
        text = message_text(message).strip()
        if not worth_remembering(message.type, text, speakers, questions):
            continue  # e.g. an AI message that only calls tools, a bare question, tool output not asked for
        if isinstance(message, ToolMessage) and (message.status == "error" or message.name in MEMORY_TOOL_NAMES):
            continue
        item: dict[str, Any] = {
            "content": text,
            "source": source_for_role(message.type),
            "metadata": {"message_type": message.type},
        }
        if session is not None:
            item |= {"session": session, "speaker": speaker_for_role(message.type, message.name)}
        if message.id:
            item["id"] = message_id("T", agent, message.id)
        if scope:
            item["scope"] = scope
        items.append(item)
    return items


ScopeOption = Sequence[str] | Callable[[Any], Sequence[str] | None] | None


def scope_for(scope: ScopeOption, runtime: Any) -> tuple[str, ...] | None:
    """The scope of one run: the one given, or what a callable returns for the run's runtime (LangGraph's
    ``Runtime`` or a tool's ``ToolRuntime``: both carry the run's ``context``)."""
    if not callable(scope):
        return tuple(scope) if scope else None
    if runtime is None:
        raise ValueError("a scope chosen per run needs the run's runtime: use the memory tools inside an agent")
    chosen = scope(runtime)
    if chosen is None:
        return None
    if isinstance(chosen, str) or not all(isinstance(label, str) for label in chosen):
        raise TypeError(f"the scope callable must return a sequence of str labels or None, not {chosen!r}")
    return tuple(chosen) or None


def thread_of(runtime: Any) -> str | None:
    """The conversation thread an agent runs in (LangGraph's ``thread_id``; None without a checkpointer)."""
    info = getattr(runtime, "execution_info", None)
    thread = getattr(info, "thread_id", None)
    return str(thread) if thread else None


class AudreyMemoryMiddleware(AgentMiddleware):
    """Long-term memory for an agent: before each model call, what Audrey recalls for the latest user message is
    added to the system message (at most ``k`` memories within ``token_budget`` tokens); after the agent's turn,
    the exchange is encoded. ``with_tools=True`` also gives the model the remember / recall / forget_or_supersede
    tools.

    ``scope`` keeps one user's memories apart from another's: a fixed path (``("user", "ada")``), or a callable
    given the run's runtime that returns one, so one middleware serves many users (``scope=lambda runtime: ("user",
    runtime.context.user_id)`` with ``create_agent(..., context_schema=...)``). ``remember`` names whose messages are
    stored: ``"user"`` and ``"assistant"`` by default; add ``"tool"`` for tool output (a tool's errors and the memory
    tools' own output are never stored). A message that only asks a question is not stored unless
    ``remember_questions``: it states nothing, and stored it would outrank the statement that answers it.
    """

    def __init__(
        self,
        audrey: Audrey,
        *,
        k: int = 5,
        token_budget: int = 400,
        min_confidence: float = 0.0,
        scope: ScopeOption = None,
        with_tools: bool = False,
        remember: Sequence[str] = REMEMBERED_SPEAKERS,
        remember_questions: bool = False,
    ) -> None:
        super().__init__()
        self.audrey = audrey
        self.k = k
        self.token_budget = token_budget
        self.min_confidence = min_confidence
        if isinstance(scope, str):
            raise TypeError("scope is a sequence of labels, e.g. ('user', 'ada'), or a callable returning one")
        self.scope: ScopeOption = scope if callable(scope) else (tuple(scope) if scope else None)
        self.remember = remembered_speakers(remember)
        self.remember_questions = remember_questions
        self.tools = memory_tools(audrey, scope=self.scope) if with_tools else []

    @property
    def name(self) -> str:
        return "AudreyMemoryMiddleware"

    def _recall_options(self, runtime: Any) -> dict[str, Any]:
        options: dict[str, Any] = {
            "limit": self.k,
            "min_confidence": self.min_confidence,
            "token_budget": self.token_budget,
        }
        scope = scope_for(self.scope, runtime)
        if scope:
            options["scope"] = scope
        return options

    def _items(self, state: Any, runtime: Any) -> list[dict[str, Any]]:
        scope = scope_for(self.scope, runtime)
        messages = state["messages"]
        return turn_items(
            messages, self.audrey.agent, scope, thread_of(runtime), self.remember, self.remember_questions
        )

    def _with_memories(self, request: ModelRequest, results: Sequence[RecallResult]) -> ModelRequest:
        block = format_memories(results)
        if not block:
            return request
        current = request.system_message.text if request.system_message is not None else ""
        content = f"{current}\n\n{block}" if current else block
        return request.override(system_message=SystemMessage(content=content))

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        query = latest_user_text(request.messages)
        if query is None:
            return handler(request)
        results = self.audrey.recall(query, **self._recall_options(request.runtime))
        return handler(self._with_memories(request, results))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        query = latest_user_text(request.messages)
        if query is None:
            return await handler(request)
        results = await self.audrey.arecall(query, **self._recall_options(request.runtime))
        return await handler(self._with_memories(request, results))

    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        items = self._items(state, runtime)
        if items:
            self.audrey.encode_batch(items, replace=True)
        return None

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        items = self._items(state, runtime)
        if items:
            await self.audrey.aencode_batch(items, replace=True)
        return None


MEMORY_TOOL_NAMES = frozenset({"remember", "recall", "forget_or_supersede"})


def memory_tools(audrey: Audrey, *, scope: ScopeOption = None, k: int = 5) -> list[BaseTool]:
    """Tools for an agent that manages its own memory: remember, recall and forget_or_supersede. ``scope`` is fixed
    or, as for the middleware, a callable given the run's runtime (the tools then work inside an agent only)."""

    def where(runtime: ToolRuntime | None) -> dict[str, Any]:
        chosen = scope_for(scope, runtime)
        return {"scope": chosen} if chosen else {}

    def remember(
        content: str,
        source: str = "inference",
        tags: list[str] | None = None,
        runtime: ToolRuntime = None,  # type: ignore[assignment]  # injected by the agent, hidden from the model
    ) -> str:
        """Store something worth remembering. source: told-by-user (the user said it), tool-result, inference
        (your conclusion), direct-observation or model-generated. Returns the new memory's id."""
        if source not in SOURCES:
            return f"error: source must be one of {', '.join(SOURCES)}"
        return audrey.encode(content, source=source, tags=tags, **where(runtime))

    def recall(query: str, limit: int = k, runtime: ToolRuntime = None) -> str:  # type: ignore[assignment]
        """Look up memories relevant to the query; each line has its id, confidence and source."""
        results = audrey.recall(query, limit=limit, **where(runtime))
        return render_memories(results, None, show_type=False, show_ids=True) or "no relevant memories"

    def forget_or_supersede(
        memory_id: str,
        correction: str | None = None,
        runtime: ToolRuntime = None,  # type: ignore[assignment]
    ) -> str:
        """Fix a memory: with a correction, store it as superseding the old one (kept for the record, no longer
        recalled); without one, forget the memory for good."""
        place = where(runtime)
        mine = place.get("scope")
        memory = audrey.get(memory_id)
        if memory is None or (mine and tuple(memory.scope[: len(mine)]) != tuple(mine)):
            return f"no memory {memory_id}"  # the tools reach only their own scope, whatever id they are given
        if correction:
            return "superseded by " + audrey.encode(correction, source="inference", supersedes=memory_id, **place)
        return "forgotten" if audrey.forget([memory_id]) else f"no memory {memory_id}"

    return [StructuredTool.from_function(f) for f in (remember, recall, forget_or_supersede)]
