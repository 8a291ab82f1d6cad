"""Side-bet advantage play: large Dragon 7 bets at positive moments are evidence; the same bets at random are not."""

from __future__ import annotations

import random

from controller import events as ev
from controller.cards import parse_card
from games.baccarat.rules import BaccaratRules
from games.baccarat.side_bets import Moment, side_bet_evidence, side_bet_moments

from tests.games.baccarat.support import T0, bet, table


def _moments(player: str, chooser) -> list[Moment]:
    rng = random.Random(7)
    out = []
    for coup in range(200):
        ev_ = 0.05 if rng.random() < 0.1 else -0.08  # about one coup in ten positive (a deep shoe short of 8s, 9s)
        out.append(Moment(coup, player, "dragon7", chooser(ev_, rng), ev_))
    return out


def test_large_bets_at_the_positive_moments_are_evidence() -> None:
    """n = 200 coups each; the advantage player bets 100 at positive moments, 5 otherwise."""
    ap = _moments("ap", lambda e, rng: 10000 if e > 0 else 500)
    fan = _moments("fan", lambda e, rng: rng.choice([500, 10000]))
    found = {e.player: e for e in side_bet_evidence(ap + fan)}
    assert found["ap"].p_value < 1e-10 and found["ap"].bets == 200 and len(found["ap"].alerts) == found["ap"].positive
    assert found["fan"].p_value > 0.01


def test_the_moments_come_from_the_coups_records_with_the_exact_expectation() -> None:
    t = table("ez-baccarat")
    for coup in ("4S 6H AC 7D 8C", "3S 6H 5S 2D", "2S 2H 4S 3H 2D"):
        bet(t, 1, "dragon7", 5, player="ann")
        bet(t, 1, "banker", 25, player="ann")
        for code in coup.split():
            t.apply(ev.CardDrawn(card=parse_card(code), at=T0))
    records = [t.previous.record]  # the last coup; the earlier coups' cards are in the shoe's figures
    rules = t.rules
    assert isinstance(rules, BaccaratRules)
    moments = side_bet_moments(rules, records, burnt=["4S", "6H", "AC", "7D", "8C", "3S", "6H", "5S", "2D"])
    assert len(moments) == 1 and moments[0].player == "ann" and moments[0].stake == 500
    assert -0.2 < moments[0].expectation < 0  # off the top less nine cards: still the house's
