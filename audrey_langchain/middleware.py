"""``AudreyMemoryMiddleware`` for ``langchain.agents.create_agent``, and memory tools for agents that manage memory
themselves. Recall and encoding are Audrey's; this module only moves messages in and context out."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import PrivateStateAttr
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.channels.untracked_value import UntrackedValue
from typing_extensions import NotRequired

from audrey_core import SOURCES, Audrey, RecallResult
from audrey_core.conversation import (
    DEFAULT_REMEMBERING,
    PROMPT_SIMILARITY_FLOOR,
    REMEMBERED_SPEAKERS,
    Remembering,
    message_id,
    render_memories,
    source_for_role,
    speaker_for_role,
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
    remembering: Remembering = DEFAULT_REMEMBERING,
    recalled: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """``encode_batch`` items for what the last turn (from the last human message on) holds worth remembering
    (:class:`audrey_core.conversation.Remembering`): the user's words as told-by-user and, when asked, the model's
    own text as model-generated and a lasting tool's output as tool-result (never a tool's error, nor the output of
    Audrey's own memory tools: what recall returned is not a new memory). Ids derive from message ids, so encoding a
    turn twice stores it once. A reply records what it came from (``derived_from``): the user's words stored from the
    same turn and the ``recalled`` memories the model was shown, so it never counts as a second report of them. With
    a ``session`` (the thread), each message is stored as a turn of it, with its speaker (the message's ``name`` when
    it has one): recall reads it with its neighbours."""
    start = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=None)
    if start is None:
        return []
    items: list[dict[str, Any]] = []
    said: list[str] = [message_text(m) for m in messages[:start] if not isinstance(m, SystemMessage)]
    told: list[str] = []  # ids of the user's words stored from this turn
    for message in messages[start:]:
        text = message_text(message).strip()
        tool = message.name if isinstance(message, ToolMessage) else None
        failed = isinstance(message, ToolMessage) and (message.status == "error" or tool in MEMORY_TOOL_NAMES)
        kept = not failed and remembering.keeps(message.type, text, tool=tool, said=said)
        said.append(text)
        if not kept:
            continue  # a question, thanks, a non-answer, transient tool output, a reply that only calls tools
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
        if isinstance(message, HumanMessage):
            told.extend([item["id"]] if "id" in item else [])
        elif isinstance(message, AIMessage) and (told or recalled):
            item["derived_from"] = list(dict.fromkeys([*told, *recalled]))
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


class AudreyMemoryState(AgentState):
    """The agent's state with what Audrey put in front of the model for this run (neither is checkpointed): the
    rendered block and the ids of the memories in it, which the reply is recorded as drawn from."""

    audrey_memories: NotRequired[Annotated[str, UntrackedValue, PrivateStateAttr]]
    audrey_recalled: NotRequired[Annotated[list[str], UntrackedValue, PrivateStateAttr]]


class AudreyMemoryMiddleware(AgentMiddleware[AudreyMemoryState]):
    """Long-term memory for an agent: before each model call, what Audrey recalls for the latest user message is
    added to the system message (at most ``k`` memories within ``token_budget`` tokens, none whose similarity to
    the message is under ``min_similarity``: unrelated memories stay out of the prompt); after the agent's turn,
    what the turn holds worth remembering is encoded. ``with_tools=True`` also gives the model the remember / recall /
    forget_or_supersede tools.

    ``scope`` keeps one user's memories apart from another's: a fixed path (``("user", "ada")``), or a callable
    given the run's runtime that returns one, so one middleware serves many users (``scope=lambda runtime: ("user",
    runtime.context.user_id)`` with ``create_agent(..., context_schema=...)``).

    What is stored (:class:`audrey_core.conversation.Remembering`): what the user states. Not questions (unless
    ``remember_questions``), acknowledgements, thanks or bare non-answers (unless ``remember_chatter``). The
    model's replies only when ``remember`` names ``"assistant"`` (as model-generated, recorded as drawn from the
    user's words and the memories it was shown, and never its restatements of them); a tool's output only for the
    tools named in ``lasting_tools`` (``"tool"`` in ``remember``: every tool's), never a tool's error or the memory
    tools' own output. The thread's messages in the agent's state stay whole.
    """

    state_schema = AudreyMemoryState

    def __init__(
        self,
        audrey: Audrey,
        *,
        k: int = 5,
        token_budget: int = 400,
        min_confidence: float = 0.0,
        min_similarity: float | None = PROMPT_SIMILARITY_FLOOR,
        scope: ScopeOption = None,
        with_tools: bool = False,
        remember: Sequence[str] = REMEMBERED_SPEAKERS,
        remember_questions: bool = False,
        remember_chatter: bool = False,
        lasting_tools: Sequence[str] = (),
    ) -> None:
        super().__init__()
        self.audrey = audrey
        self.k = k
        self.token_budget = token_budget
        self.min_confidence = min_confidence
        self.min_similarity = min_similarity
        if isinstance(scope, str):
            raise TypeError("scope is a sequence of labels, e.g. ('user', 'ada'), or a callable returning one")
        self.scope: ScopeOption = scope if callable(scope) else (tuple(scope) if scope else None)
        self.remembering = Remembering.of(remember, remember_questions, remember_chatter, lasting_tools)
        self.tools = memory_tools(audrey, scope=self.scope) if with_tools else []

    @property
    def name(self) -> str:
        return "AudreyMemoryMiddleware"

    def _recall_options(self, runtime: Any) -> dict[str, Any]:
        options: dict[str, Any] = {
            "limit": self.k,
            "min_confidence": self.min_confidence,
            "min_similarity": self.min_similarity,
            "token_budget": self.token_budget,
        }
        scope = scope_for(self.scope, runtime)
        if scope:
            options["scope"] = scope
        return options

    def _items(self, state: Any, runtime: Any) -> list[dict[str, Any]]:
        scope = scope_for(self.scope, runtime)
        shown = list(state.get("audrey_recalled") or ())
        recalled = [i for i, m in zip(shown, self.audrey.get_many(shown)) if m is not None]  # not forgotten since
        return turn_items(state["messages"], self.audrey.agent, scope, thread_of(runtime), self.remembering, recalled)

    @staticmethod
    def _shown(results: Sequence[RecallResult]) -> dict[str, Any]:
        return {"audrey_memories": format_memories(results), "audrey_recalled": [r.id for r in results]}

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        query = latest_user_text(state["messages"])
        if query is None:
            return self._shown([])
        return self._shown(self.audrey.recall(query, **self._recall_options(runtime)))

    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        query = latest_user_text(state["messages"])
        if query is None:
            return self._shown([])
        return self._shown(await self.audrey.arecall(query, **self._recall_options(runtime)))

    @staticmethod
    def _with_memories(request: ModelRequest) -> ModelRequest:
        block = request.state.get("audrey_memories") if request.state else None
        if not block:
            return request
        current = request.system_message.text if request.system_message is not None else ""
        content = f"{current}\n\n{block}" if current else block
        return request.override(system_message=SystemMessage(content=content))

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        return handler(self._with_memories(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        return await handler(self._with_memories(request))

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
