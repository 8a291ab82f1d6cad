"""Slow bodies do not deny the API (issue 21): a request body has a deadline, as its headers do, and slow
clients at the connection cap make room for one that sends its request at once.

Connections with complete headers and `Content-Length: 60000` that trickle a byte at a time held
every connection the API may have, with no key: a viewer's probes were reset. Against the real
service (uvicorn, the guarded protocol), with a small cap and a short deadline.
"""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest

from tests.support.deadlines import scaled
from tests.support.harness import VIEWER_KEY, Table

CAP = 16
DEADLINE = 2  # header_timeout_seconds: the headers' deadline, and the body's from its headers
SLOW_HEAD = (b"POST /api/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 60000\r\n\r\n{")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("slow-bodies"), seed=11,
               api_options=f"max_connections = {CAP}\nheader_timeout_seconds = {DEADLINE}\n") as t:
        yield t


def _trickler(port: int) -> socket.socket | None:
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=scaled(5))
        s.sendall(SLOW_HEAD)
        return s
    except OSError:
        return None


def _answer(s: socket.socket) -> bytes:
    """Everything the server sends on `s` until it closes it (or the socket's timeout)."""
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return out


def test_a_viewer_is_answered_while_trickling_bodies_hold_every_connection(table):
    """The attacker keeps CAP trickling bodies open, opening a new one for each that is closed; each of a
    viewer's probes in between is answered."""
    slow: list[socket.socket] = []
    answered = 0
    try:
        for _ in range(20):
            slow = [s for s in slow if _alive(s)]
            while len(slow) < CAP:
                s = _trickler(table.port)
                if s is None:
                    break
                slow.append(s)
            for s in slow:
                try:
                    s.send(b" ")  # one byte more of the body: never a complete request
                except OSError:
                    pass
            try:
                r = httpx.get(table.api + "/api/table", headers={"Authorization": f"Bearer {VIEWER_KEY}"}, timeout=scaled(5))
                answered += r.status_code == 200
            except httpx.HTTPError:
                pass
        assert answered == 20, f"{answered} of 20 probes answered"
    finally:
        for s in slow:
            s.close()
    assert "Traceback" not in (table.directory / "service.log").read_text()


def test_a_body_that_does_not_arrive_in_time_is_answered_408_and_closed(table):
    s = _trickler(table.port)
    assert s is not None
    s.settimeout(scaled(DEADLINE * 5))  # a bound for the test only: the server answers at its deadline
    try:
        answer = _answer(s)
    finally:
        s.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), answer[:300]
    assert b"connection: close" in head.lower()
    assert json.loads(body)["error"]["code"] == "too_slow"


def test_a_body_that_trickles_in_within_its_deadline_is_taken(table):
    body = json.dumps({"type": "call_pit"}).encode()
    with socket.create_connection(("127.0.0.1", table.port), timeout=scaled(10)) as s:
        s.sendall(b"POST /api/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Authorization: Bearer dealer-key\r\nConnection: close\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode())
        for i in range(0, len(body), 4):
            s.sendall(body[i:i + 4])
            time.sleep(0.05)
        answer = _answer(s)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]


def _alive(s: socket.socket) -> bool:
    """False once the server has answered or closed `s` (closed here too, then)."""
    s.setblocking(False)
    try:
        s.recv(65536)  # an answer, or b"" for a close: either way the server is done with it
    except BlockingIOError:
        s.setblocking(True)
        return True
    except OSError:
        pass
    s.close()
    return False
