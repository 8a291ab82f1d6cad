"""The API's edge (issue 12): bounded, typed input, checked before anyone has looked at it.

A body over the limit is refused before it is read and before the key is checked; strings are
bounded and valid Unicode; where reads are open, only loopback Host names are answered; /metrics
needs a key; every error, the framework's included, has the documented shape; slow clients beyond
the limit never starve the shoe's link of a descriptor.
"""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from tests.support.deadlines import scaled
from tests.support.client import call
from tests.support.harness import DEALER_KEY, VIEWER_KEY, Table


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("edge"), seed=8) as t:
        yield t


def _raw(port: int, head: bytes, timeout: float = 10) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=scaled(timeout)) as s:
        s.sendall(head)
        out = b""
        while b"\r\n\r\n" not in out:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        return out


def test_a_huge_body_without_a_key_is_refused_before_it_is_read(table):
    # 100 MB announced, 10 bytes sent: the answer comes at once, so nothing waited for the rest.
    head = (b"POST /api/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 104857600\r\n\r\n{\"type\":\"b")
    answer = _raw(table.port, head)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    chunked = httpx.post(table.api + "/api/actions", content=iter([b"x" * 40_000, b"y" * 40_000]),
                         headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10))
    assert chunked.status_code == 413 and chunked.json()["error"]["code"] == "too_large"


def test_strings_are_bounded_and_valid_unicode(table):
    long_name = {"type": "bet", "box": 1, "amount": 10, "player": "x" * 1000}
    r = call(table.api, "POST", "/api/actions", DEALER_KEY, json=long_name)
    assert r.status_code == 422 and r.json()["error"]["field"] == "bet.player"
    surrogate = b'{"type": "bet", "box": 2, "amount": 10, "player": "\\ud800"}'
    r = call(table.api, "POST", "/api/actions", DEALER_KEY, content=surrogate,
             headers={"content-type": "application/json"})
    assert r.status_code == 422 and "unicode" in r.json()["error"]["message"].lower()
    assert call(table.api, "GET", "/api/table", VIEWER_KEY).status_code == 200  # nothing got in
    r = call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "shuffle", "shoe_id": "mine"})
    assert r.status_code == 422 and r.json()["error"]["field"] == "shuffle.shoe_id"  # the shoe names its shoes


def test_every_framework_error_has_the_documented_shape(table):
    for method, path in (("GET", "/no/such/page"), ("DELETE", "/api/table"), ("PUT", "/api/actions")):
        r = call(table.api, method, path, VIEWER_KEY)
        assert r.status_code in (404, 405), (method, path)
        body = r.json()
        assert set(body) == {"error"} and {"code", "message", "field"} == set(body["error"])


def test_metrics_need_a_key_where_reads_are_closed(table):
    assert httpx.get(table.api + "/metrics", timeout=scaled(10)).status_code == 401
    assert call(table.api, "GET", "/metrics", VIEWER_KEY).status_code == 200


def test_where_reads_are_open_only_loopback_names_are_answered(tmp_path):
    with Table(tmp_path, seed=9, api_options="open_reads_on_loopback = true\n") as t:
        assert httpx.get(t.api + "/api/table", timeout=scaled(10)).status_code == 200
        evil = httpx.get(t.api + "/api/table", headers={"Host": "tables.evil.example"}, timeout=scaled(10))
        assert evil.status_code == 400 and evil.json()["error"]["code"] == "bad_host"
        assert httpx.get(f"http://localhost:{t.port}/healthz", timeout=scaled(10)).status_code == 200


@pytest.mark.long
def test_slow_clients_beyond_the_limit_do_not_starve_the_shoe_link(tmp_path):
    """Hundreds of connections that never finish their request line, in a process with few descriptors:
    they are capped and timed out, and an unplugged shoe is back as soon as its cable is."""
    with Table(tmp_path, seed=10, api_options="max_connections = 60\nheader_timeout_seconds = 2\n",
               service_prefix=("prlimit", "--nofile=200:200")) as t:
        sockets = []
        try:
            for _ in range(300):
                try:
                    s = socket.create_connection(("127.0.0.1", t.port), timeout=scaled(5))
                    s.sendall(b"GET /api/table HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and nothing more
                    sockets.append(s)
                except OSError:
                    break
            assert t.shoe.request("unplug", seconds=0.5)["ok"]
            time.sleep(1.0)
            end = time.monotonic() + scaled(20)
            while time.monotonic() < end:
                try:
                    health = httpx.get(t.api + "/healthz", timeout=scaled(2)).json()
                    if health["shoe_link"]:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
            else:
                raise AssertionError("the shoe link was not back")
            log = (tmp_path / "service.log").read_text()
            assert "Too many open files" not in log and "Traceback" not in log
        finally:
            for s in sockets:
                s.close()
