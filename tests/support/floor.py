"""An in-process floor for tests of its input and API: messages handed to `FloorService.handle` as the broker
hands them, and the floor's HTTP API through a test client (no broker, no sockets)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tests.support.harness import SUPERVISOR_KEY, VIEWER_KEY

from tablectl.config import ApiKey
from tablectl.floor.api import create_floor_app
from tablectl.floor.service import FloorService
from tablectl.floor.settings import floor_settings

# A fixed clock: the tiles' ages and the store's times do not depend on when the test runs.
NOW = 1_800_000_000.0


@dataclass(frozen=True)
class Message:
    """What the floor reads of a broker message: its topic and its payload."""

    topic: str
    payload: bytes


def floor_service(directory: Path, keys: dict[str, bytes], **floor: Any) -> FloorService:
    """A floor whose store and keys folder are in `directory`, with `keys` written there as TABLE_ID.key."""
    keys_dir = directory / "keys"
    keys_dir.mkdir(parents=True, exist_ok=True)
    for table, key in keys.items():
        (keys_dir / f"{table}.key").write_text(key.hex() + "\n")
    settings = floor_settings({
        "floor": {"store": str(directory / "floor.sqlite"), "keys_dir": str(keys_dir), **floor},
        "api": {"keys": [{"name": "surveillance", "role": "supervisor", "sha256": ApiKey.hash(SUPERVISOR_KEY)},
                         {"name": "pit", "role": "viewer", "sha256": ApiKey.hash(VIEWER_KEY)}]},
    })
    return FloorService(settings)


class ApiClient:
    """The floor's HTTP API in process (through httpx's ASGI transport), with the supervisor's key."""

    def __init__(self, floor: FloorService) -> None:
        self.app = create_floor_app(floor)

    def get(self, path: str) -> httpx.Response:
        """One GET."""
        return self.get_all([path])[0]

    def get_all(self, paths: list[str]) -> list[httpx.Response]:
        """A GET of each path, in one event loop."""
        async def go() -> list[httpx.Response]:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url="http://127.0.0.1:8090",
                                         headers={"Authorization": f"Bearer {SUPERVISOR_KEY}"}) as client:
                return [await client.get(p) for p in paths]

        return asyncio.run(go())


def api_client(floor: FloorService) -> ApiClient:
    """The floor's API, with the supervisor's key (it may read every route)."""
    return ApiClient(floor)


def ledger(table: str, payload: bytes, prefix: str = "tablectl") -> Message:
    """A ledger message on `table`'s topic."""
    return Message(f"{prefix}/{table}/ledger", payload)


def state(table: str, payload: bytes, prefix: str = "tablectl") -> Message:
    """A retained state message on `table`'s topic."""
    return Message(f"{prefix}/{table}/state", payload)


def status(table: str, payload: bytes, prefix: str = "tablectl") -> Message:
    """A retained status message on `table`'s topic."""
    return Message(f"{prefix}/{table}/status", payload)
