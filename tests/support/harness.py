"""A whole table on this machine for end-to-end tests: the virtual shoe and the service as
separate processes (a real pty, a real SQLite file, a real uvicorn server), and a virtual dealer.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from simulators.shoe.process import SimProcess
from tablectl.config import ApiKey
from tests.support.deadlines import scaled

DEALER_KEY = "dealer-key"
SUPERVISOR_KEY = "supervisor-key"
VIEWER_KEY = "viewer-key"
FLOOR_KEY = "floor-key"  # the casino floor's key: it reads the ledger as published, nothing else

# What every test table is configured with, as a process (`write_config`) or in this one (tests.support.inprocess).
TABLE_NAME = "e2e"
SNAPSHOT_EVERY_ROUNDS = 5
JOURNAL_FILE = "journal.sqlite"


def api_keys() -> list[dict[str, str]]:
    """The test tables' `[[api.keys]]`: a dealer, a supervisor (the pit), a viewer (the TV) and the casino
    floor's key, each hashed."""
    return [{"name": name, "role": role, "sha256": ApiKey.hash(key)}
            for name, role, key in (("dealer", "dealer", DEALER_KEY), ("pit", "supervisor", SUPERVISOR_KEY),
                                    ("tv", "viewer", VIEWER_KEY), ("floor", "floor", FLOOR_KEY))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_config(directory: Path, shoe_link: str, port: int, profile: str = "ru-standard",
                 extra: str = "", api_options: str = "") -> Path:
    keys = "".join(f'[[api.keys]]\nname = "{k["name"]}"\nrole = "{k["role"]}"\nsha256 = "{k["sha256"]}"\n'
                   for k in api_keys())
    cfg = directory / "config.toml"
    cfg.write_text(
        f'[table]\nname = "{TABLE_NAME}"\nprofile = "{profile}"\n'
        f'[shoe]\nport = "{shoe_link}"\n'
        f'[journal]\npath = "{directory / JOURNAL_FILE}"\nsnapshot_every_rounds = {SNAPSHOT_EVERY_ROUNDS}\n'
        f'[api]\nport = {port}\n{api_options}{keys}{extra}'
    )
    return cfg


class ServiceProcess:
    """`tablectl run --config CFG --no-gpio` as a child process."""

    name = "service"

    def __init__(self, config: Path, log: Path, prefix: tuple[str, ...] = ()) -> None:
        self.config = config
        self.log = log
        self.prefix = prefix  # e.g. ("prlimit", "--nofile=256:256"): what the process runs under
        self.env: dict[str, str] | None = None  # its environment (None: this process's)
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        """The command line the process runs."""
        return [*self.prefix, sys.executable, "-m", "tablectl.cli", "run", "--config", str(self.config), "--no-gpio"]

    def start(self, timeout: float = 20.0) -> dict[str, Any]:
        """Start it and return its `{"ready": ...}` line, once it has printed one."""
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                                         env=self.env)
        assert self.proc.stdout is not None
        deadline = time.monotonic() + scaled(timeout)  # (a bound between lines: readline itself blocks)
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.name} did not start:\n{self.log.read_text()[-3000:]}")
            if line.startswith(b"{"):
                return json.loads(line)
        raise RuntimeError(f"{self.name} did not get ready")

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, as in a power cut."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self._close()

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(scaled(10))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close()
        return self.proc.returncode

    def _close(self) -> None:
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()


class Table:
    """Shoe + service (+ the caller's dealer) in one directory."""

    def __init__(self, directory: Path, *, seed: int = 7, profile: str = "ru-standard", decks: int = 6,
                 shoe_args: tuple[str, ...] = (), api_options: str = "",
                 service_prefix: tuple[str, ...] = ()) -> None:
        self.directory = directory
        self.shoe = SimProcess(directory, "--seed", str(seed), "--decks", str(decks),
                               "--log", str(directory / "shoe-log.jsonl"), *shoe_args)
        self.port = free_port()
        self.api = f"http://127.0.0.1:{self.port}"
        self.config = write_config(directory, self.shoe.link, self.port, profile, api_options=api_options)
        self.service = ServiceProcess(self.config, directory / "service.log", service_prefix)

    def __enter__(self) -> "Table":
        self.shoe.start()
        self.service.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.service.stop()
        self.shoe.stop()

    @property
    def journal(self) -> Path:
        return self.directory / JOURNAL_FILE

    def shoe_log(self) -> list[dict[str, Any]]:
        path = self.directory / "shoe-log.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# The offline tools only read and write files and print: they run in the test's own process
# (`tablectl_in_process`), the same `main` without a Python start-up. Started as processes they
# were about 150 start-ups a suite, 50 s of CPU. `tablectl_process` starts a real one, for a test
# that is about the process (a signal, an exit status as the shell sees it, the imports it makes).
IN_PROCESS_COMMANDS = frozenset({"journal", "status", "replay"})


def tablectl(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`tablectl ARGS` with its output captured: in this process for the offline tools, else a process."""
    if args and args[0] in IN_PROCESS_COMMANDS:
        return tablectl_in_process(*args)
    return tablectl_process(*args, timeout=timeout)


def tablectl_process(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`tablectl ARGS` as a real process (`python -m tablectl.cli`), its output captured."""
    return subprocess.run([sys.executable, "-m", "tablectl.cli", *args], capture_output=True, text=True,
                          timeout=scaled(timeout), env={**os.environ})


def tablectl_in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """`tablectl ARGS` run by `tablectl.cli.main` in this process, its output captured as `tablectl_process`
    captures a child's, its exit status the one the process would have (argparse's SystemExit included)."""
    from tablectl.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's usage errors and --help, as the process would exit
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                err.write(exc.code + "\n")
    return subprocess.CompletedProcess(["tablectl", *args], code, out.getvalue(), err.getvalue())


async def until(predicate, timeout: float = 15.0) -> None:  # noqa: ANN001 - any zero-argument callable
    """Wait in the event loop until predicate() is true, or fail the test after `scaled(timeout)` seconds."""
    from tests.support import deadlines

    await deadlines.until(predicate, timeout)
