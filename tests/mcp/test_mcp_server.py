"""`audrey mcp` driven by the MCP SDK's own client: over stdio (the server a subprocess, as Claude Desktop starts
it) and over streamable HTTP, every tool, bad input refused with Audrey's message and nothing written, tenants kept
apart, and the store shared with a Python agent while the server runs."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager

import pytest

from audrey_core import Audrey
from audrey_core.testing import DeterministicEmbedder

pytest.importorskip("mcp")
httpx = pytest.importorskip("httpx")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

TOOLS = {"remember", "recall", "supersede", "forget", "consolidate", "contradictions", "status"}


def command(db, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "audrey_core.admin.cli",
        "--db",
        str(db),
        "--embedder",
        "deterministic",
        "mcp",
        *extra,
    ]


@asynccontextmanager
async def over_stdio(db, *extra: str):
    params = StdioServerParameters(command=command(db, *extra)[0], args=command(db, *extra)[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        session.server_info = (await session.initialize()).serverInfo  # type: ignore[attr-defined]
        yield session


async def call(session, tool: str, **arguments):
    result = await session.call_tool(tool, arguments)
    assert not result.isError, result.content[0].text
    return result.structuredContent


async def refused(session, tool: str, **arguments) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.isError
    return result.content[0].text


async def stored(session) -> dict:
    """What ``status`` says about the memories; its index progress moves on in the background."""
    status = await call(session, "status")
    status.pop("indexes")
    return status


async def until(session, tool: str, check, seconds: float = 20.0, **arguments):
    """Validation runs in the server's background: poll until ``check`` holds."""
    deadline = time.monotonic() + seconds
    while True:
        found = await call(session, tool, **arguments)
        if check(found) or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


async def test_every_tool_over_stdio(tmp_path):
    from audrey_core import __version__

    async with over_stdio(tmp_path / "audrey.db") as session:
        assert (session.server_info.name, session.server_info.version) == ("audrey", __version__)  # not the SDK's
        await every_tool(session)


async def every_tool(session) -> None:
    """Each tool once, on an empty store, checking what it answers."""
    listed = {t.name: t for t in (await session.list_tools()).tools}
    assert set(listed) == TOOLS
    assert all(t.description and len(t.description) > 40 for t in listed.values())
    remember = listed["remember"].inputSchema
    assert remember["required"] == ["content"]  # the source defaults as on the command line
    assert remember["properties"]["source"]["default"] == "direct-observation"
    assert "told-by-user" in json.dumps(remember["properties"]["source"])
    assert "user/" in json.dumps(remember["properties"]["scope"]) or remember["properties"]["scope"]

    first = await call(
        session,
        "remember",
        content="Stripe rate limit is 100 requests per second",
        source="tool-result",
        tags=["stripe"],
    )
    for source in ("direct-observation", "told-by-user"):
        await call(session, "remember", content="Stripe rate limit is 100 requests per second", source=source)
    found = (await call(session, "recall", query="stripe rate limit", limit=3))["results"]
    assert found[0]["content"] == "Stripe rate limit is 100 requests per second"
    top = found[0]
    assert {"confidence", "state", "source", "why", "confidence_parts", "counterclaims", "observed_at"} <= set(top)
    assert top["as_text"].startswith("- [") and top["observed_at"][:10] in top["as_text"]  # the date a model reads
    assert top["state"] == "active" and "relevance" in top["why"]
    assert (await call(session, "recall", query="stripe", tags=["stripe"]))["results"][0]["id"] == first["id"]

    learned = await call(session, "consolidate")
    assert learned["status"] == "completed" and learned["learned"] and learned["episodes_used"] >= 3

    newer = await call(
        session,
        "supersede",
        memory_id=first["id"],
        content="Stripe rate limit is 25 requests per second",
        source="told-by-user",
    )
    assert newer["supersedes"] == first["id"]
    ids = [r["id"] for r in (await call(session, "recall", query="stripe rate limit", limit=10))["results"]]
    assert newer["id"] in ids and first["id"] not in ids  # what is true now

    await call(session, "remember", content="The deploy window is on Tuesday", source="told-by-user")
    await call(session, "remember", content="The deploy window is not on Tuesday", source="inference")
    deploy = {"The deploy window is on Tuesday", "The deploy window is not on Tuesday"}

    def sides(found):
        return [{c[side]["content"] for side in ("claim_a", "claim_b")} for c in found["contradictions"]]

    disputes = await until(session, "contradictions", lambda found: deploy in sides(found))
    assert deploy in sides(disputes)  # (the correction of one episode also disputes the principle it was part of)

    turn = {"source": "told-by-user", "session": "c1"}  # a tool argument, not call()'s client session
    asked = await session.call_tool("remember", {"content": "How was the camping trip?", "speaker": "Ana", **turn})
    reply = await session.call_tool("remember", {"content": "Wonderful, the kids loved it", "speaker": "Ben", **turn})
    asked, reply = asked.structuredContent, reply.structuredContent
    found = (await call(session, "recall", query="camping trip", limit=2, order="time"))["results"]
    assert [r["id"] for r in found] == [asked["id"], reply["id"]]  # the reply by its question's words, in order
    assert (found[1]["session"], found[1]["speaker"]) == ("c1", "Ben") and "said by Ben" in found[1]["as_text"]
    for extra in (asked, reply):
        await call(session, "forget", ids=[extra["id"]])

    asked = time.monotonic()
    fleeting = await call(session, "remember", content="The door code is 4412", source="told-by-user", ttl_seconds=2)
    expired_by = time.monotonic() + 2.05  # its expiry was set before the call returned
    found = [r["id"] for r in (await call(session, "recall", query="door code"))["results"]]
    assert fleeting["id"] in found or time.monotonic() - asked > 1.9  # (a loaded machine may take that long)
    time.sleep(max(0.0, expired_by - time.monotonic()))
    assert fleeting["id"] not in [r["id"] for r in (await call(session, "recall", query="door code"))["results"]]

    gone = await call(session, "forget", ids=[newer["id"], "01NOTAMEMORY"])
    assert gone == {"forgotten": [newer["id"]], "not_found": ["01NOTAMEMORY"]}
    status = await call(session, "status")
    assert status["counts"]["episodic"] == 6 and status["counts"]["semantic"] >= 1  # the expired one until a sweep
    assert status["indexes"] and not any("folder" in index for index in status["indexes"])


async def test_bad_input_gets_audreys_message_and_writes_nothing_over_stdio(tmp_path):
    db = tmp_path / "audrey.db"
    async with over_stdio(db, "--scope", "user/alice") as session:
        await bad_input(session, db)


@pytest.mark.parametrize("http_server", [("--scope", "user/alice")], indirect=True)
async def test_bad_input_gets_audreys_message_and_writes_nothing_over_http(http_server):
    db, url = http_server
    async with over_http(url) as session:
        await bad_input(session, db)


async def bad_input(session, db) -> None:
    """On a server confined to user/alice: each refusal carries Audrey's message and nothing is written."""
    await call(session, "remember", content="Alice drinks tea", source="told-by-user")
    before = await stored(session)
    rumour = await refused(session, "remember", content="x", source="rumour")
    assert "'source' must be one of" in rumour and "told-by-user" in rumour and "pydantic" not in rumour
    assert "'content' is required" in await refused(session, "remember", source="told-by-user")
    assert "nothing to remember" in await refused(session, "remember", content="   ", source="told-by-user")
    ttl = await refused(session, "remember", content="x", source="told-by-user", ttl_seconds=-1)
    assert "'ttl_seconds' must be a number greater than 0" in ttl
    assert "'limit' must be a number greater than or equal to 1" in await refused(session, "recall", query="t", limit=0)
    assert "'limit' must be a whole number" in await refused(session, "recall", query="tea", limit="many")
    outside = await refused(session, "remember", content="Bob drinks coffee", source="told-by-user", scope="user/bob")
    assert "scope user/bob lies outside this server's scope user/alice" in outside and "audrey mcp --scope" in outside
    assert "outside" in await refused(session, "recall", query="coffee", scope=["user", "bob"])
    assert "empty label" in await refused(session, "recall", query="coffee", scope="user//bob")
    assert "names no memory this server holds" in await refused(
        session, "supersede", memory_id="01NOPE", content="y", source="inference"
    )
    assert "Traceback" not in outside and "open an Audrey" not in outside
    assert await stored(session) == before  # nothing was written
    inside = await call(session, "remember", content="Alice's project uses Rust", scope="user/alice/work")
    assert inside["id"]
    found = await call(session, "recall", query="Alice's project", scope="user/alice/work")
    assert [(r["id"], r["scope"], r["source"]) for r in found["results"]] == [
        (inside["id"], "user/alice/work", "direct-observation")  # a path, and the command line's default source
    ]
    with Audrey(db, embedder=DeterministicEmbedder(), scope=("user", "bob")) as bob:  # beside the server
        assert bob.recall("tea") == [] and bob.get(inside["id"]) is None  # the other tenant sees none of it
        theirs = bob.encode("Bob's locker code is 4411", source="told-by-user")
    assert "names no memory this server holds" in await refused(
        session, "supersede", memory_id=theirs, content="The locker code is 0000", source="inference"
    )
    assert await call(session, "forget", ids=[theirs]) == {"forgotten": [], "not_found": [theirs]}
    with Audrey(db, embedder=DeterministicEmbedder(), scope=("user", "bob")) as bob:
        assert bob.get(theirs).content == "Bob's locker code is 4411"  # and it lost nothing to this server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def http_server(tmp_path, request):
    db, port = tmp_path / "audrey.db", free_port()
    extra = getattr(request, "param", ())
    server = subprocess.Popen(
        command(db, "--http", f"127.0.0.1:{port}", "--token", "s3cret", *extra), stderr=subprocess.PIPE, text=True
    )
    said = server.stderr.readline()  # where it listens, before anything else
    assert f"at http://127.0.0.1:{port}/mcp, bearer token required" in said and str(db) in said, said
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            assert server.poll() is None, server.stderr.read()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
    yield db, f"http://127.0.0.1:{port}/mcp"
    server.terminate()
    server.wait(timeout=30)


async def test_http_needs_the_token_and_shares_the_store_with_a_python_agent(http_server):
    db, url = http_server
    async with httpx.AsyncClient() as plain:
        assert (await plain.post(url, json={})).status_code == 401
        wrong = await plain.post(url, json={}, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
    with Audrey(db, embedder=DeterministicEmbedder()) as agent:  # open beside the server
        told = agent.encode("The user's cat is called Miso", source="told-by-user")
        async with over_http(url) as session:
            assert {t.name for t in (await session.list_tools()).tools} == TOOLS
            found = (await call(session, "recall", query="cat called Miso"))["results"]
            assert found[0]["id"] == told  # written by the Python agent
            saved = await call(session, "remember", content="Miso is afraid of the vacuum", source="told-by-user")
            before = await stored(session)
            assert "greater than or equal to 1" in await refused(session, "recall", query="cat", limit=0)
            assert "told-by-user" in await refused(session, "remember", content="x", source="rumour")
            assert "nothing to remember" in await refused(session, "remember", content=" ", source="told-by-user")
            assert await stored(session) == before
        assert agent.get(saved["id"]).content == "Miso is afraid of the vacuum"  # written by the server


@asynccontextmanager
async def over_http(url: str):
    # the MCP transports' own timeouts (30 s, 300 s to read): with httpx's default of 5 s, a reply slower than that
    # on a busy machine is dropped and the call waits for it forever
    timeout = httpx.Timeout(30, read=300)
    client = httpx.AsyncClient(headers={"Authorization": "Bearer s3cret"}, timeout=timeout)
    async with (
        client,
        streamable_http_client(url, http_client=client) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def test_every_tool_over_http(http_server):
    _, url = http_server
    async with over_http(url) as session:
        await every_tool(session)


def test_serving_off_localhost_needs_a_token(tmp_path):
    done = subprocess.run(command(tmp_path / "a.db", "--http", "0.0.0.0:8765"), capture_output=True, text=True)
    assert done.returncode != 0 and "needs a token" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "a.db").exists()
    bad = subprocess.run(command(tmp_path / "a.db", "--http", "8765"), capture_output=True, text=True)
    assert bad.returncode == 2 and "HOST:PORT" in bad.stderr


async def test_a_postgresql_store_shared_by_the_server_and_a_python_agent():
    from ..postgres_server import fresh_database_url

    url = fresh_database_url()
    with Audrey(url, embedder=DeterministicEmbedder()) as agent:
        told = agent.encode("The staging database runs Postgres 16", source="told-by-user")
        async with over_stdio(url) as session:
            found = (await call(session, "recall", query="which Postgres does staging run"))["results"]
            assert found[0]["id"] == told
            saved = await call(session, "remember", content="Production runs Postgres 17", source="tool-result")
        assert agent.get(saved["id"]).source == "tool-result"


def test_a_missing_or_incompatible_sdk_is_named(monkeypatch):
    """Without the SDK the error gives the extra to install; with an SDK that has neither server this one is built
    on (a future 3.x) it names the version installed and the ones that work, rather than the extra just installed."""
    from importlib.metadata import version

    from audrey_core import ConfigurationError
    from audrey_core.admin import mcp_server

    monkeypatch.setattr(mcp_server, "HighLevelServer", None)
    with pytest.raises(ConfigurationError, match=rf"mcp {re.escape(version('mcp'))} is installed.*<3"):
        mcp_server.require_mcp()
    monkeypatch.setattr(mcp_server, "_installed_mcp", lambda: None)
    with pytest.raises(ConfigurationError, match=r"pip install -e '\.\[mcp\]' in a clone"):
        mcp_server.require_mcp()
