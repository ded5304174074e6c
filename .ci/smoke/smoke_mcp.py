"""[mcp] alone: `audrey mcp` over stdio, through the official MCP client: the tools are listed, remember and recall
answer (the store on the deterministic embedder: no local model)."""

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

AUDREY = str(Path(sys.executable).parent / "audrey")


async def main() -> None:
    db = str(Path(tempfile.mkdtemp()) / "mcp.db")
    params = StdioServerParameters(
        command=AUDREY, args=["--db", db, "--embedder", "deterministic", "mcp"], env=dict(os.environ)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        info = await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"remember", "recall"} <= tools, tools
        told = await session.call_tool(
            "remember", {"content": "The staging database is rebuilt on Sundays", "source": "told-by-user"}
        )
        assert not told.isError, told
        found = await session.call_tool("recall", {"query": "staging database"})
        assert "rebuilt on Sundays" in str(found.content), found
        print(f"mcp: {info.serverInfo.name} {info.serverInfo.version} serves {len(tools)} tools", file=sys.stderr)


asyncio.run(main())
