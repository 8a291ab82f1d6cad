"""The edge's own answers have the documented error shape too (issue 21): a 413 for an announced oversized
body, and the 503 when the API is answering as many requests as it may, were plain text.

Against the real service (uvicorn and the guarded protocol: these answers are the server's).
"""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from tests.support.deadlines import scaled
from tests.support.harness import DEALER_KEY, VIEWER_KEY, Table

CAP = 8


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("shapes"), seed=12, api_options=f"max_connections = {CAP}\n") as t:
        yield t


def _raw(port: int, request: bytes) -> tuple[bytes, bytes]:
    """(head, body) of the answer to `request`, read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=scaled(10)) as s:
        s.sendall(request)
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    head, _, body = out.partition(b"\r\n\r\n")
    return head, body


def _envelope(body: bytes) -> dict:
    doc = json.loads(body)
    assert set(doc) == {"error"} and set(doc["error"]) == {"code", "message", "field"}, doc
    return doc["error"]


@pytest.mark.parametrize("line, key", [("POST /api/actions", DEALER_KEY), ("GET /api/table", VIEWER_KEY),
                                       ("POST /api/shoe/lock", None), ("GET /no/such/page", None)])
def test_an_announced_oversized_body_is_a_413_in_the_error_shape_at_once(table, line, key):
    auth = f"Authorization: Bearer {key}\r\n" if key else ""
    head, body = _raw(table.port, f"{line} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                  f"{auth}Content-Length: 104857600\r\n\r\n{{".encode())
    assert head.startswith(b"HTTP/1.1 413"), head
    assert b"application/json" in head.lower() and b"connection: close" in head.lower()
    assert _envelope(body)["code"] == "too_large"


def test_a_body_that_grows_past_the_limit_is_a_413_in_the_error_shape(table):
    r = httpx.post(table.api + "/api/actions", content=iter([b"x" * 40_000, b"y" * 40_000]),
                   headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10))
    assert r.status_code == 413 and _envelope(r.content)["code"] == "too_large"


def test_at_the_limit_of_requests_being_answered_the_503_is_in_the_error_shape(table):
    """Every connection the API may have holds an event stream: one more is told 503 busy, in JSON."""
    streams = []
    try:
        for _ in range(CAP):
            s = socket.create_connection(("127.0.0.1", table.port), timeout=scaled(10))
            s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {VIEWER_KEY}\r\n"
                      "\r\n".encode())
            assert s.recv(4096).startswith(b"HTTP/1.1 200")  # a stream being answered
            streams.append(s)
        head, body = _raw(table.port, f"GET /api/table HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                      f"Authorization: Bearer {VIEWER_KEY}\r\n\r\n".encode())
        assert head.startswith(b"HTTP/1.1 503"), head
        assert b"application/json" in head.lower() and b"retry-after: 1" in head.lower()
        assert _envelope(body)["code"] == "busy"
    finally:
        for s in streams:
            s.close()
    # The streams gone, the API answers again.
    r = httpx.get(table.api + "/api/table", headers={"Authorization": f"Bearer {VIEWER_KEY}"}, timeout=scaled(10))
    assert r.status_code == 200
