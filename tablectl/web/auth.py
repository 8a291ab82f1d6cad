"""The one gate for API keys: every route of either API (the table's, the floor's) that needs a caller depends on
:func:`need`.

Keys arrive as ``Authorization: Bearer KEY`` (or ``X-Api-Key``), are hashed
and compared in constant time against every configured key, whatever
matches, so the time taken says nothing about which key was close. An API
configured with ``open_reads_on_loopback`` lets a reader on 127.0.0.1 in as
an anonymous viewer (the demo's setting).
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Annotated, Awaitable, Callable

from fastapi import Depends, Header, Request
from pydantic import BaseModel

from tablectl.config import ApiKey, ApiSettings, Role

from .errors import ApiError

RANK = {Role.VIEWER: 0, Role.DEALER: 1, Role.SUPERVISOR: 2, Role.ADMIN: 3}


class Caller(BaseModel):
    """Who is calling: the key's holder and role (or an anonymous loopback reader)."""

    name: str
    role: Role

    def may(self, role: Role) -> bool:
        """True when this caller's role includes `role`.

        The floor's role is apart from the ranks: a floor key may read the ledger as published and
        nothing else, and the ledger as published is open to a supervisor (who sees more) as well.
        """
        if role is Role.FLOOR:
            return self.role in (Role.FLOOR, Role.SUPERVISOR, Role.ADMIN)
        if self.role is Role.FLOOR:
            return False
        return RANK[self.role] >= RANK[role]

    @property
    def sees_closed_cards(self) -> bool:
        """Only a supervisor (or above) sees a closed card not yet turned (a hole card, a club game's closed card)."""
        return self.may(Role.SUPERVISOR)

    @property
    def actor(self) -> str:
        """How the journal names this caller."""
        return f"{self.role.value}:{self.name}"


class KeyRing:
    """The configured keys; `identify` turns a presented key into a Caller."""

    def __init__(self, settings: ApiSettings) -> None:
        self.keys: list[ApiKey] = list(settings.keys)
        self.open_reads_on_loopback = settings.open_reads_on_loopback

    def identify(self, request: Request, key: str | None) -> Caller:
        """The caller presenting `key` (None: no key), or ApiError 401."""
        if key is None:
            if self.open_reads_on_loopback and is_loopback(request):
                return Caller(name="loopback", role=Role.VIEWER)
            raise ApiError(401, "no_key", "an API key is needed (Authorization: Bearer KEY)")
        digest = ApiKey.hash(key)
        found: ApiKey | None = None
        for k in self.keys:  # every key compared, in constant time, whatever matches
            if hmac.compare_digest(k.sha256, digest):
                found = k
        if found is None:
            raise ApiError(401, "bad_key", "this API key is not known")
        return Caller(name=found.name, role=found.role)


def presented_key(authorization: str | None, x_api_key: str | None) -> str | None:
    """The key a request carries, from either header."""
    if x_api_key is not None:
        return x_api_key
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


async def caller(request: Request, authorization: Annotated[str | None, Header()] = None,
                 x_api_key: Annotated[str | None, Header()] = None) -> Caller:
    """FastAPI dependency: who is calling (401 when nobody known).

    Dependencies are ``async`` so FastAPI runs them on the event loop: a plain ``def``
    would hop to its thread pool on every request (and contend for the GIL with the loop).
    """
    ring: KeyRing = request.app.state.keys
    return ring.identify(request, presented_key(authorization, x_api_key))


def need(role: Role) -> Callable[[Caller], Awaitable[Caller]]:
    """A dependency that lets in callers whose role includes `role` (403 otherwise)."""

    async def check(who: Annotated[Caller, Depends(caller)]) -> Caller:
        if not who.may(role):
            raise ApiError(403, "forbidden", f"a {role.value} key is needed; this key is {who.role.value}")
        return who

    return check


def is_loopback(request: Request) -> bool:
    """True when the request comes from this machine."""
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host in ("testclient", "localhost")


Viewer = Annotated[Caller, Depends(need(Role.VIEWER))]
Dealer = Annotated[Caller, Depends(need(Role.DEALER))]
Supervisor = Annotated[Caller, Depends(need(Role.SUPERVISOR))]
Floor = Annotated[Caller, Depends(need(Role.FLOOR))]
