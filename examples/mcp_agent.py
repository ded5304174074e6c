"""A LangGraph agent whose memory is `audrey mcp`, reached through langchain-mcp-adapters, offline.

The agent starts the Audrey MCP server over stdio (as Claude Desktop or Cursor would), takes its tools, remembers
what the user says in one conversation and recalls it in another. The chat model is langchain_core's
``GenericFakeChatModel`` playing a script (no API key needed); what matters is what the tools return, which the demo
prints. Finally a plain Python ``Audrey`` opens the same file: one memory shared by the MCP server and your code.

    pip install -e '.[mcp-langchain]'   # from a clone
    python examples/mcp_agent.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools

from audrey_core import Audrey


class ScriptedModel(GenericFakeChatModel):
    """langchain_core's fake chat model, able to take tools."""

    def bind_tools(self, tools, **kwargs):
        return self


def call(name: str, args: dict, call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def tool_output(messages) -> dict:
    """The structured result of the last tool call in a conversation."""
    last = [m for m in messages if m.type == "tool"][-1]
    text = last.content if isinstance(last.content, str) else last.content[0]["text"]
    return json.loads(text)


async def run(path: Path) -> int:
    server = {"command": sys.executable, "args": ["-m", "audrey_core.admin.cli", "--db", str(path), "mcp"]}
    client = MultiServerMCPClient({"audrey": {**server, "transport": "stdio"}})
    async with client.session("audrey") as session:  # one server process for the whole run
        tools = await load_mcp_tools(session)
        print("MCP tools:", ", ".join(t.name for t in tools))
        fact = "Ada is allergic to peanuts and cooks vegetarian"
        model = ScriptedModel(
            messages=iter(
                [
                    call("remember", {"content": fact, "source": "told-by-user", "tags": ["food"]}, "c1"),
                    AIMessage(content="Got it: no peanuts, vegetarian."),
                    call("recall", {"query": "what should I avoid cooking for Ada?", "limit": 3}, "c2"),
                    AIMessage(content="A vegetarian curry without peanuts."),
                ]
            )
        )
        agent = create_agent(model, tools=tools, system_prompt="You are a cooking assistant with a long memory.")

        print("\nconversation 1 (user): I'm Ada. I'm allergic to peanuts and I cook vegetarian.")
        first = await agent.ainvoke({"messages": [{"role": "user", "content": "I'm Ada, allergic to peanuts..."}]})
        print(f"   tool remember -> {tool_output(first['messages'])}")
        print(f"   assistant: {first['messages'][-1].text}")

        print("\nconversation 2, a fresh thread (user): What should I cook for dinner?")
        second = await agent.ainvoke({"messages": [{"role": "user", "content": "What should I cook for dinner?"}]})
        results = tool_output(second["messages"])["results"]
        for hit in results:
            print(f"   tool recall -> [{hit['source']}, {hit['state']}] {hit['content']} ({hit['why']})")
        print(f"   assistant: {second['messages'][-1].text}")
        if not results or results[0]["content"] != fact:
            print("   the memory was not recalled")
            return 1

    with Audrey(path) as brain:  # the same file, from Python
        mine = brain.recall("peanut allergy", limit=1)
        print(f"\nPython Audrey on the same file recalls: {mine[0].content} (confidence {mine[0].confidence:.2f})")
    return 0


def main() -> int:
    path = Path(tempfile.mkdtemp(prefix="audrey-mcp-")) / "audrey.db"
    print(f"memory: {path}")
    return asyncio.run(run(path))


if __name__ == "__main__":
    sys.exit(main())
