"""A journal's rules row carries every option, so it means the same rules after a profile's defaults change.

Before, the first row held only the options that differed from the profile: a casino that later changed
what ``ru-standard`` means (say, eight decks) would have changed, silently, the rules old evidence replays by.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from games.blackjack import profiles
from controller.authority import TableAuthority, export_session
from controller.journal import JournalKey
from controller.replay import replay_lines
from controller.rules import build_rules

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=timezone.utc)


def test_old_evidence_replays_by_its_own_rules_after_the_profile_changes(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    rules = build_rules("ru-standard")
    live = TableAuthority.open(tmp_path / "j.sqlite", JournalKey.generate(tmp_path / "k"), rules, now=T0)
    lines = [json.dumps(row) for row in export_session(live.journal)]
    live.journal.close()
    first = json.loads(lines[0])
    assert first["type"] == "rules" and first["options"] == rules.options()

    monkeypatch.setitem(profiles.PROFILES, "ru-standard", {**profiles.PROFILES["ru-standard"], "decks": 8})
    assert build_rules("ru-standard").decks == 8  # the casino's profile now means eight decks
    replayed = replay_lines(lines)
    assert replayed.error is None
    assert replayed.table.rules.decks == 6 and replayed.table.rules.options() == rules.options()
