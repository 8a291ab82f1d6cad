"""A real PostgreSQL server for the tests: Debian's package, a temporary data folder, a free loopback port.

initdb and pg_ctl refuse to run as root, and the tests and CI run as root here: as root they run as
the `postgres` system user that Debian's package creates (runuser), in a data folder made theirs; as
any other user they run as that user. The server listens on 127.0.0.1 alone, on a free port, with
trust authentication and no unix socket, and without fsync (a test server: nothing it holds must
outlive the machine). Each test gets its own database. If PostgreSQL is not installed this fails
loudly, naming the package: the tests are never skipped.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

from tests.support.deadlines import scaled
from tests.support.harness import free_port

PG_CTL_WAIT = str(round(scaled(60)))  # pg_ctl -w -t: seconds it waits for the server to start or stop

INSTALL = "apt-get install -y --no-install-recommends postgresql"


def server_bin() -> Path:
    """The newest Debian PostgreSQL's bin folder (/usr/lib/postgresql/N/bin; 15 on bookworm)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not found:
        raise RuntimeError("PostgreSQL is not installed: the floor's PostgreSQL tests need Debian's postgresql "
                           f"(scripts/system-packages.txt; {INSTALL})")
    return found[-1].parent


class PostgresServer:
    """One server, started once (for a session of tests) and stopped at the end; `database()` gives each its own."""

    def __init__(self, *, durable: bool = False) -> None:
        self.bin = server_bin()
        self.durable = durable  # fsync and synchronous commits on, as a floor's server runs (benchmarks)
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="tablectl-pg-"))  # not under pytest's tmp: the server's user
        self.data = self.root / "data"  # must reach it, and pytest's folders are root's alone (0700)
        self.log = self.root / "server.log"
        self._as_postgres = os.geteuid() == 0
        self._numbers = itertools.count(1)
        self.started = False

    def _run(self, *argv: str) -> None:
        command = [str(self.bin / argv[0]), *argv[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        # The output to a file, not a pipe: the server pg_ctl starts would hold a pipe open.
        with open(self.root / "commands.log", "ab") as out:
            result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    cwd=self.root, timeout=scaled(120))
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n"
                               f"{(self.root / 'commands.log').read_text()[-3000:]}"
                               f"{self.log.read_text()[-3000:] if self.log.exists() else ''}")

    def start(self) -> "PostgresServer":
        """initdb and pg_ctl start; ready to connect when it returns."""
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C",
                  "--no-sync", "--no-instructions")
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories='' -c max_connections=50"
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", PG_CTL_WAIT, "-o", options, "start")
        self.started = True
        return self

    def stop(self) -> None:
        """pg_ctl stop (fast: open connections are ended), and the data folder removed."""
        try:
            if self.started:
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", PG_CTL_WAIT, "stop")
                self.started = False
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def restart(self) -> None:
        """pg_ctl restart: every connection is cut, what was committed stays."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", PG_CTL_WAIT, "restart")

    def _processes(self) -> list[int]:
        """The server's processes: the postmaster (its pid file's first line) and every process it started."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        found = [postmaster]
        for stat_file in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat_file.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            if int(fields[1]) == postmaster:  # its parent
                found.append(int(stat_file.parent.name))
        return found

    def pause(self) -> None:
        """SIGSTOP every process of the server: connections stay open and every statement hangs, as on a
        database host that stopped answering (a frozen VM, a storage stall)."""
        for pid in self._processes():
            os.kill(pid, signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT every process of the server."""
        for pid in self._processes():
            os.kill(pid, signal.SIGCONT)

    def dsn(self, database: str = "postgres", schema: str | None = None) -> str:
        """A libpq URI to `database` (as the server's superuser; trust), its search path `schema` if given."""
        uri = f"postgresql://postgres@127.0.0.1:{self.port}/{database}"
        return uri + (f"?options={quote(f'-c search_path={schema}')}" if schema else "")

    def admin(self, sql: str, database: str = "postgres") -> None:
        """Run one statement outside a transaction (CREATE DATABASE cannot run inside one)."""
        import psycopg

        with psycopg.connect(self.dsn(database), autocommit=True) as conn:
            conn.execute(sql)

    def database(self) -> str:
        """A new, empty database for one test: its name."""
        name = f"t_{next(self._numbers)}"
        self.admin(f"CREATE DATABASE {name}")
        return name

    def drop(self, database: str) -> None:
        """Drop a test's database, ending any connection it left open (each costs the server some 7 MB)."""
        self.admin(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
