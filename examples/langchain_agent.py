"""A LangChain agent that remembers across two separate threads, offline.

Memory flows two ways here: ``AudreyMemoryMiddleware`` encodes every turn and recalls what matters before each model
call, and ``AudreyStore`` is the agent's LangGraph long-term store, written and read by its tools. The chat model is
langchain_core's ``GenericFakeChatModel`` playing a script (no API key needed); what matters is what it is *shown*,
which the demo prints.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import ClassVar

from langchain.agents import create_agent
from langchain.tools import ToolRuntime
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from audrey_core import Audrey
from audrey_langchain import AudreyMemoryMiddleware, AudreyStore


class ScriptedModel(GenericFakeChatModel):
    """langchain_core's fake chat model, able to take tools, recording the system prompt of each call."""

    prompts: ClassVar[list[str]] = []

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.prompts.append(next((m.text for m in messages if m.type == "system"), ""))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


@tool
def save_preference(name: str, value: str, runtime: ToolRuntime) -> str:
    """Save one of the user's preferences."""
    runtime.store.put(("preferences", "ada"), name, {"text": f"{name}: {value}", "value": value})
    return f"saved {name}"


@tool
def read_preferences(query: str, runtime: ToolRuntime) -> str:
    """Look up the user's saved preferences relevant to a query."""
    items = runtime.store.search(("preferences", "ada"), query=query, limit=3)
    return "; ".join(item.value["text"] for item in items) or "nothing saved"


def call(name: str, args: dict, call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def main() -> int:
    path = Path(tempfile.mkdtemp(prefix="audrey-langchain-")) / "audrey.db"
    brain = Audrey(path=path, agent="assistant")
    script = iter(
        [
            call("save_preference", {"name": "diet", "value": "vegetarian"}, "c1"),
            AIMessage(content="Noted: you are vegetarian and allergic to peanuts."),
            call("read_preferences", {"query": "food"}, "c2"),
            AIMessage(content="A peanut-free vegetarian curry."),
        ]
    )
    model = ScriptedModel(messages=script)
    agent = create_agent(
        model,
        tools=[save_preference, read_preferences],
        system_prompt="You are a helpful cooking assistant.",
        middleware=[AudreyMemoryMiddleware(brain, k=3)],
        store=AudreyStore(audrey=brain, index={"fields": ["text"]}),
        checkpointer=InMemorySaver(),
    )

    print("thread 1 (user): I'm vegetarian, and I'm allergic to peanuts.")
    first = agent.invoke(
        {"messages": [{"role": "user", "content": "I'm vegetarian, and I'm allergic to peanuts."}]},
        {"configurable": {"thread_id": "monday"}},
    )
    print("thread 1 (agent):", first["messages"][-1].text)

    question = "What should I cook tonight?"
    print(f"\nthread 2, a new conversation (user): {question}")
    second = agent.invoke(
        {"messages": [{"role": "user", "content": question}]}, {"configurable": {"thread_id": "friday"}}
    )
    shown = ScriptedModel.prompts[-2]  # the prompt of thread 2's first model call
    print("what the model was shown by the middleware:\n  " + shown.replace("\n", "\n  "))
    tool_output = next(m.text for m in second["messages"] if m.type == "tool")
    print("what the store gave the read_preferences tool:", tool_output)
    print("thread 2 (agent):", second["messages"][-1].text)
    remembered = "allergic to peanuts" in shown and "vegetarian" in tool_output
    print("\nremembered across threads:", remembered)
    brain.close()
    return 0 if remembered else 1


if __name__ == "__main__":
    sys.exit(main())
