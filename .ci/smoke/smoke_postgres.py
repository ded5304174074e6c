"""[postgres] alone: encode and recall on PostgreSQL + pgvector (the URL in AUDREY_SMOKE_PG_URL: a real server the
CI starts), and the `audrey` command on it."""

import os
import subprocess
import sys
from pathlib import Path

from audrey_core import Audrey

url = os.environ["AUDREY_SMOKE_PG_URL"]
with Audrey(url) as brain:  # the default local model
    brain.encode("The nightly export takes forty minutes")
    assert brain.recall("nightly export", limit=1)[0].content == "The nightly export takes forty minutes"
status = subprocess.run(
    [str(Path(sys.executable).parent / "audrey"), "--db", url, "status"], capture_output=True, text=True, check=True
)
assert "episodic" in status.stdout, status.stdout
print("postgres: encode, recall and audrey status on PostgreSQL", file=sys.stderr)
