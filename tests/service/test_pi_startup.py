"""Issue 22: on a machine that is not ready, `tablectl run` and `run --check` say what is wrong in one line,
with a documented exit status; `--check` checks every part and makes nothing; `journal init` makes a new
table's journal.

Before: without lgpio, `run` died with a traceback and exit 1 (ModuleNotFoundError), with lgpio off a Pi
with PinUnknownPi; `--check` made a journal and a key where none was, printed "verified", and passed an
API port already taken.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.deadlines import scaled
from tests.support.harness import free_port, tablectl

REPO = Path(__file__).resolve().parents[2]

# lgpio's Python module stands in for the C library's binding (what python3-lgpio installs): gpiozero's
# lgpio factory then runs for real and asks the board what it is, which on this machine is no Raspberry Pi.
LGPIO_STUB = '''
SET_PULL_NONE, SET_PULL_UP, SET_PULL_DOWN = 0, 1, 2
BOTH_EDGES, RISING_EDGE, FALLING_EDGE = 3, 1, 2
class error(Exception):
    pass
def gpiochip_open(chip):
    raise error("can not open gpiochip")
'''


def config(tmp_path: Path, *, gpio: str = "lgpio", port: int | None = None, shoe: str | None = None,
           journal: Path | None = None) -> Path:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\npath = "{journal or tmp_path / "j.sqlite"}"\n'
                   f'[shoe]\nport = "{shoe or tmp_path / "no-shoe"}"\n'
                   f'[api]\nport = {port or free_port()}\n[gpio]\npin_factory = "{gpio}"\n')
    return cfg


def run_with(env_path: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if env_path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(env_path), str(REPO)])
    return subprocess.run([sys.executable, "-m", "tablectl.cli", *args], capture_output=True, text=True,
                          timeout=scaled(120), env=env, cwd=REPO)


@pytest.fixture
def not_a_pi(tmp_path: Path) -> Path:
    """A folder holding an lgpio module, for PYTHONPATH: lgpio there, the board not a Pi."""
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "lgpio.py").write_text(LGPIO_STUB)
    return stub


def one_line_error(out: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in out.stderr, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith("tablectl run")]
    assert len(lines) >= 1, out.stderr
    return lines[0]


def test_run_without_lgpio_says_so_with_exit_7_and_makes_no_journal(tmp_path: Path) -> None:
    # (this machine has no lgpio: the test is about exactly that)
    assert subprocess.run([sys.executable, "-c", "import lgpio"], capture_output=True).returncode != 0
    out = tablectl("run", "--config", str(config(tmp_path)), timeout=60)
    assert out.returncode == 7, out.stderr
    line = one_line_error(out)
    assert "lgpio module is not installed" in line and "apt-get install python3-lgpio" in line
    assert not (tmp_path / "j.sqlite").exists() and not (tmp_path / "j.sqlite.key").exists()


def test_run_off_a_pi_names_pin_unknown_pi_with_exit_7(tmp_path: Path, not_a_pi: Path) -> None:
    out = run_with(not_a_pi, "run", "--config", str(config(tmp_path)))
    assert out.returncode == 7, out.stderr
    line = one_line_error(out)
    assert "PinUnknownPi" in line and "does not recognise this board as a Raspberry Pi" in line
    assert 'pin_factory = "mock"' in line


def test_check_names_pin_unknown_pi_too(tmp_path: Path, not_a_pi: Path) -> None:
    journal_init(config(tmp_path))
    out = run_with(not_a_pi, "run", "--config", str(config(tmp_path)), "--check")
    assert out.returncode == 7, out.stdout + out.stderr
    assert "PinUnknownPi" in out.stderr and "(exit 7)" in out.stderr and "Traceback" not in out.stderr
    assert "journal" in out.stdout and "verified" in out.stdout  # the parts that are fine are said too


# What lgpio does when imported in a folder its user may not write: it makes its notification pipes in
# LG_WD, which defaults to the working directory, and the import fails with an OSError.
LGPIO_PIPES_STUB = '''
raise FileNotFoundError(2, "No such file or directory", ".lgd-nfy-1")
'''


def test_check_where_lgpio_cannot_make_its_pipes_names_lg_wd_with_exit_7(tmp_path: Path) -> None:
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "lgpio.py").write_text(LGPIO_PIPES_STUB)
    journal_init(config(tmp_path))
    out = run_with(stub, "run", "--config", str(config(tmp_path)), "--check")
    assert out.returncode == 7, out.stdout + out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    assert "notification pipes" in out.stderr and "LG_WD" in out.stderr and "(exit 7)" in out.stderr
    out = run_with(stub, "run", "--config", str(config(tmp_path)))
    assert out.returncode == 7, out.stderr
    assert "LG_WD" in one_line_error(out)


def test_check_on_the_example_config_off_a_pi_makes_nothing_and_says_what_to_do() -> None:
    before = {p: p.exists() for p in (Path("/etc/tablectl/journal.key"), Path("/var/lib/tablectl/journal.sqlite"))}
    out = tablectl("run", "--config", str(REPO / "deploy" / "config.example.toml"), "--check", timeout=60)
    assert "Traceback" not in out.stderr
    if not any(before.values()):  # (a machine that is not a table)
        assert out.returncode == 3, out.stderr
        assert "tablectl journal init --config FILE" in out.stderr and "(exit 3)" in out.stderr
    assert {p: p.exists() for p in before} == before  # nothing made


def test_check_makes_no_journal_and_no_key_where_none_is(tmp_path: Path) -> None:
    cfg = config(tmp_path, gpio="mock")
    out = tablectl("run", "--config", str(cfg), "--check", timeout=60)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "no key at" in out.stderr and "tablectl journal init" in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml"]  # nothing made
    assert "verified" not in out.stdout


def test_check_of_a_mistyped_journal_path_fails_where_the_key_is(tmp_path: Path) -> None:
    cfg = config(tmp_path, gpio="mock")
    journal_init(cfg)
    (tmp_path / "j.sqlite.key").rename(tmp_path / "table.key")
    cfg.write_text(cfg.read_text().replace('[journal]\n', f'[journal]\nkey_file = "{tmp_path / "table.key"}"\n')
                   .replace("j.sqlite", "j2.sqlite"))
    out = tablectl("run", "--config", str(cfg), "--check", timeout=60)
    assert out.returncode == 3, out.stdout + out.stderr
    assert f"no journal at {tmp_path / 'j2.sqlite'}" in out.stderr and "journal path is wrong" in out.stderr
    assert not (tmp_path / "j2.sqlite").exists()


def test_check_fails_on_an_api_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        cfg = config(tmp_path, gpio="mock", port=taken.getsockname()[1])
        journal_init(cfg)
        out = tablectl("run", "--config", str(cfg), "--check", timeout=60)
    assert out.returncode == 6, out.stdout + out.stderr
    assert "the API cannot listen there" in out.stderr and "(exit 6)" in out.stderr


def test_check_hears_the_shoes_status_on_its_port(tmp_path: Path, start_sim) -> None:  # noqa: ANN001 - a fixture
    sim = start_sim("--seed", "3")
    cfg = config(tmp_path, gpio="mock", shoe=sim.link)
    journal_init(cfg)
    out = tablectl("run", "--config", str(cfg), "--check", timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"shoe: {sim.link} answers: shoe" in out.stdout and "Traceback" not in out.stderr
    assert "verified" in out.stdout and "is free" in out.stdout and "mock pins" in out.stdout


def test_check_warns_of_a_missing_shoe_and_passes(tmp_path: Path) -> None:
    cfg = config(tmp_path, gpio="mock")
    journal_init(cfg)
    out = tablectl("run", "--config", str(cfg), "--check", timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "warning: shoe: cannot open" in out.stderr and "runs without it" in out.stderr


def test_the_spi_check_names_a_missing_or_odd_device(tmp_path: Path) -> None:
    from tablectl.checks import _check_spi

    missing = _check_spi(str(tmp_path / "spidev0.0"))
    assert missing.status == 7 and "raspi-config nonint do_spi 0" in missing.text and "dtparam=spi=on" in missing.text
    plain = tmp_path / "plain"
    plain.write_text("")
    assert _check_spi(str(plain)).status == 7 and "not a device" in _check_spi(str(plain)).text
    assert _check_spi("/dev/null").status == 0  # (a character device this user may open)


def journal_init(cfg: Path) -> subprocess.CompletedProcess[str]:
    out = tablectl("journal", "init", "--config", str(cfg), timeout=60)
    assert out.returncode == 0, out.stderr
    return out


def test_journal_init_makes_the_key_and_journal_once_then_verifies(tmp_path: Path) -> None:
    cfg = config(tmp_path, gpio="mock")
    first = journal_init(cfg)
    assert "made the key" in first.stdout and "made the journal" in first.stdout
    db = tmp_path / "j.sqlite"
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM ledger").fetchone()[0] == 1  # its first row: the rules
    con.close()
    before = db.read_bytes()
    again = journal_init(cfg)
    assert "exists and verifies" in again.stdout and "nothing done" in again.stdout
    assert db.read_bytes() == before
    key = tmp_path / "j.sqlite.key"
    verify = tablectl("journal", "verify", "--db", str(db), "--key", str(key))
    assert verify.returncode == 0, verify.stderr


def test_journal_init_never_makes_a_key_for_an_old_journal_nor_writes_over_a_bad_one(tmp_path: Path) -> None:
    cfg = config(tmp_path, gpio="mock")
    journal_init(cfg)
    (tmp_path / "j.sqlite.key").unlink()
    out = tablectl("journal", "init", "--config", str(cfg), timeout=60)
    assert out.returncode == 2 and "missing" in out.stderr and not (tmp_path / "j.sqlite.key").exists()
    garbage = tmp_path / "g.sqlite"
    garbage.write_bytes(b"not a journal" * 100)
    out = tablectl("journal", "init", "--db", str(garbage), timeout=60)
    assert out.returncode in (2, 3) and "Traceback" not in out.stderr
    assert garbage.read_bytes() == b"not a journal" * 100


def test_run_still_makes_a_new_tables_journal_as_install_sh_leaves_it(tmp_path: Path) -> None:
    """deploy/install.sh makes the key and starts the service, which makes the journal (and the demo relies on it)."""
    from tests.support.harness import ServiceProcess

    cfg = config(tmp_path, gpio="mock")
    service = ServiceProcess(cfg, tmp_path / "service.log")
    ready = service.start()
    assert service.stop() == 0
    assert ready["ready"] and (tmp_path / "j.sqlite").exists() and (tmp_path / "j.sqlite.key").exists()
