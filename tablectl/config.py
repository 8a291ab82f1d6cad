"""The service's configuration: one TOML file, validated, every setting with a documented default.

A wrong value stops the service with a message naming the setting and what is
allowed (`ConfigError`), never a traceback. `deploy/config.example.toml`
shows every setting; a test checks that it validates.
"""

from __future__ import annotations

import hashlib
import tomllib
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from controller.explain import Fault
from controller.explain import explain as explain_fields
from controller.journal import key_beside
from controller.rules import RuleError, Rules, build_rules
from display.wiring import GpioWiring, PinFactoryName

from .fleet.settings import FleetSettings
from .zones import zone_of


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TableSettings(_Section):
    """The game: which table this is and its rules."""

    name: str = Field("table-1", description="the table's name in logs, the API and the dashboard")
    profile: str = Field("ru-standard", description="rule profile: ru-standard, ru-surrender, us-holecard, single-deck-enhc")
    options: dict[str, Any] = Field(default_factory=dict, description="rule option overrides (docs/rules.md)")
    time_zone: str = Field("", description="the table's local time zone, an IANA name such as Europe/Moscow, for "
                                           "the times people read in a dispute record; empty: UTC")

    exact_edge: bool = Field(True, description="compute the exact edge of each next round in a worker process, for "
                                                "surveillance (GET /api/edge, the surveillance feed); for a game that has one (blackjack)")
    gaming_day_starts: str = Field("06:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d$",
                                   description="when the casino's gaming day starts, HH:MM in the table's time zone: "
                                               "a buy-in before it is the previous gaming day's (the MTL's day), and the journal "
                                               "is archived at the first input of each gaming day")

    dealer_break_minutes: int = Field(60, ge=0, le=24 * 60,
                                      description="dealer rotation: a dealer on duty this many minutes since signing "
                                                  "in (dealer_in) is due for a break, and the dashboard says so; 0: "
                                                  "never")
    language: str = Field("en", pattern=r"^(en|ru)$",
                          description="the pit's language: the dashboard's and the scoreboard's words, numbers, money "
                                      "and times, en (English) or ru (Russian); each browser may choose its own "
                                      "on the page")
    demo_pace: str = Field("", pattern=r"^(|fast|live)$",
                           description="set by `tablectl demo` only: its virtual dealer's pace (fast, live), faster "
                                       "than a real table's, which the dashboard says; empty at a real table")

    def gaming_day(self, at: datetime) -> date:
        """The gaming day the moment ``at`` falls in: its local date, less one before ``gaming_day_starts``."""
        local = at.astimezone(zone_of(self.time_zone)) if self.time_zone else at.astimezone(timezone.utc)
        hours, minutes = map(int, self.gaming_day_starts.split(":"))
        return (local - timedelta(hours=hours, minutes=minutes)).date()

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, v: str) -> str:
        if v:
            zone_of(v)  # (a ValueError naming the zone)
        return v

    @model_validator(mode="after")
    def _rules_valid(self) -> "TableSettings":
        try:
            build_rules(self.profile, self.options)
        except RuleError as exc:
            raise ValueError(str(exc)) from None
        return self

    def rules(self) -> Rules:
        """The rules these settings name (of any game the table plays)."""
        return build_rules(self.profile, self.options)


class ShoeSettings(_Section):
    """The smart shoe's serial link."""

    port: str = Field("/dev/tablectl-shoe", description="device path, /dev/serial/by-id/... or a pyserial URL")
    codec: str = Field("framed", description="wire protocol: framed (docs/shoe-protocol.md) or lines")
    baudrate: int = Field(115200, ge=1200, le=4_000_000, description="serial speed")

    @field_validator("codec")
    @classmethod
    def _known_codec(cls, v: str) -> str:
        if v not in ("framed", "lines"):
            raise ValueError("use framed or lines")
        return v


class JournalSettings(_Section):
    """The durable journal."""

    path: Path = Field(Path("/var/lib/tablectl/journal.sqlite"), description="SQLite journal file")
    key_file: Path | None = Field(
        None, description="the table's journal key (64 hex characters, readable by the service alone); "
                          "default: the journal's path with .key appended")
    snapshot_every_rounds: int = Field(50, ge=1, le=10_000, description="rounds between state snapshots")
    snapshot_every_rows: int = Field(5_000, ge=100, le=1_000_000, description="inputs between state snapshots "
                                                                             "when no round settles (issue 42)")
    rotate_mb: int = Field(256, ge=0, le=65_536, description="the live journal is archived when it passes this "
                                                             "size too (MiB); 0: by gaming day alone")

    @property
    def key_path(self) -> Path:
        """Where the journal's key is kept."""
        return self.key_file if self.key_file is not None else key_beside(self.path)


class Role(str, Enum):
    """What an API key may do; each of viewer, dealer, supervisor and admin includes the ones before it.

    `floor` stands apart: the casino floor's key, which reads the ledger as the table publishes it
    (`GET /api/ledger`) and nothing else. It is not a supervisor's key, because the floor holds the
    table's journal key: with a view of a closed card, or a MAC chained over it, it would have the card.
    """

    VIEWER = "viewer"
    DEALER = "dealer"
    SUPERVISOR = "supervisor"
    ADMIN = "admin"
    FLOOR = "floor"


class ApiKey(_Section):
    """One API key, stored as the SHA-256 of the key (never the key itself)."""

    name: str = Field(description="who holds the key (journalled as the actor)")
    role: Role
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="hex SHA-256 of the key: tablectl hash-key")

    @staticmethod
    def hash(key: str) -> str:
        """The stored form of a key."""
        return hashlib.sha256(key.encode()).hexdigest()


# The Host names an API answers to where reads need no key from this machine (see ApiSettings.hosts).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


class ApiSettings(_Section):
    """The local HTTP API."""

    host: str = Field("127.0.0.1", description="bind address (loopback unless you mean otherwise)")
    port: int = Field(8080, ge=1, le=65535, description="TCP port")
    open_reads_on_loopback: bool = Field(False, description="reads without a key from 127.0.0.1")
    keys: list[ApiKey] = Field(default_factory=list, description="API keys and their roles")
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Host header names the API answers to; empty: any, or only the "
                                          "loopback names when open_reads_on_loopback")
    max_body_bytes: int = Field(65536, ge=1024, le=16 * 1024 * 1024,
                                description="largest request body, refused before it is read")
    max_connections: int = Field(256, ge=8, le=10_000, description="open connections at most (more are refused)")
    header_timeout_seconds: float = Field(10.0, gt=0, le=300,
                                          description="a connection whose request headers take longer is closed")
    keep_alive_seconds: float = Field(5.0, gt=0, le=300, description="idle kept-alive connections are closed after")
    tls_certfile: Path | None = Field(None, description="serve HTTPS with this certificate (PEM); keyfile too")
    tls_keyfile: Path | None = Field(None, description="the certificate's private key (PEM)")

    @model_validator(mode="after")
    def _tls_pair(self) -> "ApiSettings":
        if (self.tls_certfile is None) != (self.tls_keyfile is None):
            raise ValueError("tls_certfile and tls_keyfile go together")
        return self

    def hosts(self) -> tuple[str, ...]:
        """The Host names the API answers to."""
        if self.allowed_hosts:
            return tuple(self.allowed_hosts)
        return LOOPBACK_HOSTS if self.open_reads_on_loopback else ("*",)


class ClockSettings(_Section):
    """Time-driven rules."""

    tick_seconds: float = Field(30.0, gt=0, le=3600, description="how often the service feeds a clock tick")


class DisputeSettings(_Section):
    """What a dispute record says of the cameras (docs/dispute.md): which one covers the table, and its clock."""

    camera: str = Field("", max_length=200,
                        description="the camera or recorder covering this table, as surveillance names it "
                                    "(e.g. \"NVR-2 channel 14\"); empty: none named")
    recorder_offset_s: float = Field(0.0, ge=-86400, le=86400,
                                     description="the recorder's clock minus the table's, in seconds (e.g. 2.5 when "
                                                 "the recorder runs 2.5 s ahead): each time in a record is also "
                                                 "given as the recorder shows it")


class MtlSettings(_Section):
    """The multiple transaction log (issue 41): a person's cash bought in per gaming day, and the casino's
    thresholds on it; crossing one raises an alert (notice, action) that the journal keeps as evidence."""

    notice: int = Field(3000, ge=0, le=10**9, description="cash a person buys in in a gaming day that raises a "
                                                          "notice, in whole units of the table's money (0: none)")
    action: int = Field(10000, ge=0, le=10**9, description="cash a person buys in in a gaming day that raises an "
                                                           "action: the casino's report is due (0: none)")


class InventorySettings(_Section):
    """The table's inventory (issue 41): how far its win may differ from the table's own figure before the board
    raises `inventory_difference` (docs/pit.md)."""

    tolerance: float = Field(0, ge=0, le=10**9, description="the largest difference between the inventory's win "
                             "(closer - opener + credits - fills + drop) and the table's own figure that raises no "
                             "alert, in the table's money, cents at most (0: any difference)")

    @field_validator("tolerance")
    @classmethod
    def _cents(cls, value: float) -> float:
        if round(value, 2) != value:
            raise ValueError("at most two decimals: an amount in cents")
        return value

    def tolerance_amount(self) -> Decimal:
        """The tolerance as the journal's amount (stamped on each closer and drop)."""
        return Decimal(str(self.tolerance)).quantize(Decimal("0.01"))


class Settings(BaseSettings):
    """The whole configuration file. Environment variables override it: TABLECTL_API__PORT=9000."""

    model_config = SettingsConfigDict(env_prefix="TABLECTL_", env_nested_delimiter="__", extra="forbid")

    table: TableSettings = Field(default_factory=TableSettings)
    shoe: ShoeSettings = Field(default_factory=ShoeSettings)
    journal: JournalSettings = Field(default_factory=JournalSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    clock: ClockSettings = Field(default_factory=ClockSettings)
    fleet: FleetSettings = Field(default_factory=FleetSettings)
    dispute: DisputeSettings = Field(default_factory=DisputeSettings)
    mtl: MtlSettings = Field(default_factory=MtlSettings)
    inventory: InventorySettings = Field(default_factory=InventorySettings)
    gpio: GpioWiring = Field(default_factory=lambda: GpioWiring(pin_factory=PinFactoryName.MOCK))
    log_level: str = Field("INFO", pattern=r"^(DEBUG|INFO|WARNING|ERROR)$", description="log level")


class ConfigError(ValueError):
    """A configuration that cannot run; the message names the setting."""


# The journalled way to change a table's rules (tablectl/journal_cli.py, `run_rules`), named wherever they differ.
RULES_COMMAND = "tablectl journal rules --config FILE"


class RulesDiffer(ConfigError):
    """The config's rules are not the journal's, which are the table's: the table would play other rules than
    the config says, without a word (issue 36). The message names each difference and the command that changes
    the table's rules, journalled."""


def rules_differ(journal: Rules, settings: "Settings") -> RulesDiffer | None:
    """Why the config's `[table]` rules are not the journal's (the rules in force at its head), or None."""
    from controller.rules import differences

    found = differences(journal, settings.table.rules())
    if not found:
        return None
    said = "; ".join(f"{what} {_shown(theirs)} in the journal, {_shown(mine)} in the config"
                     for what, theirs, mine in found)
    return RulesDiffer(f"the config's [table] rules are not the table's, which its journal holds: {said}. Change "
                       f"the table's rules between rounds with `{RULES_COMMAND}` (journalled; the service "
                       "stopped), or set [table] profile and options to the journal's")


def _shown(value: Any) -> str:
    return "(none)" if value is None else str(value)


def _say_setting(fault: Fault) -> str:
    if fault.kind == "extra_forbidden":
        return f"{fault.where}: unknown setting"
    shown = "" if isinstance(fault.input, dict) else f" (got {fault.input!r})"  # a whole section is not worth repeating
    return f"{fault.where}: {fault.message}{shown}"


def explain(exc: ValidationError) -> str:
    """A config's validation errors in one line, each naming its setting (for ConfigError and the floor's)."""
    return explain_fields(exc, "config", say=_say_setting)


def load_settings(path: str | Path | None) -> Settings:
    """Read and validate a TOML config file (None: embedded defaults)."""
    if path is None:
        return settings_from_dict({}, "embedded defaults and TABLECTL_* environment")
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"config {path} is not a usable config: its tables or arrays are nested too deeply") from None
    return settings_from_dict(data, str(path))


def settings_from_dict(data: dict[str, Any], source: str = "config") -> Settings:
    """Validate already-parsed settings."""
    try:
        return Settings(**data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {explain(exc)}") from None
