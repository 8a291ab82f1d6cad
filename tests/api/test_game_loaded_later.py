"""A game's engine is loaded when the rules name it, not with the registry (issue 36: the service in 60 MB).

Every installed game's name, profiles and parts are known at once; its engine (and its events, its rules' model) is
made when first asked for, and the table's app knows the games loaded when it is made: the table's own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller import registry
from controller.registry import GameEntry
from tests.games.high_card import ENTRY as HIGH_CARD
from tests.support.deadlines import scaled
from tests.support.harness import VIEWER_KEY
from tests.support.inprocess import InProcessTable, call

# The test game as an installed game's line is: its engine named, made only when the rules name it.
LATER = GameEntry("tests.games.high_card.game:HighCard", HIGH_CARD.profiles, HIGH_CARD.parts, name=HIGH_CARD.name)

# A fresh process: what knowing every game, and the profiles of every game, imports.
KNOWING = """
import json, sys
from controller import registry
names = registry.names()
found = registry.profile("punto-banco")["game"], registry.profile("club-21")["game"]
print(json.dumps({"names": names, "found": found, "loaded": [e.name for e in registry.loaded()],
                  "games": sorted(m for m in sys.modules if m.startswith("games."))}))
"""


def test_every_game_and_profile_is_known_with_no_engine_loaded() -> None:
    out = subprocess.run([sys.executable, "-c", KNOWING], capture_output=True, text=True, timeout=scaled(60),
                         cwd=Path(__file__).parents[2])
    assert out.returncode == 0, out.stderr
    known = json.loads(out.stdout)
    assert {"baccarat", "blackjack", "club-21", "club-21-36"} <= set(known["names"])
    assert known["found"] == ["baccarat", "club-21"] and known["loaded"] == []
    # Each game's folder and its profiles, as data: no engine, no events, no rules model.
    assert all(m.count(".") == 1 or m.endswith(".profiles") for m in known["games"]), known["games"]



# A fresh process as a blackjack table runs: its game loaded, then what the stream and the figures ask the registry
# for every event and report (each used to load every engine, undoing the lazy start at the first event).
ASKING = """
import json, sys
from controller import registry
registry.game("blackjack")
asked = [registry.surveillance_events(), registry.collect_events(), registry.supervisor_actions(),
         registry.stake_events()]
print(json.dumps({"loaded": [e.name for e in registry.loaded()],
                  "engines": sorted(m for m in sys.modules if m.startswith("games.") and m.endswith(".game"))}))
"""


def test_what_the_stream_and_the_figures_ask_loads_no_other_games_engine() -> None:
    out = subprocess.run([sys.executable, "-c", ASKING], capture_output=True, text=True, timeout=scaled(60),
                         cwd=Path(__file__).parents[2])
    assert out.returncode == 0, out.stderr
    asked = json.loads(out.stdout)
    assert asked == {"loaded": ["blackjack"], "engines": ["games.blackjack.game"]}, asked


@pytest.mark.anyio
async def test_a_table_whose_rules_name_a_game_loads_its_engine_and_answers_in_its_view(tmp_path: Path) -> None:
    with registry.registered(LATER):
        assert not LATER.is_loaded and LATER.name not in [e.name for e in registry.loaded()]
        async with InProcessTable(tmp_path, profile="high-card") as t:
            assert LATER.is_loaded  # (made when the table took its rules)
            r = await call(t.api, "GET", "/api/table", VIEWER_KEY)  # validated by the high-card table's model
            assert r.status_code == 200, r.text
            assert r.json()["game"] == "high-card"


def test_an_engine_that_is_not_its_entrys_game_is_refused_when_loaded() -> None:
    wrong = GameEntry("tests.games.high_card.game:HighCard", {}, name="not-high-card")
    with registry.registered(wrong):
        assert "not-high-card" in registry.names()  # (known, not loaded)
        with pytest.raises(registry.RegistryError, match="the engine tests.games.high_card.game:HighCard of the game "
                                                         "'not-high-card' is the game 'high-card'"):
            registry.game("not-high-card")
        assert not wrong.is_loaded
