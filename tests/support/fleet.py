"""Helpers of the fleet tests and benchmark: ledger rows made by hand, a floor process, journal rows."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.support.deadlines import scaled
from tests.support.harness import ServiceProcess
from tablectl.fleet.wire import LedgerRow, WireRow, ledger_payload, parse_ledger, row_mac

if TYPE_CHECKING:
    from tests.support.floor import StoreAt


def make_rows(key: bytes, count: int, *, start_body: int = 0) -> list[LedgerRow]:
    """A chained ledger of `count` card rows (seq 1..count), MACs made with `key`."""
    rows: list[LedgerRow] = []
    prev = ""
    for seq in range(1, count + 1):
        body = json.dumps({"type": "card", "card": "AS", "position": seq + start_body}, separators=(",", ":"),
                          sort_keys=True)
        bare = LedgerRow(seq, "event", f"2026-11-30T20:00:{seq % 60:02d}+00:00", body, "S1", seq, None, None, "")
        mac = row_mac(key, prev, bare)
        rows.append(LedgerRow(*(getattr(bare, f) for f in LedgerRow.__slots__[:-1]), mac))  # type: ignore[attr-defined]
        prev = mac
    return rows


def wire(table: str, row: LedgerRow, **mask: bool) -> WireRow:
    """The row as the floor would receive it."""
    return parse_ledger(ledger_payload(table, row, **mask), table)


def journal_ledger(journal: Path, key_file: Path) -> list[LedgerRow]:
    """Every ledger row of a table's journal, with its MAC, as the table itself holds it."""
    from controller.journal import JournalKey, JournalReader

    with JournalReader(journal, JournalKey.load(key_file)) as reader:
        return reader.ledger_rows(0, 10**9)


def write_floor_config(directory: Path, broker_url: str, api_port: int, keys_dir: Path, *, extra: str = "",
                       store: StoreAt | None = None) -> Path:
    """A floor config for tests: its store `store` (or `directory`/floor.sqlite), reads open on loopback, two keys."""
    from tests.support.floor import SqliteAt
    from tests.support.harness import SUPERVISOR_KEY, VIEWER_KEY

    from tablectl.config import ApiKey

    where = store if store is not None else SqliteAt(directory / "floor.sqlite")
    cfg = directory / "floor.toml"
    cfg.write_text(
        f'[floor]\nname = "Test floor"\n{where.toml()}keys_dir = "{keys_dir}"\n'
        f'gap_grace_seconds = 1.0\n{extra}'
        f'[broker]\nurl = "{broker_url}"\n'
        f'[api]\nport = {api_port}\n'
        f'[[api.keys]]\nname = "surveillance"\nrole = "supervisor"\nsha256 = "{ApiKey.hash(SUPERVISOR_KEY)}"\n'
        f'[[api.keys]]\nname = "pit"\nrole = "viewer"\nsha256 = "{ApiKey.hash(VIEWER_KEY)}"\n')
    return cfg


class FloorProcess(ServiceProcess):
    """`tablectl floor --config CFG` as a child process (started, stopped and killed as the service is)."""

    name = "floor"

    def __init__(self, config: Path, log: Path, *args: str) -> None:
        super().__init__(config, log)
        self.args = args  # e.g. ("--worker", "2")
        self.api = ""

    def command(self) -> list[str]:
        """The command line the process runs."""
        return [sys.executable, "-m", "tablectl.cli", "floor", "--config", str(self.config), *self.args]

    def start(self, timeout: float = 20.0) -> "FloorProcess":  # type: ignore[override]
        """Start it; `api` is the floor's address once it is ready."""
        self.api = super().start(timeout)["api"]
        return self


class FleetSimProcess:
    """`tablectl fleet-sim` as a child process."""

    def __init__(self, directory: Path, broker_url: str, tables: int, rounds: int, *args: str) -> None:
        self.directory = directory
        self.argv = [sys.executable, "-m", "tablectl.cli", "fleet-sim", "--tables", str(tables), "--broker",
                     broker_url, "--rounds", str(rounds), "--dir", str(directory / "sim"), "--log-level", "INFO",
                     *args]
        self.log = directory / "fleet-sim.log"
        self.env: dict[str, str] | None = None  # its environment (None: this process's)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> "FleetSimProcess":
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                                         env=self.env)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith(b"{"):
            raise RuntimeError(f"fleet-sim did not start:\n{self.log.read_text()[-3000:]}")
        return self

    def wait(self, timeout: float) -> dict[str, Any]:
        """Wait for the end and return its summary."""
        assert self.proc is not None and self.proc.stdout is not None
        out, _ = self.proc.communicate(timeout=scaled(timeout))
        assert self.proc.returncode == 0, self.log.read_text()[-3000:]
        return json.loads(out.splitlines()[-1])

    def kill(self) -> None:
        """SIGKILL: every table loses power at once."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()

    def stop(self) -> None:
        """SIGTERM, if still running."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(scaled(20))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()


def until_true(predicate: Any, timeout: float = 30.0, what: str = "condition") -> None:
    """Poll `predicate()` until true, or fail after `scaled(timeout)` seconds."""
    end = time.monotonic() + scaled(timeout)
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
