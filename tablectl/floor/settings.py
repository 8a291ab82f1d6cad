"""The floor's configuration: one TOML file, validated like the table's (tablectl/config.py).

A wrong value stops `tablectl floor` with the setting's name and what is
allowed, never a traceback. `deploy/floor.example.toml` shows every setting.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from tablectl.config import ApiSettings, explain
from tablectl.fleet.settings import BrokerSettings
from tablectl.fleet.wire import PREFIX, TABLE_ID

from . import FloorConfigError


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _table_api_url(value: str) -> str:
    """http(s)://HOST[:PORT][/PATH]: where the floor asks a table's API for rows (no credentials, query or fragment)."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number from 0 to 65535
    except ValueError as exc:
        raise ValueError(f"not a usable URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("use https://HOST:PORT (or http:// on a network where the floor key may travel in clear)")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError("only the scheme, host, port and a path: the key goes in api_key_file")
    return value.rstrip("/")


class RecoverySettings(_Section):
    """How the floor asks a table's API for the rows of a gap (`[[floor.tables]]` names the tables)."""

    page_rows: int = Field(200, ge=1, le=500, description="rows asked for in one request (a table answers 500 at most)")
    timeout_seconds: float = Field(10.0, ge=0.5, le=120,
                                   description="a request whose whole answer takes longer fails (connect, send, read)")
    backoff_max_seconds: float = Field(300.0, ge=1, le=86400,
                                       description="the longest wait between two attempts at a table that fails")


class TableApi(_Section):
    """One table whose API the floor may ask for the rows of a gap: configured here, never taken from the broker."""

    id: str = Field(pattern=TABLE_ID, description="the table's id (its [fleet] table_id)")
    api_url: Annotated[str, Field(max_length=300), AfterValidator(_table_api_url)] = Field(
        description="the table's API, e.g. https://10.1.2.31:8080 (its [api] host and port)")
    api_key_file: Path = Field(description="a file holding the table's floor key (an [[api.keys]] of role floor)")
    ca_file: Path | None = Field(None, description="CA certificate(s) that signed the table's (https; "
                                                   "default: the system's)")

    @model_validator(mode="after")
    def _ca_for_https(self) -> "TableApi":
        if self.ca_file is not None and not self.api_url.startswith("https:"):
            raise ValueError("ca_file goes with an https:// api_url (http:// has no certificate to check)")
        return self


class FloorSection(_Section):
    """The floor service itself."""

    name: str = Field("floor", max_length=80, description="the floor's name on its dashboard")
    topic_prefix: str = Field("tablectl", pattern=PREFIX, description="the tables' topic prefix")
    client_id: str = Field("tablectl-floor", pattern=r"^[A-Za-z0-9_-]{1,64}$",
                           description="MQTT client id: the broker keeps this session's queue while we are away")
    session_expiry_seconds: int = Field(7 * 86400, ge=60, le=2**32 - 1,
                                        description="how long the broker keeps our queue while the floor is down")
    store: Path = Field(Path("/var/lib/tablectl-floor/floor.sqlite"), description="the floor's SQLite store")
    keys_dir: Path = Field(Path("/etc/tablectl-floor/keys"),
                           description="copies of the tables' journal keys, one file TABLE_ID.key each")
    known_tables: list[Annotated[str, Field(pattern=TABLE_ID)]] = Field(
        default_factory=list, max_length=10_000,
        description="tables accepted without a key in keys_dir (their MACs unverified); any other table is unknown")
    max_seq_jump: int = Field(100_000, ge=1, le=2**62,
                              description="a row more than this beyond its table's highest on the floor is refused")
    gap_grace_seconds: float = Field(10.0, ge=0.5, le=3600,
                                     description="a missing row is reported as a gap after this long")
    log_level: str = Field("INFO", pattern=r"^(DEBUG|INFO|WARNING|ERROR)$", description="log level")
    recovery: RecoverySettings = Field(default_factory=RecoverySettings)
    tables: list[TableApi] = Field(default_factory=list, max_length=10_000,
                                   description="tables whose API the floor asks for the rows of a gap")

    @model_validator(mode="after")
    def _one_entry_per_table(self) -> "FloorSection":
        seen: set[str] = set()
        for t in self.tables:
            if t.id in seen:
                raise ValueError(f"[[floor.tables]]: table {t.id} is configured more than once")
            seen.add(t.id)
        return self


class FloorApiSettings(ApiSettings):
    """The floor's HTTP API and dashboard (the same key roles as a table's)."""

    port: int = Field(8090, ge=1, le=65535, description="TCP port")


class FloorSettings(_Section):
    """The whole floor configuration file."""

    floor: FloorSection = Field(default_factory=FloorSection)
    broker: BrokerSettings = Field(default_factory=BrokerSettings)
    api: FloorApiSettings = Field(default_factory=FloorApiSettings)


def floor_settings(data: dict[str, Any], source: str = "floor config") -> FloorSettings:
    """Validate already-parsed settings; FloorConfigError names what is wrong."""
    try:
        return FloorSettings(**data)
    except ValidationError as exc:
        raise FloorConfigError(f"{source}: {explain(exc)}") from None


def load_floor_settings(path: str | Path) -> FloorSettings:
    """Read and validate a floor TOML file."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise FloorConfigError(f"cannot read floor config {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise FloorConfigError(f"floor config {path} is not valid TOML: {exc}") from None
    return floor_settings(data, str(path))
