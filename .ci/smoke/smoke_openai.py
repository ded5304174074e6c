"""[openai] alone: OpenAIEmbedder against an OpenAI-compatible server (a real HTTP server on loopback answering the
embeddings API with hashed word vectors), encode and recall through it."""

import hashlib
import json
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from audrey_core import Audrey, OpenAIEmbedder

DIMENSIONS = 64


def vector(text: str) -> list[float]:
    out = [0.0] * DIMENSIONS
    for word in text.lower().split():
        out[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
    return out if any(out) else [1.0] + [0.0] * (DIMENSIONS - 1)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(texts)]
        payload = json.dumps({"object": "list", "data": data, "model": body["model"], "usage": {}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{server.server_address[1]}/v1"
embedder = OpenAIEmbedder("fake-embedding", base_url=base, api_key="not-needed", dimensions=DIMENSIONS)
with Audrey(path=Path(tempfile.mkdtemp()) / "openai.db", embedder=embedder) as brain:
    brain.encode("the invoice sync runs nightly")
    brain.encode("Ada prefers tea")
    assert brain.recall("invoice sync", limit=1)[0].content == "the invoice sync runs nightly"
server.shutdown()
print("openai: an OpenAI-compatible embeddings server serves encode and recall", file=sys.stderr)
