"""Retries only where the API is idempotent, against a real HTTP server on a local port that breaks the first
connection of every request after reading it (the request may have been acted on)."""

from __future__ import annotations

import http.server
import json
import socket
import threading
from collections.abc import Iterator

import pytest

from crucible_sdk import EnvClient, TransportError


class Flaky(http.server.BaseHTTPRequestHandler):
    seen: list[str] = []

    def _handle(self) -> None:
        n = len(self.headers.get("Content-Length") or "") and int(self.headers["Content-Length"])
        self.rfile.read(n)
        Flaky.seen.append(f"{self.command} {self.path}")
        if Flaky.seen.count(f"{self.command} {self.path}") == 1:
            self.connection.shutdown(socket.SHUT_RDWR)  # read, then the connection breaks without an answer
            return
        body = json.dumps({"findings": []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _handle

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    Flaky.seen = []
    s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    threading.Thread(target=s.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{s.server_address[1]}"
    s.shutdown()


def test_get_is_retried_after_a_broken_connection(server: str) -> None:
    with EnvClient(server, token="t") as c:
        assert c.findings().findings == []
    assert Flaky.seen == ["GET /v1/findings", "GET /v1/findings"]


def test_step_is_not_retried_once_sent(server: str) -> None:
    with EnvClient(server, token="t") as c:
        with pytest.raises(TransportError) as e:
            c.bash("echo once")
    assert e.value.sent
    assert Flaky.seen == ["POST /v1/step"], "a step that may have run was sent again"


def test_unreachable_server_is_a_transport_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: connections are refused
        with EnvClient(f"http://127.0.0.1:{port}", token="t") as c:
            with pytest.raises(TransportError) as e:
                c.reset()
    assert not e.value.sent
