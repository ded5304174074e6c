"""Memory inside a real agent: scripted users talk to a LangChain agent and to LlamaIndex chat engines over several
sessions; what did Audrey store, and what did the model see later?

    python -m benchmarks.agents [--set dev|blind] [--arms langchain,llamaindex-memory,...]

Each user (``benchmarks.agent_cases``) says facts among questions, thanks and greetings; the agent answers from a
script: echoes of what was said ("Noted: you are vegetarian ..."), non-answers ("I don't know who your dentist is"),
answers, small talk; it calls a lasting tool (the user's profile) and a transient one (today's weather); a fact is
sometimes the last thing said in a session. Later sessions ask about the facts. Every user has a scope of their own
(``("user", name)``), on one store, on the default local model. Arms:

* ``langchain``: ``create_agent`` with ``AudreyMemoryMiddleware`` (scope from the run's context, the profile tool
  marked lasting, the memory tools given to the model: for a question about a fact it first saves its answer with
  ``remember``, as an agent that keeps what it concluded), a checkpointer, a thread per session;
* ``llamaindex-memory``: a ``SimpleChatEngine`` with an ``AudreyMemory`` per session (no tools: the chat alone);
* ``llamaindex-block``: a ``SimpleChatEngine`` with LlamaIndex's ``Memory`` and an ``AudreyMemoryBlock``, a
  ``Memory`` per session large enough that nothing is flushed (what a short session meets);
* the ``-replies`` arms: the same with the assistant's replies stored too (``remember=("user", "assistant")``).

Figures: noise (stored memories that are no fact: chatter, questions, replies, transient tool output; what the
agent saved through its own memory tool is its choice, not counted), echoes counted as evidence (a memory whose
reports exceed the independent times the user said it), facts lost at a session's end (a fact said last in a session
and not stored), facts recalled in a later session (the fact's words in what the model was shown for a question
about it), leaks (another user's fact in what the model was shown). Prints a table and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audrey_core import Audrey
from audrey_core.testing import ManualClock

from .agent_cases import SETS
from .agent_cases.case import FACT, QUESTION, User

SCOPE = "user"


@dataclass
class Seen:
    """What one arm left behind: the memories of each user, and what the model was shown for each message."""

    memories: dict[str, list[Any]] = field(default_factory=dict)  # user -> memories of their scope
    prompts: dict[tuple[str, int, int], str] = field(default_factory=dict)  # (user, session, message) -> shown
    saved_by_agent: set[str] = field(default_factory=set)  # what the agent stored through its own memory tool
    tools: bool = False  # whether the agent called tools (else no fact comes from one, and none is asked about)


def facts_of(user: User, tools: bool = True) -> dict[str, list[str]]:
    """Each fact's words: the messages that state it and (``tools``) the lasting tool output that returns it."""
    found: dict[str, list[str]] = {}
    for session in user.sessions:
        for m in session:
            if m.kind == FACT and m.fact:
                found.setdefault(m.fact, []).append(m.text)
            if tools and m.tool is not None and m.tool.fact:
                found.setdefault(m.tool.fact, []).append(m.tool.output)
    return found


# -- the arms --------------------------------------------------------------------------------------------------------


def run_langchain(brain: Audrey, users: Sequence[User], clock: ManualClock, replies: bool) -> Seen:
    from dataclasses import dataclass as plain

    from langchain.agents import create_agent
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver
    from pydantic import Field

    from audrey_langchain import AudreyMemoryMiddleware

    @plain
    class Context:
        user_id: str

    outputs: dict[str, str] = {}

    class Scripted(BaseChatModel):
        script: list[Any] = Field(default_factory=list)
        shown: list[str] = Field(default_factory=list)

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Scripted:
            return self

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
            self.shown.append(next((m.text for m in messages if m.type == "system"), ""))
            reply = self.script.pop(0)
            return ChatResult(generations=[ChatGeneration(message=reply)])

    @tool
    def get_profile(user: str) -> str:
        """The user's profile."""
        return outputs["get_profile"]

    @tool
    def get_weather(city: str) -> str:
        """Today's weather in a city."""
        return outputs["get_weather"]

    remember_options = {"remember": ("user", "assistant")} if replies else {}
    middleware = AudreyMemoryMiddleware(
        brain,
        scope=lambda runtime: (SCOPE, runtime.context.user_id),
        lasting_tools=["get_profile"],
        with_tools=True,
        **remember_options,
    )
    model = Scripted()
    tools = [get_profile, get_weather, *middleware.tools]
    seen = Seen(tools=True)
    agent = create_agent(
        model, tools=tools, middleware=[middleware], checkpointer=InMemorySaver(), context_schema=Context
    )
    calls = 0
    for user in users:
        for n, session in enumerate(user.sessions):
            thread = {"configurable": {"thread_id": f"{user.name}-{n}"}}
            for i, message in enumerate(session):
                script: list[Any] = []
                if message.kind == QUESTION and message.fact and n > 0:  # it keeps what it concluded, in its words
                    calls += 1
                    args = {"content": message.reply, "source": "inference"}
                    script.append(
                        AIMessage(content="", tool_calls=[{"name": "remember", "args": args, "id": f"r{calls}"}])
                    )
                    seen.saved_by_agent.add(message.reply)
                if message.tool is not None:
                    calls += 1
                    outputs[message.tool.name] = message.tool.output
                    asked_for = {"user": user.name} if message.tool.name == "get_profile" else {"city": "here"}
                    call = {"name": message.tool.name, "args": asked_for, "id": f"t{calls}"}
                    script.append(AIMessage(content="", tool_calls=[call]))
                script.append(AIMessage(content=message.reply))
                model.script = script
                first = len(model.shown)
                agent.invoke(
                    {"messages": [{"role": "user", "content": message.text}]}, thread, context=Context(user.name)
                )
                seen.prompts[(user.name, n, i)] = model.shown[first]
            clock.advance(days=1)
    return seen


class _Recorded:
    """A LlamaIndex LLM answering from a script and keeping every prompt it was given (made lazily: the import)."""

    @staticmethod
    def make() -> Any:
        from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
        from pydantic import Field

        class Scripted(CustomLLM):
            replies: list[str] = Field(default_factory=list)
            prompts: list[str] = Field(default_factory=list)

            @property
            def metadata(self) -> LLMMetadata:
                return LLMMetadata(model_name="scripted")

            def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
                self.prompts.append(prompt)
                return CompletionResponse(text=self.replies.pop(0))

            def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
                text = self.complete(prompt).text
                yield CompletionResponse(text=text, delta=text)

        return Scripted()


def run_llamaindex(
    brain: Audrey, users: Sequence[User], clock: ManualClock, replies: bool, memory_for: Callable[..., Any]
) -> Seen:
    from llama_index.core.chat_engine import SimpleChatEngine

    llm = _Recorded.make()
    seen = Seen()
    remember = ("user", "assistant") if replies else ("user",)
    for user in users:
        for n, session in enumerate(user.sessions):
            memory = memory_for(brain, (SCOPE, user.name), f"{user.name}-{n}", remember)
            engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory, prefix_messages=[])
            for i, message in enumerate(session):
                llm.replies = [message.reply]
                first = len(llm.prompts)
                engine.chat(message.text)
                seen.prompts[(user.name, n, i)] = llm.prompts[first]
            clock.advance(days=1)
    return seen


def audrey_memory(brain: Audrey, scope: tuple[str, ...], session: str, remember: tuple[str, ...]) -> Any:
    from audrey_llamaindex import AudreyMemory

    return AudreyMemory.from_defaults(audrey=brain, scope=scope, session_id=session, remember=remember)


def memory_with_block(brain: Audrey, scope: tuple[str, ...], session: str, remember: tuple[str, ...]) -> Any:
    from llama_index.core.memory import Memory

    from audrey_llamaindex import AudreyMemoryBlock

    block = AudreyMemoryBlock(audrey=brain, name="audrey", priority=1, scope=scope, remember=remember)
    return Memory.from_defaults(session_id=session, token_limit=30_000, memory_blocks=[block])


ARMS: dict[str, Callable[[Audrey, Sequence[User], ManualClock], Seen]] = {
    "langchain": lambda b, u, c: run_langchain(b, u, c, False),
    "langchain-replies": lambda b, u, c: run_langchain(b, u, c, True),
    "llamaindex-memory": lambda b, u, c: run_llamaindex(b, u, c, False, audrey_memory),
    "llamaindex-memory-replies": lambda b, u, c: run_llamaindex(b, u, c, True, audrey_memory),
    "llamaindex-block": lambda b, u, c: run_llamaindex(b, u, c, False, memory_with_block),
}


# -- the figures -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Figures:
    stored: int
    noise: int
    echoes_counted: int
    session_end_facts: int
    session_end_lost: int
    facts: int
    facts_stored: int
    asked: int
    recalled: int
    leaks: int
    noise_examples: tuple[str, ...]
    missed_examples: tuple[str, ...]


def score(users: Sequence[User], seen: Seen) -> Figures:
    everyone = {user.name: facts_of(user, seen.tools) for user in users}
    stored = noise = echoes = end_facts = end_lost = facts = facts_stored = asked = recalled = leaks = 0
    noisy: list[str] = []
    missed: list[str] = []
    for user in users:
        memories = seen.memories.get(user.name, [])
        texts = {" ".join(m.content.split()) for m in memories}
        lasting = {m.tool.output for s in user.sessions for m in s if m.tool is not None and m.tool.fact}
        lasting = lasting if seen.tools else set()
        said = {m.text for s in user.sessions for m in s if m.kind == FACT}
        reports = {}  # a fact's words -> the sessions that said them
        for n, session in enumerate(user.sessions):
            for m in session:
                if m.kind == FACT:
                    reports.setdefault(m.fact, set()).add(n)
        for memory in memories:
            if memory.content in seen.saved_by_agent:
                continue
            stored += 1
            if memory.content not in said and memory.content not in lasting:
                noise += 1
                noisy.append(f"{user.name}: {memory.source}: {memory.content}")
            fact = next((m.fact for s in user.sessions for m in s if m.text == memory.content and m.fact), None)
            expected = len(reports.get(fact, ())) if memory.content in said else 1
            if memory.evidence_count > max(1, expected):
                echoes += 1
                noisy.append(f"{user.name}: {memory.evidence_count} reports: {memory.content}")
        for session in user.sessions:
            if session[-1].kind == FACT:
                end_facts += 1
                end_lost += session[-1].text not in texts
        for words in everyone[user.name].values():
            facts += len(words)
            facts_stored += sum(w in texts for w in words)
        for n, session in enumerate(user.sessions):
            for i, message in enumerate(session):
                shown = seen.prompts.get((user.name, n, i), "")
                if message.kind == QUESTION and message.fact in everyone[user.name] and n > 0:
                    asked += 1
                    found = any(w in shown for w in everyone[user.name][message.fact])
                    recalled += found
                    if not found:
                        missed.append(f"{user.name} {n}.{i}: {message.text}")
                others = [w for name, fs in everyone.items() if name != user.name for ws in fs.values() for w in ws]
                leaks += any(w in shown for w in others)
    return Figures(stored, noise, echoes, end_facts, end_lost, facts, facts_stored, asked, recalled, leaks,
                   tuple(noisy), tuple(missed))  # fmt: skip


def run_arm(name: str, users: Sequence[User]) -> Figures:
    clock = ManualClock()
    with (
        tempfile.TemporaryDirectory(prefix="audrey-agents-") as folder,
        Audrey(Path(folder) / "a.db", clock=clock) as brain,
    ):
        seen = ARMS[name](brain, users, clock)
        brain.wait_for_idle()
        for user in users:
            seen.memories[user.name] = list(brain.iter_memories(scope=(SCOPE, user.name)))
        return score(users, seen)


def main(argv: list[str] | None = None) -> int:
    import warnings

    # LangGraph serialises a dataclass context through a pydantic field typed None and warns of it: not Audrey's
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--set", choices=sorted(SETS), default="dev", help="the development or the frozen blind users")
    parser.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated, of {', '.join(ARMS)}")
    parser.add_argument("--examples", action="store_true", help="print what was noise and what was missed")
    args = parser.parse_args(argv)
    users = SETS[args.set]
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    unknown = sorted(set(arms) - set(ARMS))
    if unknown:
        parser.error(f"unknown arms {unknown}; use any of {', '.join(ARMS)}")
    results = {arm: run_arm(arm, users) for arm in arms}
    print(f"{args.set} set: {len(users)} users, {sum(len(u.sessions) for u in users)} sessions\n")
    columns = ("stored", 6), ("noise", 7), ("echoes", 6), ("end lost", 8), ("facts kept", 10), ("recalled", 9)
    print(f"{'arm':<27} " + " ".join(f"{name:>{width}}" for name, width in columns) + f" {'leaks':>5}")
    for arm, f in results.items():
        print(
            f"{arm:<27} {f.stored:>6} {100 * f.noise / max(f.stored, 1):>6.1f}% {f.echoes_counted:>6} "
            f"{f.session_end_lost:>3}/{f.session_end_facts:<4} {f.facts_stored:>4}/{f.facts:<5} "
            f"{100 * f.recalled / max(f.asked, 1):>8.1f}% {f.leaks:>5}"
        )
        if args.examples:
            for line in (*f.noise_examples, *(f"missed {m}" for m in f.missed_examples)):
                print(f"    {line}")
    payload = {
        "benchmark": "agents",
        "set": args.set,
        "arms": {
            arm: {
                "stored": f.stored,
                "noise_share": round(f.noise / max(f.stored, 1), 4),
                "echoes_counted": f.echoes_counted,
                "session_end_lost": f.session_end_lost,
                "session_end_facts": f.session_end_facts,
                "facts_stored": f.facts_stored,
                "facts": f.facts,
                "recalled_share": round(f.recalled / max(f.asked, 1), 4),
                "asked": f.asked,
                "leaks": f.leaks,
            }
            for arm, f in results.items()
        },
    }
    print(json.dumps(payload))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
