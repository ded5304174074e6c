"""[mcp] alone: `audrey mcp` through the official MCP client of the SDK the extra installs (2.x, the current major;
the test suite covers 1.x, which [mcp-langchain] gets), over stdio and over streamable HTTP with a token: the tools
are listed, the server names Audrey's version, remember and recall answer, a bad call is a tool error (on the
default local model)."""

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

AUDREY = str(Path(sys.executable).parent / "audrey")
SDK = version("mcp")
assert SDK.startswith("2."), f"[mcp] alone installed mcp {SDK}; the extra's range and this smoke expect 2.x"


async def exercise(client: Client, how: str) -> None:
    info = client.server_info
    assert info is not None and info.version == version("audrey-agent-memory"), info
    tools = {t.name for t in (await client.list_tools()).tools}
    assert {"remember", "recall", "forget", "supersede", "consolidate", "contradictions", "status"} <= tools, tools
    told = await client.call_tool(
        "remember", {"content": f"The staging database is rebuilt on Sundays ({how})", "source": "told-by-user"}
    )
    assert not told.is_error, told
    found = await client.call_tool("recall", {"query": "staging database"})
    assert f"rebuilt on Sundays ({how})" in str(found.structured_content), found
    refused = await client.call_tool("remember", {"content": "   ", "source": "told-by-user"})
    assert refused.is_error, refused
    typed = await client.call_tool("recall", {"query": "staging", "limit": "many"})  # said in the tool's terms
    assert typed.is_error and "'limit' must be a whole number" in str(typed.content), typed
    assert "pydantic" not in str(typed.content), typed
    default = await client.call_tool("remember", {"content": f"The VPN rotates keys monthly ({how})"})
    assert not default.is_error, default  # the source defaults as on the command line
    print(f"mcp {SDK} over {how}: {info.name} {info.version} serves {len(tools)} tools", file=sys.stderr)


async def over_stdio(db: str) -> None:
    params = StdioServerParameters(command=AUDREY, args=["--db", db, "mcp"], env=dict(os.environ))
    async with Client(params) as client:
        await exercise(client, "stdio")


async def over_http(db: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    serving = [AUDREY, "--db", db, "mcp", "--http", f"127.0.0.1:{port}"]
    server = subprocess.Popen([*serving, "--token", "s3cret"])
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                    break
            except OSError:
                time.sleep(0.1)
        async with httpx2.AsyncClient() as plain:
            assert (await plain.post(url, json={})).status_code == 401  # no token, no memory
        http = httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"})
        async with http, Client(streamable_http_client(url, http_client=http)) as client:
            await exercise(client, "HTTP")
    finally:
        server.terminate()
        server.wait(timeout=30)


folder = Path(tempfile.mkdtemp())
asyncio.run(over_stdio(str(folder / "stdio.db")))
asyncio.run(over_http(str(folder / "http.db")))
