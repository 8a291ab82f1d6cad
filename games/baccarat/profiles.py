"""Baccarat's named profiles, as data: the options that differ from `rules.BaccaratRules`' defaults.

``punto-banco`` is the defaults (8 decks, Banker 19:20 with the commission taken per coup, Tie 8:1, pairs 11:1);
``ez-baccarat`` takes no commission, pushes the Banker bets on a Banker win with a three-card 7 and offers Dragon 7
(40:1) and Panda 8 (25:1). docs/rules.md, Baccarat, cites the source of each.
"""

from __future__ import annotations

from typing import Any

PROFILES: dict[str, dict[str, Any]] = {
    "punto-banco": {},
    "ez-baccarat": dict(commission_pct=0, ez_push_banker_three_card_seven=True, dragon7=True, panda8=True),
}
