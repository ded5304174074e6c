"""``AudreyMemoryMiddleware`` for ``langchain.agents.create_agent``, and memory tools for agents that manage memory
themselves. Recall and encoding are Audrey's; this module only moves messages in and context out."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AnyMessage, HumanMessage, SystemMessage
from langchain_core.tools import BaseTool, StructuredTool

from audrey_core import SOURCES, Audrey, RecallResult
from audrey_core.conversation import message_id, render_memories, source_for_role, speaker_for_role

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
    messages: Sequence[AnyMessage], agent: str, scope: tuple[str, ...] | None, session: str | None = None
) -> list[dict[str, Any]]:
    """``encode_batch`` items for the last turn (from the last human message on): the user's words as told-by-user,
    tool output as tool-result, the model's own text as model-generated. Ids derive from message ids, so encoding a
    turn twice stores it once. With a ``session`` (the thread), each message is stored as a turn of it, with its
    speaker: recall reads it with its neighbours."""
    start = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=None)
    if start is None:
        return []
    items = []
    for message in messages[start:]:
        source = source_for_role(message.type)
        if source is None:
            continue
        text = message_text(message).strip()
        if not text:
            continue  # e.g. an AI message that only calls tools
        item: dict[str, Any] = {"content": text, "source": source, "metadata": {"message_type": message.type}}
        if session is not None:
            item |= {"session": session, "speaker": speaker_for_role(message.type)}
        if message.id:
            item["id"] = message_id("T", agent, message.id)
        if scope:
            item["scope"] = scope
        items.append(item)
    return items


def thread_of(runtime: Any) -> str | None:
    """The conversation thread an agent runs in (LangGraph's ``thread_id``; None without a checkpointer)."""
    info = getattr(runtime, "execution_info", None)
    thread = getattr(info, "thread_id", None)
    return str(thread) if thread else None


class AudreyMemoryMiddleware(AgentMiddleware):
    """Long-term memory for an agent: before each model call, what Audrey recalls for the latest user message is
    added to the system message (at most ``k`` memories within ``token_budget`` tokens); after the agent's turn,
    the exchange is encoded. ``scope`` keeps one user's memories apart from another's. ``with_tools=True`` also gives
    the model the remember / recall / forget_or_supersede tools.
    """

    def __init__(
        self,
        audrey: Audrey,
        *,
        k: int = 5,
        token_budget: int = 400,
        min_confidence: float = 0.0,
        scope: Sequence[str] | None = None,
        with_tools: bool = False,
    ) -> None:
        super().__init__()
        self.audrey = audrey
        self.k = k
        self.token_budget = token_budget
        self.min_confidence = min_confidence
        self.scope = tuple(scope) if scope else None
        self.tools = memory_tools(audrey, scope=self.scope) if with_tools else []

    @property
    def name(self) -> str:
        return "AudreyMemoryMiddleware"

    def _recall_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {
            "limit": self.k,
            "min_confidence": self.min_confidence,
            "token_budget": self.token_budget,
        }
        if self.scope:
            options["scope"] = self.scope
        return options

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
        return handler(self._with_memories(request, self.audrey.recall(query, **self._recall_options())))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        query = latest_user_text(request.messages)
        if query is None:
            return await handler(request)
        results = await self.audrey.arecall(query, **self._recall_options())
        return await handler(self._with_memories(request, results))

    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        items = turn_items(state["messages"], self.audrey.agent, self.scope, thread_of(runtime))
        if items:
            self.audrey.encode_batch(items, replace=True)
        return None

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        items = turn_items(state["messages"], self.audrey.agent, self.scope, thread_of(runtime))
        if items:
            await self.audrey.aencode_batch(items, replace=True)
        return None


def memory_tools(audrey: Audrey, *, scope: Sequence[str] | None = None, k: int = 5) -> list[BaseTool]:
    """Tools for an agent that manages its own memory: remember, recall and forget_or_supersede."""
    where = {"scope": tuple(scope)} if scope else {}

    def remember(content: str, source: str = "inference", tags: list[str] | None = None) -> str:
        """Store something worth remembering. source: told-by-user (the user said it), tool-result, inference
        (your conclusion), direct-observation or model-generated. Returns the new memory's id."""
        if source not in SOURCES:
            return f"error: source must be one of {', '.join(SOURCES)}"
        return audrey.encode(content, source=source, tags=tags, **where)

    def recall(query: str, limit: int = k) -> str:
        """Look up memories relevant to the query; each line has its id, confidence and source."""
        results = audrey.recall(query, limit=limit, **where)
        return render_memories(results, None, show_type=False, show_ids=True) or "no relevant memories"

    def forget_or_supersede(memory_id: str, correction: str | None = None) -> str:
        """Fix a memory: with a correction, store it as superseding the old one (kept for the record, no longer
        recalled); without one, forget the memory for good."""
        memory = audrey.get(memory_id)
        if memory is None or (scope and tuple(memory.scope[: len(scope)]) != tuple(scope)):
            return f"no memory {memory_id}"  # the tools reach only their own scope, whatever id they are given
        if correction:
            return "superseded by " + audrey.encode(correction, source="inference", supersedes=memory_id, **where)
        return "forgotten" if audrey.forget([memory_id]) else f"no memory {memory_id}"

    return [StructuredTool.from_function(f) for f in (remember, recall, forget_or_supersede)]
