"""The floor's configuration: one TOML file, validated like the table's (tablectl/config.py).

A wrong value stops `tablectl floor` with the setting's name and what is
allowed, never a traceback. `deploy/floor.example.toml` shows every setting.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qsl, urlsplit

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


def _dashboard_link(value: str) -> str:
    """Empty, or http(s)://HOST[:PORT][/PATH...]: the link on the table's tile, for a person's browser."""
    if not value:
        return value
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number from 0 to 65535
    except ValueError as exc:
        raise ValueError(f"not a usable URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("only http:// and https:// links with a host")
    if parts.username or parts.password:
        raise ValueError("no user name or password in a link")
    return value


class TableApi(_Section):
    """One table as the floor's config knows it: the API it may ask for the rows of a gap, and the dashboard its
    tile links to. Configured here, never taken from the broker."""

    id: str = Field(pattern=TABLE_ID, description="the table's id (its [fleet] table_id)")
    api_url: Annotated[str, Field(max_length=300), AfterValidator(_table_api_url)] = Field(
        "", description="the table's API, e.g. https://10.1.2.31:8080 (its [api] host and port); empty: its gaps "
                        "are not asked of it")
    api_key_file: Path | None = Field(None, description="a file holding the table's floor key (an [[api.keys]] of "
                                                        "role floor); with api_url")
    ca_file: Path | None = Field(None, description="CA certificate(s) that signed the table's (https; "
                                                   "default: the system's)")
    dashboard_url: Annotated[str, Field(max_length=300), AfterValidator(_dashboard_link)] = Field(
        "", description="the table's dashboard as the pit's PCs reach it, linked from its tile (never an address a "
                        "table publishes); empty: no link")

    @model_validator(mode="after")
    def _ca_for_https(self) -> "TableApi":
        if (self.api_key_file is None) != (not self.api_url):
            raise ValueError("api_url and api_key_file go together (the floor asks the table's API with the key)")
        if self.ca_file is not None and not self.api_url.startswith("https:"):
            raise ValueError("ca_file goes with an https:// api_url (http:// has no certificate to check)")
        return self


STORES = ("sqlite", "postgresql")
# The PostgreSQL settings a dsn replaces: the one or the other, so that no setting is silently ignored.
_CONNECTION_FIELDS = {"host", "port", "dbname", "user", "sslmode", "ca_file"}


def _dsn(value: str) -> str:
    """Empty, or postgresql://[USER@]HOST[:PORT]/DBNAME[?PARAM=VALUE...], libpq's URI, without a password."""
    if not value:
        return value
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number from 0 to 65535
    except ValueError as exc:
        raise ValueError(f"not a usable URI: {exc}") from None
    if parts.scheme not in ("postgresql", "postgres"):
        raise ValueError("use postgresql://USER@HOST:PORT/DBNAME (libpq's URI)")
    if parts.password is not None or any(k == "password" for k, _ in parse_qsl(parts.query)):
        raise ValueError("no password in the dsn: it goes in password_file, a file readable by the floor alone")
    return value


class SqliteStore(_Section):
    """The embedded store: one SQLite file on the floor's machine (the default)."""

    path: Path = Field(Path("/var/lib/tablectl-floor/floor.sqlite"), description="the floor's SQLite file")


class PostgresStore(_Section):
    """A PostgreSQL database the floor keeps its store in: `dsn`, or host, port, dbname and user."""

    dsn: Annotated[str, Field(max_length=1000), AfterValidator(_dsn)] = Field(
        "", description="postgresql://USER@HOST:PORT/DBNAME[?PARAM=VALUE...], in place of the fields below")
    host: str = Field("127.0.0.1", min_length=1, max_length=255, pattern=r"^[^\s'\\]+$",
                      description="the server's host name or address, or the folder of its unix socket")
    port: int = Field(5432, ge=1, le=65535, description="the server's port")
    dbname: str = Field("tablectl_floor", min_length=1, max_length=63, pattern=r"^[^\s'\\]+$",
                        description="the database")
    user: str = Field("tablectl_floor", min_length=1, max_length=63, pattern=r"^[^\s'\\]+$",
                      description="the database role the floor logs in as")
    password_file: str = Field("", description="a file holding the role's password (never the config; empty: none)")
    sslmode: Literal["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] = Field(
        "prefer", description="libpq's sslmode: verify-full checks the server's certificate and name")
    ca_file: str = Field("", description="CA certificate(s) that signed the server's (libpq's sslrootcert)")
    connect_timeout_seconds: int = Field(10, ge=1, le=300, description="how long connecting may take")
    statement_timeout_seconds: int = Field(30, ge=1, le=3600, description="the server ends a statement that runs "
                                           "longer (the batch fails unacknowledged and comes again)")
    lock_timeout_seconds: int = Field(10, ge=1, le=3600, description="the longest a batch waits for a table's lock "
                                      "another worker holds (then it fails unacknowledged and comes again)")

    @model_validator(mode="after")
    def _dsn_or_fields(self) -> "PostgresStore":
        both = sorted(_CONNECTION_FIELDS & self.model_fields_set)
        if self.dsn and both:
            raise ValueError(f"give the dsn, or {', '.join(sorted(_CONNECTION_FIELDS))}, not both "
                             f"(set here too: {', '.join(both)})")
        return self

    def describe(self) -> str:
        """The database as messages name it (never a password)."""
        return self.dsn or f"postgresql://{self.user}@{self.host}:{self.port}/{self.dbname}"


def _path_like(value: str) -> bool:
    return "/" in value or value.endswith((".sqlite", ".sqlite3", ".db"))


class FloorSection(_Section):
    """The floor service itself."""

    name: str = Field("floor", max_length=80, description="the floor's name on its dashboard")
    topic_prefix: str = Field("tablectl", pattern=PREFIX, description="the tables' topic prefix")
    client_id: str = Field("tablectl-floor", pattern=r"^[A-Za-z0-9_-]{1,64}$",
                           description="MQTT client id: the broker keeps this session's queue while we are away")
    session_expiry_seconds: int = Field(7 * 86400, ge=60, le=2**32 - 1,
                                        description="how long the broker keeps our queue while the floor is down")
    shared_group: str = Field("", pattern=r"^[A-Za-z0-9_-]{0,64}$",
                              description="several floor workers share the tables' rows through the MQTT shared "
                                          "subscription $share/GROUP/...; empty: this floor takes every row itself")
    store: Literal["sqlite", "postgresql"] = Field("sqlite", description="the store's engine: sqlite (embedded, "
                                                   "[floor.sqlite]) or postgresql ([floor.postgresql])")
    sqlite: SqliteStore = Field(default_factory=SqliteStore)
    postgresql: PostgresStore = Field(default_factory=PostgresStore)
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

    @model_validator(mode="before")
    @classmethod
    def _store_as_a_path(cls, data: Any) -> Any:
        """`store = "/var/lib/.../floor.sqlite"`, as configs said before there was a choice: the SQLite file."""
        if isinstance(data, dict) and isinstance(data.get("store"), str) and data["store"] not in STORES \
                and _path_like(data["store"]):
            if "sqlite" in data:
                raise ValueError("store names a file and [floor.sqlite] is given too: say store = \"sqlite\" and "
                                 "give the file as [floor.sqlite] path")
            data = {**data, "store": "sqlite", "sqlite": {"path": data["store"]}}
        return data

    def describe_store(self) -> str:
        """The store as messages name it: the SQLite file, or the PostgreSQL database (never a password)."""
        return str(self.sqlite.path) if self.store == "sqlite" else self.postgresql.describe()

    @model_validator(mode="after")
    def _shared_needs_postgresql(self) -> "FloorSection":
        if self.shared_group and self.store != "postgresql":
            raise ValueError("shared_group: several floor workers share one store on PostgreSQL (store = "
                             "\"postgresql\"); an SQLite store is kept by one floor process alone")
        return self

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


MAX_WORKERS = 64


def worker_settings(settings: FloorSettings, worker: int) -> FloorSettings:
    """Worker `worker` of a floor's shared group (`tablectl floor --worker N`): its MQTT client id is the
    config's with `-N` added (its own session at the broker), its API on the config's port + N - 1.

    FloorConfigError if the config has no shared_group, or N is out of range."""
    f = settings.floor
    if not f.shared_group:
        raise FloorConfigError("--worker needs [floor] shared_group (and store = \"postgresql\"): the workers "
                               "share the rows through the broker's shared subscription and keep one store")
    if not 1 <= worker <= MAX_WORKERS:
        raise FloorConfigError(f"--worker {worker}: a worker's number is 1 to {MAX_WORKERS}")
    port = settings.api.port + worker - 1
    if port > 65535:
        raise FloorConfigError(f"--worker {worker}: its API port would be {port} ([api] port + {worker - 1})")
    return settings.model_copy(update={
        "floor": f.model_copy(update={"client_id": f"{f.client_id}-{worker}"}),
        "api": settings.api.model_copy(update={"port": port})})


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
