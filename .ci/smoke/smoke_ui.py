"""[ui] alone: `audrey ui` serves the page on a store (on the default local model), which answers a
search."""

import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

AUDREY = str(Path(sys.executable).parent / "audrey")
db = str(Path(tempfile.mkdtemp()) / "ui.db")
subprocess.run([AUDREY, "--db", db, "encode", "The backup runs nightly"], check=True)
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
server = subprocess.Popen([AUDREY, "--db", db, "ui", "--http", f"127.0.0.1:{port}"])
try:
    deadline = time.monotonic() + 60
    while True:
        try:
            page = urllib.request.urlopen(f"http://127.0.0.1:{port}/?q=backup", timeout=5).read().decode()
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise
            time.sleep(0.3)
    assert "The backup runs nightly" in page, page[:500]
finally:
    server.terminate()
    server.wait(timeout=30)
print("ui: the page answers a search", file=sys.stderr)
