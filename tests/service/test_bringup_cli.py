"""`tablectl bringup` as a technician runs it, from the table's config: a separate process, mock pins
(gpiozero's MockFactory, `pin_factory = "mock"`) and the virtual shoe on a real pty."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from simulators.shoe.process import SimProcess
from tests.support.harness import tablectl


def config(tmp_path: Path, shoe: str = "/nonexistent", gpio: str = "mock", extra: str = "") -> Path:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[shoe]\nport = "{shoe}"\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n'
                   f'[gpio]\npin_factory = "{gpio}"\n{extra}')
    return cfg


def test_shoe_prints_the_shoes_messages_as_shoe_monitor(tmp_path: Path, start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim("--decks", "1", "--auto-deal", "200", "--cards", "5", "--wait-for-host")
    out = tablectl("bringup", "shoe", "--config", str(config(tmp_path, sim.link)), "--count", "5", "--json",
                   timeout=60)
    assert out.returncode == 0, out.stderr
    cards = [m for m in map(json.loads, out.stdout.splitlines()) if m["type"] == "card"]
    assert [c["position"] for c in cards] == [1, 2, 3, 4, 5]
    assert f"shoe: {sim.link}, codec framed" in out.stderr


def test_displays_and_bell_run_through_on_mock_pins(tmp_path: Path) -> None:
    cfg = config(tmp_path, extra="[gpio.bell_patterns]\n" + "".join(
        f"{s} = [[0.01, 0.01]]\n" for s in ("attention", "fault", "call_pit", "shuffle_due")))
    out = tablectl("bringup", "displays", "--config", str(cfg), "--seconds", "0", timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "display 1 of 8 in the chain (dealer) shows 'dEALEr', the others dark"
    assert lines[1] == "display 2 of 8 in the chain (box1) shows 'bo     1', the others dark"
    assert "lamp test" in lines[8] and lines[9] == "all dark"
    out = tablectl("bringup", "bell", "--config", str(cfg), "--seconds", "0", timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "bell: every pattern rung" and out.stdout.count("bell: ") == 5


def test_console_gives_up_after_its_timeout_naming_what_was_not_pressed(tmp_path: Path) -> None:
    out = tablectl("bringup", "console", "--config", str(config(tmp_path)), "--timeout", "0.2", timeout=60)
    assert out.returncode == 3, out.stderr
    assert "console: not pressed: stand, double" in out.stdout


def test_without_lgpio_it_says_so_in_one_line_with_exit_7(tmp_path: Path) -> None:
    out = tablectl("bringup", "displays", "--config", str(config(tmp_path, gpio="lgpio")), timeout=60)
    assert out.returncode == 7, out.stderr
    assert "python3-lgpio" in out.stderr and "Traceback" not in out.stderr and out.stderr.count("\n") == 1


def test_a_missing_shoe_is_one_line(tmp_path: Path) -> None:
    out = tablectl("bringup", "shoe", "--config", str(config(tmp_path, str(tmp_path / "none"))), timeout=60)
    assert out.returncode == 1 and "cannot open" in out.stderr and "Traceback" not in out.stderr
