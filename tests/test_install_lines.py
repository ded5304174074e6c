"""Every install line a user can read (README, the docs, examples, error messages) names this distribution and extras
it has: `pip install 'audrey[...]'` once installed an unrelated 2017 package that owns that name on PyPI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")
ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"pip install -?e? ?'([^'{\[]+)\[([^\]{]+)\]'")  # not the template in errors.py


def texts() -> dict[str, str]:
    paths = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "examples").glob("*.py")]
    for package in ("audrey_core", "audrey_langchain", "audrey_llamaindex"):
        paths += (ROOT / package).rglob("*.py")
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in paths}


def test_every_install_line_names_our_distribution_and_an_extra_it_has():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    name, extras = project["name"], set(project["optional-dependencies"])
    found = [(path, m.group(1), m.group(2)) for path, text in texts().items() for m in LINE.finditer(text)]
    assert len(found) >= 8  # README, examples and messages all point somewhere
    for path, distribution, wanted in found:
        assert distribution in (name, "."), f"{path}: pip install '{distribution}[...]'"  # "." : from a clone
        assert set(wanted.split(",")) <= extras | {"EXTRA"}, f"{path}: unknown extra in [{wanted}]"


def test_install_hints_in_messages_use_the_distribution_name():
    from audrey_core.errors import DISTRIBUTION, install_hint

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION  # the name pip will install once published; until then, from a clone
    assert install_hint("postgres") == "pip install -e '.[postgres]' in a clone of Audrey"
    for extra, requirements in project["optional-dependencies"].items():
        for requirement in requirements:
            if requirement.startswith("audrey"):  # an extra made of other extras
                assert requirement.startswith(f"{DISTRIBUTION}["), f"extra {extra}: {requirement}"
