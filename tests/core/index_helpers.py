"""What the derived-index tests share: a store on a real file, a writer process killed right after its commit, and
taking a store back to an older schema."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from audrey_core import Audrey
from audrey_core.storage.sqlite.connection import connect

from ..conftest import SYNC

ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import os, sys
sys.path.insert(0, {root!r})
from audrey_core import Audrey
from audrey_core.testing import DeterministicEmbedder
from tests.conftest import SYNC
brain = Audrey({path!r}, agent="a", embedder=DeterministicEmbedder(), config=SYNC)
brain.encode_batch([f"zebra crossing number {{i}}" for i in range(25)])
os._exit(0)  # killed after the commit: no close, nothing written by any index
"""


def open_brain(path: Path | str, agent: str = "a") -> Audrey:
    from audrey_core.testing import DeterministicEmbedder

    return Audrey(path, agent=agent, embedder=DeterministicEmbedder(), config=SYNC)


def killed_writer(path: Path) -> None:
    """Another process encodes 25 "zebra crossing" notes into ``path`` and dies right after its commit."""
    script = WRITER.format(root=str(ROOT), path=str(path))
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT, timeout=120)


def downgrade(path: Path, statements: list[str]) -> None:
    """Run ``statements`` on the closed store at ``path`` (dropping what a newer schema added)."""
    db = connect(str(path), vectors=False)
    for statement in statements:
        db.execute(statement)
    db.close()
