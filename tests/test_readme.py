"""Every Python snippet in README.md runs as written: each section's snippets in order, in a fresh interpreter and an
empty folder, with the local model. Where a snippet names a hosted model, an offline stand-in answers: OpenAI's API
on loopback (``OPENAI_BASE_URL``) with a dummy key; nothing leaves the machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .fake_openai import FakeOpenAIServer

README = Path(__file__).resolve().parents[1] / "README.md"
# What a section's snippets import beyond the core (its heading names the extra that brings them).
NEEDS = {
    "LangChain": ("langchain", "langgraph", "langchain_classic", "langchain_openai"),
    "LlamaIndex": ("llama_index",),
}


def sections() -> dict[str, list[str]]:
    """The Python code blocks under each level-2 heading, in order."""
    found: dict[str, list[str]] = {}
    heading, fence, lines = "", None, []
    for line in README.read_text(encoding="utf-8").splitlines():
        if fence is None and line.startswith("## "):
            heading = line[3:]
        elif fence is None and line.startswith("```"):
            fence, lines = line[3:].strip(), []  # the block's language
        elif fence is not None and line.startswith("```"):
            if fence == "python":
                found.setdefault(heading, []).append("\n".join(lines))
            fence = None
        elif fence is not None:
            lines.append(line)
    return found


def judge(messages: list[dict]) -> str:
    """The hosted model's stand-in: a principle when asked for one, otherwise 'the claims agree'."""
    if messages[0]["content"].startswith("[audrey:principle_extraction]"):
        return json.dumps({"principle": "Stripe throttles clients above 100 requests per second"})
    return json.dumps({"relation": "supports", "reason": "the same claim"})


def test_the_readme_has_the_snippets_this_test_runs():
    found = sections()
    assert {"Use", "The biological pipeline"} <= set(found)
    assert any(h.startswith("LangChain") for h in found) and any(h.startswith("LlamaIndex") for h in found)


@pytest.mark.slow
@pytest.mark.parametrize("heading", list(sections()))
def test_each_sections_snippets_run_as_written(heading, tmp_path):
    for framework, modules in NEEDS.items():
        if heading.startswith(framework):
            for module in modules:
                pytest.importorskip(module)
    if "OpenAICompatibleLLM" in "".join(sections()[heading]):
        pytest.importorskip("openai")
    script = tmp_path / "snippets.py"
    script.write_text("\n\n".join(sections()[heading]), encoding="utf-8")
    with FakeOpenAIServer(chat=judge) as hosted:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "sk-offline", "OPENAI_BASE_URL": hosted.base_url}
        done = subprocess.run(
            [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env
        )
    assert done.returncode == 0, f"README section {heading!r}:\n{done.stderr[-3000:]}"
