"""A tiny HTTP client for the API tests (httpx against the real server)."""

from __future__ import annotations

from typing import Any

import httpx


def call(api: str, method: str, path: str, key: str | None = None, **kw: Any) -> httpx.Response:
    headers = kw.pop("headers", {})
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return httpx.request(method, api + path, headers=headers, timeout=10, **kw)
