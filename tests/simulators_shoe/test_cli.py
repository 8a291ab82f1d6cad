"""`tablectl shoe-sim` refuses bad options clearly (no tracebacks)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.deadlines import scaled


def sim(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "tablectl.cli", "shoe-sim", "--pty", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(30), stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--corrupt", "1.5"], "a probability is between 0 and 1"),
        (["--drop", "lots"], "not a number"),
        (["--decks", "0"], "must be at least 1"),
        (["--auto-deal", "0"], "must be more than 0"),
        (["--decks", "1", "--cut-at", "60"], "beyond the 52 cards"),
        (["--pack", "40"], "a pack has 36 or 52 cards"),
        (["--pack", "many"], "a pack has 36 or 52 cards"),
        (["--decks", "1", "--pack", "36", "--cut-at", "40"], "beyond the 36 cards"),
        (["--cut-zone", "220-200"], "--cut-zone takes A-B"),
        (["--decks", "1", "--cut-zone", "40-52"], "reaches the end of the 52 cards"),
        (["--cut-at", "230", "--cut-zone", "200-220"], "give one"),
    ],
)
def test_bad_options(args: list[str], message: str) -> None:
    result = sim(*args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_link_path_that_is_not_a_symlink_is_refused(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.write_text("keep me")
    result = sim("--link", str(precious))
    assert result.returncode == 1
    assert "refusing to replace" in result.stderr and "Traceback" not in result.stderr
    assert precious.read_text() == "keep me"


def test_the_demo_gives_the_virtual_shoe_the_rules_cut_card() -> None:
    """The demo's virtual shoe places its cut card where the table's profile does (ru-standard 200-220 of 312)."""
    from controller.rules import build_rules
    from tablectl.demo import shoe_args

    assert shoe_args(build_rules("ru-standard")) == ("--decks", "6", "--cut-zone", "200-220")
    assert "--cut-zone" not in shoe_args(build_rules("club-21-36"))  # the club games deal to the bottom card
