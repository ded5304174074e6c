"""[local] alone: the packaged model, offline, through the default embedder: a recall by meaning finds the memory."""

import os
import sys
import tempfile
from pathlib import Path

from audrey_core import Audrey

assert os.environ.get("HF_HUB_OFFLINE") == "1"
path = Path(tempfile.mkdtemp()) / "local.db"
with Audrey(path=path) as brain:
    brain.encode("The payment service retries failed charges three times", source="tool-result")
    brain.encode("Ada prefers tea over coffee", source="told-by-user")
    top = brain.recall("how often are declined card payments attempted again?", limit=1)[0]
    assert top.content.startswith("The payment service"), top.content
    print(f"local: {brain.embedder!r} recalls by meaning", file=sys.stderr)
