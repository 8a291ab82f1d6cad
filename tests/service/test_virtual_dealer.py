"""The virtual dealer rides through a restarting service: a 5xx, a connection dropped mid-answer
(IncompleteRead), a cut-off JSON body and a refused connection are waited out with back-off."""

from __future__ import annotations

import http.server
import json
import socket
import threading
from typing import Iterator

import pytest

from simulators.virtual_dealer import DealerStopped, VirtualDealer
from tests.support.deadlines import scaled

DONE = {"rounds_played": 3, "round": None, "phase": "betting"}


class _Flaky(http.server.BaseHTTPRequestHandler):
    """GET /api/table answers each way a restarting service can, in turn, then a played table."""

    answers: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        kind = self.answers.pop(0) if self.answers else "ok"
        if kind == "503":
            self._send(503, b'{"error":{"code":"stopping","message":"","field":null}}')
        elif kind == "cut":  # promises more than it sends, then hangs up: IncompleteRead
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "500")
            self.end_headers()
            self.wfile.write(b'{"rounds_pl')
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        elif kind == "badjson":
            self._send(200, b'{"rounds_played": 3, "round"')
        else:
            self._send(200, json.dumps(DONE).encode())

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def flaky() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_every_kind_of_broken_answer_is_retried(flaky: str) -> None:
    _Flaky.answers = ["503", "cut", "badjson", "503"]
    dealer = VirtualDealer(flaky, "k", "/nonexistent.control")
    assert dealer.run(3, timeout=scaled(60)) == DONE  # it waited through all four
    assert _Flaky.answers == []


def test_a_refused_connection_is_retried_until_told_to_stop() -> None:
    with socket.socket() as s:  # a port nobody listens on: the service is down
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dealer = VirtualDealer(f"http://127.0.0.1:{port}", "k", "/nonexistent.control")
    threading.Timer(0.5, dealer.stop.set).start()
    with pytest.raises(DealerStopped):
        dealer.run(3, timeout=scaled(60))
