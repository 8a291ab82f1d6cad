"""The offline subcommands start at once: they import neither the API's stack nor the service's.

Each listed subcommand really runs (on a journal or session file) in a fresh
interpreter, which then reports every top-level package it loaded. Before the
lazy dispatch in `tablectl.cli`, every one of them loaded FastAPI and uvicorn
(about a second on a Pi) only because the parser imported every subcommand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal import key_beside
from tests.support.deadlines import scaled
from tests.support.journals import key_for, open_authority, play_rounds

EXAMPLE = Path(__file__).resolve().parents[1] / "tablectl" / "examples" / "session.jsonl"

# What none of the offline tools may load: the web stack, the service's settings, the broker client.
HEAVY = {"fastapi", "starlette", "uvicorn", "pydantic_settings", "aiomqtt", "prometheus_client"}

PROBE = """
import json, sys
from tablectl.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "loaded": sorted({m.split('.')[0] for m in sys.modules})}), file=sys.stderr)
"""


def _loaded(*argv: str) -> tuple[int, set[str]]:
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=scaled(60))
    report = json.loads(out.stderr.strip().splitlines()[-1])
    return report["code"], set(report["loaded"])


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "table.db"
    authority = open_authority(path)
    play_rounds(authority, 2)
    authority.journal.close()
    return path


@pytest.mark.parametrize("command", ["replay", "journal verify", "journal export", "status", "simulate",
                                     "journal init", "journal backup", "dispute"])
def test_an_offline_subcommand_does_not_import_the_api(command: str, journal: Path, tmp_path: Path) -> None:
    key_for(journal)
    key = str(key_beside(journal))
    argv = {
        "replay": ["replay", str(EXAMPLE), "--json"],
        "journal verify": ["journal", "verify", "--db", str(journal), "--key", key],
        "journal export": ["journal", "export", "--db", str(journal), "--out", str(tmp_path / "s.jsonl")],
        "status": ["status", "--db", str(journal)],
        "simulate": ["simulate", "--rounds", "20", "--workers", "1", "--seed", "1"],
        "journal init": ["journal", "init", "--db", str(tmp_path / "new.sqlite")],
        "journal backup": ["journal", "backup", "--db", str(journal), "--key", key, "--to", str(tmp_path)],
        "dispute": ["dispute", "--db", str(journal), "--round", "2", "--format", "json", "--tz", "Europe/Moscow",
                    "--out", str(tmp_path / "r.json")],
    }[command]
    code, loaded = _loaded(*argv)
    assert code == 0
    assert loaded & HEAVY == set()


def test_the_service_subcommand_still_gets_its_options() -> None:
    """The lazy parser registers the chosen subcommand's own options (here `run --help`)."""
    out = subprocess.run([sys.executable, "-m", "tablectl.cli", "run", "--help"], capture_output=True,
                         text=True, timeout=scaled(60))
    assert out.returncode == 0
    assert "--config" in out.stdout


def test_run_check_does_not_import_the_web_stack(tmp_path: Path) -> None:
    """`run --check` (the technician's, and an upgrade's) asks about the API's port without FastAPI or uvicorn."""
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n[shoe]\nport = "{tmp_path / "none"}"\n'
                   '[gpio]\npin_factory = "mock"\n[api]\nport = 1\n')
    code, loaded = _loaded("run", "--config", str(cfg), "--check", "--no-api")
    assert code == 3  # (no journal yet: what it says is tests/service/test_pi_startup.py's)
    assert loaded & {"fastapi", "starlette", "uvicorn", "aiomqtt"} == set()


def test_replay_help_builds_only_its_parser() -> None:
    """`tablectl replay --help` (the issue's measure of a start at once) loads no engine: before, the parser's
    module imported it, pydantic's models with it (0.35 s cold against 0.09 s)."""
    code, loaded = _loaded("replay", "--help")
    assert code == 0 and "pydantic" not in loaded, sorted(loaded)
