"""A tiny HTTP client for the API tests (httpx against the real server)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from tests.support.deadlines import scaled, wait_until

# How long a test waits for one answer before it fails (tests.support.deadlines: scaled by the knob).
TIMEOUT = scaled(10)


def authorized(key: str | None, headers: dict[str, str] | None = None) -> dict[str, str]:
    """``headers`` with ``key`` presented as the API takes it (``Authorization: Bearer KEY``); none for None."""
    headers = dict(headers or {})
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def call(api: str, method: str, path: str, key: str | None = None, **kw: Any) -> httpx.Response:
    """One request to the API at ``api`` (its base URL) as the holder of ``key`` (None: no key)."""
    headers = authorized(key, kw.pop("headers", None))
    return httpx.request(method, api + path, headers=headers, timeout=TIMEOUT, **kw)


def sse_events(api: str, key: str, last_id: int | None, want: int, timeout: float = 20) -> list[dict[str, Any]]:
    """The next `want` events of the table's stream after `last_id`: each {"id": seq, "data": {...}}."""
    return sse_read(api, key, last_id, lambda got: len(got) >= want, timeout)


def sse_read(api: str, key: str, last_id: int | None, enough: Callable[[list[dict[str, Any]]], bool],
             timeout: float = 20) -> list[dict[str, Any]]:
    """The table's stream after `last_id` as `key` gets it, each event {"id": seq, "data": {...}},
    read until `enough` says so of the events so far."""
    headers = {"Authorization": f"Bearer {key}"}
    if last_id is not None:
        headers["Last-Event-ID"] = str(last_id)
    got: list[dict[str, Any]] = []
    with httpx.stream("GET", api + "/api/events", headers=headers, timeout=scaled(timeout)) as resp:
        assert resp.status_code == 200
        current: dict[str, Any] = {}
        for line in resp.iter_lines():
            if line.startswith("id: "):
                current["id"] = int(line[4:])
            elif line.startswith("data: ") and "id" in current:
                current["data"] = json.loads(line[6:])
                got.append(current)
                current = {}
                if enough(got):
                    break
    return got


def deal(api: str, shoe: Any, key: str, cards: int) -> list[str]:
    """Have the virtual shoe deal `cards` cards, each once the gate is open and the last one is journalled.

    `shoe` is the virtual shoe's control (`SimProcess`); returns the codes dealt, in order.
    """
    dealt = []
    for _ in range(cards):
        wait_until(lambda: not call(api, "GET", "/api/table", key).json()["locked"], 20, "the gate to open")
        seq = call(api, "GET", "/api/table", key).json()["last_seq"]
        # The view opens the gate at once; the shoe's own gate opens when its UNLOCK arrives.
        answer = wait_until(lambda: _unless_locked(shoe.request("deal")), 20, "the shoe's gate to open")
        assert answer["ok"], answer
        dealt.append(answer["card"])
        wait_until(lambda: call(api, "GET", "/api/table", key).json()["last_seq"] != seq, 20,
                   f"the card {answer['card']} journalled")
    return dealt


def _unless_locked(answer: dict[str, Any]) -> dict[str, Any] | None:
    """The shoe's answer to a deal, or None while its gate is still locked (asked again)."""
    return None if answer.get("error") == "locked" else answer
