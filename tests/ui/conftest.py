"""Fixtures of the UI tests: the Stripe story in a store, `audrey ui` started as a user starts it (the real command,
a real port), and headless Chromium driven by Playwright. Without Chromium or Playwright the browser tests skip;
under CI (``CI`` set) that is a failure instead: CI installs Debian's chromium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the ui extra is not installed")
pytest.importorskip("jinja2", reason="the ui extra is not installed")

AGENT = "default"  # the demo's agent: the default one
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _fail_or_skip(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"the browser tests must run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def stripe_store(tmp_path_factory) -> Path:
    """The demo's store: the Stripe story told once (principles, a run, disputes, an update, decay)."""
    path = tmp_path_factory.mktemp("ui") / "audrey.db"
    from audrey_core.admin.demo import main as demo

    assert demo(["--db", str(path)]) == 0
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def ui_server(db: Path, *options: str, agent: str = AGENT):
    """`audrey --db DB --agent AGENT ui --http 127.0.0.1:PORT OPTIONS`, until the block ends; yields its URL."""
    port = free_port()
    command = [sys.executable, "-m", "audrey_core.admin.cli", "--db", str(db), "--agent", agent, "ui"]
    process = subprocess.Popen(
        [*command, "--http", f"127.0.0.1:{port}", *options], stderr=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    said = process.stderr.read() if process.stderr else ""
                    raise RuntimeError(f"audrey ui did not start: {said}") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module")  # Playwright's sync API runs an event loop: stop it before other tests run
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _fail_or_skip("Playwright is not installed (pip install playwright; no browser download needed)")
    executable = next((found for name in BROWSERS if (found := shutil.which(name))), None)
    if executable is None:
        _fail_or_skip("no Chromium here (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    opened = context.new_page()
    yield opened
    context.close()
