"""The `[fleet]` section of the table's config, and the broker settings the floor shares.

Kept apart from the client library (tablectl/fleet/broker.py) so reading a
config never imports it.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from . import MAX_PIT, PREFIX, TABLE_ID, check_pit


class BrokerSettings(BaseModel):
    """Where the broker is and how to prove who we are to it."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field("mqtt://127.0.0.1:1883",
                     description="mqtt://HOST:PORT, or mqtts://HOST:PORT for TLS (default port 8883)")
    ca_file: str = Field("", description="CA certificate(s) that signed the broker's (TLS; empty: the system's)")
    cert_file: str = Field("", description="client certificate (TLS client authentication; empty: none)")
    key_file: str = Field("", description="the client certificate's private key")
    username: str = Field("", description="user name (empty: none)")
    password_file: str = Field("", description="file holding the password (kept out of the config)")
    keepalive: int = Field(15, ge=5, le=600, description="seconds between pings: how soon a dead link is noticed")

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        parts = urlsplit(v)
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise ValueError("use mqtt://HOST:PORT or mqtts://HOST:PORT")
        try:
            parts.port
        except ValueError:
            raise ValueError("the port is not a number from 1 to 65535") from None
        if parts.path not in ("", "/") or parts.query or parts.username or parts.password:
            raise ValueError("only mqtt[s]://HOST:PORT (credentials go in username and password_file)")
        return v

    @property
    def host(self) -> str:
        """The broker's host name or address."""
        return urlsplit(self.url).hostname or ""

    @property
    def tls(self) -> bool:
        """True for mqtts://."""
        return urlsplit(self.url).scheme == "mqtts"

    @property
    def port(self) -> int:
        """The broker's port (1883 or 8883 by default)."""
        return urlsplit(self.url).port or (8883 if self.tls else 1883)


Feed = Literal["surveillance", "public"]
FEEDS: tuple[Feed, ...] = ("surveillance", "public")


class FleetSettings(BaseModel):
    """Publishing this table's journal and state to the floor's broker (off by default)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(False, description="publish to the broker; off: the table is on its own")
    table_id: str = Field("table-1", pattern=TABLE_ID, description="this table's id on the floor and in its topics")
    topic_prefix: str = Field("tablectl", pattern=PREFIX, description="topics are PREFIX/TABLE_ID/ledger|state|status")
    dashboard_url: str = Field("", max_length=300, description="this table's dashboard as the floor links it")
    pit: str = Field("", max_length=MAX_PIT, description="the pit this table is in, e.g. \"A\": the floor groups "
                     "its tiles by it (empty: no pit)")
    state_every_seconds: float = Field(1.0, ge=0.1, le=60, description="at most one retained state this often")
    feeds: list[Feed] = Field(
        default_factory=lambda: list(FEEDS),
        description="feeds besides the floor's (ledger, state, status): surveillance (the count and protection "
                    "findings) and public (each box's result once a round is settled: no card, total, money or "
                    "name); the broker's access rules say who "
                    "reads each (docs/floor.md, \"Feeds by audience\")")
    broker: BrokerSettings = Field(default_factory=BrokerSettings)

    @field_validator("pit")
    @classmethod
    def _pit(cls, v: str) -> str:
        return check_pit(v)

    @field_validator("dashboard_url")
    @classmethod
    def _http(cls, v: str) -> str:
        if v and urlsplit(v).scheme not in ("http", "https"):
            raise ValueError("use http://HOST:PORT/ or https://...")
        return v
