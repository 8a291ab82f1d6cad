"""A recorded session of each profile replays to the very words it printed when it was recorded.

The sessions (``data/recorded/<case>.jsonl``) were exported from journals of plausible play on the
release before the games moved into their own folders (issue 24), and ``<case>.replay.txt`` is what
``tablectl replay`` printed for each then. Any change to the engine that changes a replay of old
evidence (a total, an outcome, a payout, an incident) fails here, byte for byte.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import pytest

from controller import replay_cli

DATA = Path(__file__).parent / "data" / "recorded"
CASES = sorted(p.stem for p in DATA.glob("*.jsonl"))


def test_every_profile_has_a_recorded_session() -> None:
    from tests.support.sessions import PROFILE_NAMES

    assert sorted(PROFILE_NAMES) == CASES


@pytest.mark.parametrize("case", CASES)
def test_a_recorded_session_replays_byte_for_byte(case: str) -> None:
    parser = argparse.ArgumentParser()
    replay_cli.configure_parser(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = replay_cli.run(parser.parse_args([str(DATA / f"{case}.jsonl")]))
    assert status == 0
    assert out.getvalue() == (DATA / f"{case}.replay.txt").read_text()
