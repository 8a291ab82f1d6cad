"""A tiny HTTP client for the API tests (httpx against the real server)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx


# How long a test waits for one answer before it fails.
TIMEOUT = 10


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
    with httpx.stream("GET", api + "/api/events", headers=headers, timeout=timeout) as resp:
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
        while call(api, "GET", "/api/table", key).json()["locked"]:
            time.sleep(0.01)
        seq = call(api, "GET", "/api/table", key).json()["last_seq"]
        end = time.monotonic() + 20
        # The view opens the gate at once; the shoe's own gate opens when its UNLOCK arrives.
        while (answer := shoe.request("deal")).get("error") == "locked" and time.monotonic() < end:
            time.sleep(0.02)
        assert answer["ok"], answer
        dealt.append(answer["card"])
        while call(api, "GET", "/api/table", key).json()["last_seq"] == seq:
            time.sleep(0.01)
    return dealt
