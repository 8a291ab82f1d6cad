"""`fleet-sim --rules` names a game it can play, or says which it can: never a traceback.

Issue 21 (noticed on the way): `fleet-sim --rules club-21` died in the strategy model with an
AttributeError, since the fleet's in-process dealer plays blackjack only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.rules import profiles
from tablectl.cli import main


@pytest.mark.parametrize("rules", [*profiles("club-21"), *profiles("club-21-36"), "macau"])
def test_a_profile_fleet_sim_cannot_play_is_refused_with_the_ones_it_can(
        rules: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fleet-sim", "--tables", "1", "--rules", rules, "--broker", "mqtt://127.0.0.1:9",
                 "--dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"--rules '{rules}'" in err and "ru-standard" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # refused before anything is made
