"""Each deployable installs and starts from what it ships: no extra, no test package, no network.

The release venv is built as a Pi builds it, by deploy/install.sh from the wheelhouse (test-output/wheelhouse,
downloaded by scripts/test from deploy/requirements.lock): exactly the pinned runtime set, the project without any
extra. Every subcommand's real path is then started on it, from its own `tablectl` and never from this checkout:
`journal init`, `run --check`, `run` to READY with the virtual shoe and dealer playing rounds through it (mock
pins, its API, its publisher to a real Mosquitto), `floor` to READY on SQLite with gap recovery configured (the
table's rows arrive there and its export is the table's own), `protect report`, `dispute --format pdf`, `journal
export` then `replay`, and `simulate`. The floor's documented PostgreSQL install adds deploy/postgresql.lock to the
same set (docs/floor.md, "Installing a floor"), and its floor starts on a real server; without it, a floor configured
for PostgreSQL says what to install, in one line. tests/test_dependencies.py is the cheap form of the same claim.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

from tests.deploy.test_deploy_install import WHEELHOUSE, install, make_source
from tests.support.broker import Mosquitto
from tests.support.fleet import FloorProcess, write_floor_config
from tests.support.floor import PostgresAt
from tests.support.harness import DEALER_KEY, FLOOR_KEY, ServiceProcess, free_port, write_config
from tests.support.postgres import PostgresServer

REPO = Path(__file__).resolve().parents[2]
TABLE_ID = "table-clean"
ROUNDS = 4
DEADLINE = 600  # seconds: ends a hung command; never a measure of speed


def clean_env() -> dict[str, str]:
    """The environment of a technician's shell: nothing of this checkout or of the test venv on any path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PYTEST", "COV_"))}
    env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    return env


class Release:
    """The installed release: its venv, and each command run from it in a folder of its own."""

    def __init__(self, root: Path, work: Path) -> None:
        self.venv = root / "opt/tablectl/current/venv"
        self.tablectl = str(self.venv / "bin/tablectl")
        self.work = work
        self.commit = ""  # the commit of the checkout it was installed from

    def run(self, *args: str, timeout: float = DEADLINE) -> subprocess.CompletedProcess[str]:
        """`tablectl ARGS` from the release, to the end."""
        return subprocess.run([self.tablectl, *args], capture_output=True, text=True, timeout=timeout,
                              cwd=self.work, env=clean_env(), stdin=subprocess.DEVNULL)


class Installed(ServiceProcess):
    """`tablectl run` from the release (not `python -m` from this checkout)."""

    def __init__(self, release: Release, config: Path, log: Path) -> None:
        super().__init__(config, log)
        self.release = release

    def command(self) -> list[str]:
        return [self.release.tablectl, "run", "--config", str(self.config)]

    def start(self, timeout: float = DEADLINE) -> dict:  # type: ignore[override]
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                                         cwd=self.release.work, env=clean_env())
        return self._ready(timeout)

    def stop(self, timeout: float = DEADLINE) -> int | None:
        """SIGTERM, and its exit status (SIGKILL only after DEADLINE: a hang, never a slow stop on a busy machine)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close()
        return self.proc.returncode

    def _ready(self, timeout: float) -> dict:
        assert self.proc is not None and self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.name} did not start:\n{self.log.read_text()[-3000:]}")
            if line.startswith(b"{"):
                return json.loads(line)
        raise RuntimeError(f"{self.name} did not get ready")


class InstalledFloor(FloorProcess):
    """`tablectl floor` from a venv of the release (or a copy of it)."""

    def __init__(self, python: Path, work: Path, config: Path, log: Path) -> None:
        super().__init__(config, log)
        self.python = python
        self.work = work

    def command(self) -> list[str]:
        # -P: the venv's own packages, not a folder named tablectl in the current directory
        return [str(self.python), "-P", "-m", "tablectl.cli", "floor", "--config", str(self.config)]

    def start(self, timeout: float = DEADLINE) -> "InstalledFloor":  # type: ignore[override]
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                                         cwd=self.work, env=clean_env())
        self.api = Installed._ready(self, timeout)["api"]  # type: ignore[arg-type]
        return self

    def stop(self, timeout: float = DEADLINE) -> int | None:
        return Installed.stop(self, timeout)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Release:
    """deploy/install.sh, offline from the wheelhouse, into a throwaway root: the Pi's release venv."""
    assert WHEELHOUSE.is_dir(), f"{WHEELHOUSE} is missing: run ./scripts/test, which downloads it"
    base = tmp_path_factory.mktemp("clean-install")
    src = make_source(base / "src")
    # The technician's checkout is a git clone: install.sh stamps the release with its commit (tablectl --version)
    git = ["git", "-C", str(src), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "release"]):
        subprocess.run([*git, *step], check=True, capture_output=True, timeout=DEADLINE)
    root = base / "root"
    # (--no-compile: the compiled engine is test_deploy_install's; here the pure engine, as the service runs)
    install(src, root, "--wheelhouse", str(WHEELHOUSE), "--no-compile", timeout=DEADLINE)
    work = base / "work"
    work.mkdir()
    rel = Release(root, work)
    rel.commit = subprocess.run([*git, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
    extras = subprocess.run([str(rel.venv / "bin/python"), "-m", "pip", "list", "--format=json"],
                            capture_output=True, text=True, timeout=DEADLINE, check=True)
    installed = {p["name"].lower() for p in json.loads(extras.stdout)}
    # The environment is the runtime set: none of the test extra's packages.
    assert installed.isdisjoint({"pytest", "hypothesis", "freezegun", "psycopg", "playwright", "pypdfium2",
                                 "schemathesis", "mypy", "ruff", "prometheus-client"}), sorted(installed)
    return rel


@pytest.fixture(scope="module")
def played(release: Release, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """A broker, a floor (SQLite, gap recovery configured for the table) and a table whose service, shoe and
    dealer are all the release's, ROUNDS rounds played and the table stopped; the floor left running."""
    d = tmp_path_factory.mktemp("played")
    broker = Mosquitto(d / "broker").start()
    keys = d / "floor-keys"
    keys.mkdir()
    floor_key = d / "floor-api.key"
    floor_key.write_text(FLOOR_KEY + "\n")
    table_port = free_port()
    recovery = (f'[floor.recovery]\ntimeout_seconds = 10.0\n'
                f'[[floor.tables]]\nid = "{TABLE_ID}"\napi_url = "http://127.0.0.1:{table_port}"\n'
                f'api_key_file = "{floor_key}"\n')
    floor_cfg = write_floor_config(d, broker.url, free_port(), keys, extra=recovery)
    floor = InstalledFloor(release.venv / "bin/python", release.work, floor_cfg, d / "floor.log")
    shoe = subprocess.Popen([release.tablectl, "shoe-sim", "--pty", "--link", str(d / "shoe"), "--control",
                             str(d / "shoe.control"), "--seed", "3"], stdout=subprocess.PIPE,
                            stderr=open(d / "shoe.log", "ab"), stdin=subprocess.DEVNULL, cwd=release.work,
                            env=clean_env())
    service = None
    try:
        floor.start()
        assert shoe.stdout is not None and shoe.stdout.readline(), (d / "shoe.log").read_text()  # its link is there
        cfg = write_config(d, str(d / "shoe"), table_port, extra=(
            '[gpio]\npin_factory = "mock"\n'
            f'[fleet]\nenabled = true\ntable_id = "{TABLE_ID}"\nstate_every_seconds = 0.2\n'
            f'[fleet.broker]\nurl = "{broker.url}"\n'))
        made = release.run("journal", "init", "--config", str(cfg))
        assert made.returncode == 0 and "made the journal" in made.stdout, made.stdout + made.stderr
        shutil.copy(d / "journal.sqlite.key", keys / f"{TABLE_ID}.key")  # the table's key to the floor, first
        service = Installed(release, cfg, d / "service.log")
        ready = service.start()
        assert ready["ready"] is True, ready
        dealt = release.run("virtual-dealer", "--api", ready["api"], "--key", DEALER_KEY, "--shoe-control",
                            str(d / "shoe.control"), "--rounds", str(ROUNDS), "--pace", "fast")
        assert dealt.returncode == 0, dealt.stdout + dealt.stderr
        assert service.stop() == 0, (d / "service.log").read_text()[-3000:]
        yield {"dir": d, "config": cfg, "floor": floor, "floor_config": floor_cfg, "journal": d / "journal.sqlite"}
    finally:
        if service is not None:
            service.stop()
        shoe.terminate()
        shoe.wait(DEADLINE)
        if shoe.stdout is not None:
            shoe.stdout.close()
        floor.stop()
        broker.stop()


@pytest.mark.long
def test_the_table_checks_starts_plays_and_stops_from_its_own_install(played: dict) -> None:
    """journal init, run to READY (mock pins, API, publisher), the virtual dealer's rounds, a clean stop: above."""
    log = (played["dir"] / "service.log").read_text()
    assert "Traceback" not in log, log[-3000:]


@pytest.mark.long
def test_run_check_passes_on_the_table_it_installed(release: Release, played: dict) -> None:
    r = release.run("run", "--check", "--config", str(played["config"]))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "journal " in r.stdout and "verified" in r.stdout and 'pin_factory = "mock"' in r.stdout, r.stdout


@pytest.mark.long
def test_the_floor_holds_the_tables_rows_and_exports_its_session(release: Release, played: dict) -> None:
    """The floor (SQLite, recovery configured) got every row through the broker: its export is the table's."""
    table = release.run("journal", "export", "--db", str(played["journal"]))
    assert table.returncode == 0 and table.stdout.count("\n") > ROUNDS * 5, table.stderr
    deadline = time.monotonic() + DEADLINE
    while True:
        floor = release.run("floor", "--config", str(played["floor_config"]), "export", "--table", TABLE_ID)
        if floor.returncode == 0 and floor.stdout == table.stdout:
            break
        assert time.monotonic() < deadline, floor.stdout[-500:] + floor.stderr + played["floor"].log.read_text()[-2000:]
        time.sleep(0.5)


@pytest.mark.long
def test_protect_dispute_export_and_replay_from_the_install(release: Release, played: dict) -> None:
    db = str(played["journal"])
    report = release.run("protect", "report", "--db", db, "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["shoes"], report.stdout[:500]
    pdf = played["dir"] / "round-2.pdf"
    dispute = release.run("dispute", "--db", db, "--round", "2", "--format", "pdf", "--out", str(pdf))
    assert dispute.returncode == 0, dispute.stdout + dispute.stderr
    assert pdf.read_bytes().startswith(b"%PDF-") and b"%%EOF" in pdf.read_bytes()[-64:]
    session = played["dir"] / "session.jsonl"
    assert release.run("journal", "export", "--db", db, "--out", str(session)).returncode == 0
    replayed = release.run("replay", str(session), "--json")
    assert replayed.returncode == 0, replayed.stdout[-500:] + replayed.stderr
    assert json.loads(replayed.stdout)["totals"]["rounds_settled"] == ROUNDS, replayed.stdout[-800:]


@pytest.mark.long
def test_the_release_says_its_version_and_the_commit_it_was_built_from(release: Release) -> None:
    """No .git beside an installed release: the stamp install.sh had its build write says which source it is."""
    assert not any(p.name == ".git" for p in release.venv.parents[3].rglob(".git"))
    out = release.run("--version")
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(rf"tablectl 0\.1\.0 \(commit {release.commit}, \d{{4}}-\d\d-\d\d; built "
                        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)\n", out.stdout), out.stdout


@pytest.mark.long
def test_simulate_from_the_install(release: Release) -> None:
    sim = release.run("simulate", "--rules", "ru-standard", "--rounds", "300", "--seed", "5", "--workers", "1", "--json")
    assert sim.returncode == 0, sim.stdout + sim.stderr
    out = json.loads(sim.stdout)
    assert out["rounds"] == 300 and out["engine"] == "pure" and "house_edge_pct" in out, out


@pytest.mark.long
def test_a_floor_for_postgresql_without_its_extra_says_what_to_install(release: Release, tmp_path: Path) -> None:
    cfg = tmp_path / "floor.toml"
    cfg.write_text(f'[floor]\nstore = "postgresql"\nkeys_dir = "{tmp_path}"\n'
                   '[floor.postgresql]\ndsn = "postgresql://nobody@127.0.0.1:1/none"\n'
                   f'[broker]\nurl = "mqtt://127.0.0.1:1"\n[api]\nport = {free_port()}\n')
    r = release.run("floor", "--config", str(cfg), timeout=DEADLINE)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "tablectl[postgresql]" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.long
def test_the_floor_on_postgresql_from_its_documented_install(release: Release, tmp_path: Path) -> None:
    """docs/floor.md: the same set, plus deploy/postgresql.lock (offline here, from the wheelhouse)."""
    venv = tmp_path / "floor-venv"
    shutil.copytree(release.venv, venv, symlinks=True)  # (a copy: the release stays the table's set)
    pip = subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          "--no-deps", "--only-binary=:all:", "--no-index", "--find-links", str(WHEELHOUSE),
                          "-r", str(REPO / "deploy/postgresql.lock")],
                         capture_output=True, text=True, timeout=DEADLINE, env=clean_env())
    assert pip.returncode == 0, pip.stdout + pip.stderr
    server = PostgresServer().start()
    broker = Mosquitto(tmp_path / "broker").start()
    floor = None
    try:
        keys = tmp_path / "keys"
        keys.mkdir()
        cfg = write_floor_config(tmp_path, broker.url, free_port(), keys, store=PostgresAt(server, server.database()))
        floor = InstalledFloor(venv / "bin/python", tmp_path, cfg, tmp_path / "floor.log").start()
        assert floor.api.startswith("http://"), floor.api
        assert floor.stop() == 0, floor.log.read_text()[-3000:]
    finally:
        if floor is not None:
            floor.stop()
        broker.stop()
        server.stop()
