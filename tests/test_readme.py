"""Every Python snippet in README.md and in the documentation (docs/) runs as written, from a fresh virtual
environment holding only the extras its section (README) or page (docs) names: each section's or page's snippets in
order, in a new interpreter and an empty folder. Where a snippet names a
hosted model, an offline stand-in answers: OpenAI's API on loopback (``OPENAI_BASE_URL``) with a dummy key; nothing
leaves the machine but pip's requests to the package index."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .fake_openai import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# From a clone: `pip install -e .` (the base install, named "" here) or `pip install -e '.[extra,...]'`.
NAMED = re.compile(r"pip install\s+-e\s+(?:'\.\[([a-z,-]+)\]'|\.(?![\[\w]))")
TORCH = "torch==2.13.0"  # pinned before the local model, as README's commands do (see README on torch)


def sections() -> dict[str, tuple[list[str], set[str]]]:
    """README's level-2 sections and each documentation page that hold Python code: the code blocks in order and the
    extras the section's (or page's) text names."""
    found = {f"README: {h}": v for h, v in _blocks(README, split=True).items()}
    for page in sorted(DOCS.rglob("*.md")):
        found |= {f"docs/{page.relative_to(DOCS)}": v for v in _blocks(page, split=False).values()}
    return found


def _blocks(path: Path, split: bool) -> dict[str, tuple[list[str], set[str]]]:
    """Under each level-2 heading (``split``) or in the whole file: its Python blocks and the extras it names."""
    code: dict[str, list[str]] = {}
    prose: dict[str, list[str]] = {}
    heading, fence, lines = "", None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if split and fence is None and line.startswith("## "):
            heading = line[3:]
            prose.setdefault(heading, []).append(line)
        elif fence is None and line.startswith("```"):
            fence, lines = line[3:].strip(), []  # the block's language
        elif fence is not None and line.startswith("```"):
            if fence == "python":
                code.setdefault(heading, []).append("\n".join(lines))
            fence = None
        elif fence is not None:
            lines.append(line)
        else:
            prose.setdefault(heading, []).append(line)
    named = {h: {e for found in NAMED.findall(" ".join(prose.get(h, []))) for e in found.split(",")} for h in code}
    # (the base install's match is "", whose split is [""]: a section naming only it names {""})
    return {h: (code[h], named[h]) for h in code}


def judge(messages: list[dict]) -> str:
    """The hosted model's stand-in: a principle when asked for one, otherwise 'the claims agree'."""
    if messages[0]["content"].startswith("[audrey:principle_extraction]"):
        return json.dumps({"principle": "Stripe throttles clients above 100 requests per second"})
    return json.dumps({"relation": "supports", "reason": "the same claim"})


def test_every_section_with_code_names_its_extras():
    found = sections()
    assert {"docs/core.md", "docs/pipeline.md", "docs/langchain.md", "docs/llamaindex.md"} <= set(found)
    assert any(h.startswith("README: LangChain") for h in found) and any(
        h.startswith("README: LlamaIndex") for h in found
    )
    assert all(extras for _, extras in found.values()), {h: e for h, (_, e) in found.items()}


@pytest.fixture(scope="module")
def venvs(tmp_path_factory):
    """One fresh virtual environment per set of extras, made on first use."""
    made: dict[frozenset[str], Path] = {}

    def venv(extras: set[str]) -> Path:
        key = frozenset(extras)
        if key not in made:
            folder = tmp_path_factory.mktemp("venv")
            subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
            pip = [str(folder / "bin" / "python"), "-m", "pip", "install", "-q"]
            if "local" in extras:
                subprocess.run([*pip, TORCH], check=True, timeout=1200, capture_output=True)
            wanted = ",".join(sorted(extras - {""}))
            done = subprocess.run(
                [*pip, "-e", f"{ROOT}[{wanted}]" if wanted else str(ROOT)], timeout=1200, capture_output=True, text=True
            )
            assert done.returncode == 0, done.stderr[-3000:]
            made[key] = folder
        return made[key]

    return venv


@pytest.mark.slow
@pytest.mark.parametrize("heading", list(sections()))
def test_each_sections_snippets_run_in_a_venv_with_only_the_extras_it_names(heading, venvs, tmp_path):
    snippets, extras = sections()[heading]
    python = venvs(extras) / "bin" / "python"
    script = tmp_path / "snippets.py"
    script.write_text("\n\n".join(snippets), encoding="utf-8")
    with FakeOpenAIServer(chat=judge) as hosted:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "sk-offline", "OPENAI_BASE_URL": hosted.base_url}
        env.pop("VIRTUAL_ENV", None)
        done = subprocess.run(
            [str(python), str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env
        )
    assert done.returncode == 0, f"{heading!r} with [{','.join(sorted(extras - {''}))}]:\n{done.stderr[-3000:]}"
