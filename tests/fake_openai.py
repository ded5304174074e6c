"""A real HTTP server speaking the OpenAI embeddings API on loopback, scripted per test (no mocks)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from audrey_core.testing import DeterministicEmbedder


def _openai_installed() -> bool:
    try:
        import openai  # noqa: F401
    except ImportError:
        return False
    return True


# Audrey's OpenAI support needs the `openai` extra; without it these tests skip, saying so.
requires_openai = pytest.mark.skipif(not _openai_installed(), reason="the openai extra is not installed")


def fake_vector(text: str, dimensions: int) -> list[float]:
    """Audrey's feature-hashing vector: texts sharing words come out similar, as from a real model."""
    return DeterministicEmbedder(dimensions).embed([text])[0].tolist()


class FakeOpenAIServer:
    """Serves POST /v1/embeddings and /v1/chat/completions.

    ``failures`` is a list of (status, message) answered before succeeding. ``chat`` maps the request's messages to
    the reply text (by default an echo of the last message).
    """

    def __init__(self, dimensions: int = 8, chat=None) -> None:
        self.dimensions = dimensions
        self.requests: list[dict] = []
        self.failures: list[tuple[int, str]] = []
        self.chat = chat or (lambda messages: messages[-1]["content"])
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                if server.failures:
                    status, message = server.failures.pop(0)
                    payload = {"error": {"message": message, "type": "test", "code": str(status)}}
                    return self._send(status, payload)
                if self.path.endswith("/chat/completions"):
                    reply = {"role": "assistant", "content": server.chat(body["messages"])}
                    choice = {"index": 0, "message": reply, "finish_reason": "stop"}
                    return self._send(
                        200,
                        {
                            "id": "c1",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body["model"],
                            "choices": [choice],
                        },
                    )
                dims = body.get("dimensions", server.dimensions)
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [
                    {"object": "embedding", "index": i, "embedding": fake_vector(t, dims)} for i, t in enumerate(inputs)
                ]
                data.reverse()  # the API does not promise order; clients must sort by index
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )

            def _send(self, status, payload):
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
