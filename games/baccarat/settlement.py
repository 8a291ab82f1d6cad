"""Baccarat's payouts, to the cent: each spot's outcome, net and commission for a decided coup (pure).

docs/rules.md, Baccarat: Player 1:1, Banker 1:1 less the commission (19:20 at 5 %), both pushed by a tie;
Tie ``tie_pays``:1; each pair ``pair_pays``:1 on its hand's first two cards of one rank; EZ Baccarat's Banker
bets pushed on a Banker win with a three-card 7, Dragon 7 (that very win) and Panda 8 (a Player win on a
three-card 8). The commission is rounded by ``commission_rounding``; with ``commission_collect = end_of_shoe``
the bet is paid even money and the commission is owed (the game keeps the tally).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from controller.hand import Outcome

from .rules import BaccaratRules, CommissionCollect, CommissionRounding
from .tableau import Result, points, result

PLAYER = "player"
BANKER = "banker"
TIE = "tie"
PLAYER_PAIR = "player_pair"
BANKER_PAIR = "banker_pair"
DRAGON7 = "dragon7"
PANDA8 = "panda8"
SPOTS = (PLAYER, BANKER, TIE, PLAYER_PAIR, BANKER_PAIR, DRAGON7, PANDA8)


@dataclass(frozen=True, slots=True)
class Coup:
    """A decided coup's facts, from its two hands' cards (values and ranks in dealing order)."""

    player: tuple[int, ...]
    banker: tuple[int, ...]
    player_pair: bool
    banker_pair: bool

    @classmethod
    def of(cls, player: list[tuple[str, int]], banker: list[tuple[str, int]]) -> Coup:
        """From each hand's (rank, value) cards."""
        return cls(tuple(v for _, v in player), tuple(v for _, v in banker),
                   len(player) >= 2 and player[0][0] == player[1][0],
                   len(banker) >= 2 and banker[0][0] == banker[1][0])

    @property
    def result(self) -> Result:
        """Who won."""
        return result(list(self.player), list(self.banker))

    @property
    def dragon7(self) -> bool:
        """The Banker won with a three-card 7."""
        return self.result is Result.BANKER and len(self.banker) == 3 and points(list(self.banker)) == 7

    @property
    def panda8(self) -> bool:
        """The Player won with a three-card 8."""
        return self.result is Result.PLAYER and len(self.player) == 3 and points(list(self.player)) == 8


def commission(stake: int, rules: BaccaratRules) -> int:
    """The commission on a won Banker bet of ``stake`` cents, rounded as the rules say (0 without commission)."""
    exact = Decimal(stake) * rules.commission_rate
    if rules.commission_rounding is CommissionRounding.CENT:
        return int(exact.to_integral_value(ROUND_FLOOR))
    chip = rules.chip_cents
    return int((exact / chip).to_integral_value(ROUND_CEILING)) * chip


@dataclass(frozen=True, slots=True)
class Paid:
    """One spot's settlement: its outcome, the player's net in cents, and the commission (taken or owed)."""

    outcome: Outcome
    net: int
    commission: int = 0
    owed: bool = False  # the commission is kept owed in the tally (end_of_shoe), not taken from the net


def settle_spot(spot: str, stake: int, coup: Coup, rules: BaccaratRules) -> Paid:
    """What a bet of ``stake`` cents on ``spot`` wins (+) or loses (-) on the decided ``coup``."""
    won = coup.result
    if spot == PLAYER:
        if won is Result.TIE:
            return Paid(Outcome.PUSH, 0)
        return Paid(Outcome.WIN, stake) if won is Result.PLAYER else Paid(Outcome.LOSE, -stake)
    if spot == BANKER:
        if won is Result.TIE:
            return Paid(Outcome.PUSH, 0)
        if won is Result.PLAYER:
            return Paid(Outcome.LOSE, -stake)
        if rules.ez_push_banker_three_card_seven and coup.dragon7:
            return Paid(Outcome.PUSH, 0)
        cut = commission(stake, rules)
        if rules.commission_collect is CommissionCollect.END_OF_SHOE:
            return Paid(Outcome.WIN, stake, cut, owed=True)
        return Paid(Outcome.WIN, stake - cut, cut)
    if spot == TIE:
        return Paid(Outcome.WIN, stake * rules.tie_pays) if won is Result.TIE else Paid(Outcome.LOSE, -stake)
    if spot == PLAYER_PAIR:
        return Paid(Outcome.WIN, stake * rules.pair_pays) if coup.player_pair else Paid(Outcome.LOSE, -stake)
    if spot == BANKER_PAIR:
        return Paid(Outcome.WIN, stake * rules.pair_pays) if coup.banker_pair else Paid(Outcome.LOSE, -stake)
    if spot == DRAGON7:
        return Paid(Outcome.WIN, stake * rules.dragon7_pays) if coup.dragon7 else Paid(Outcome.LOSE, -stake)
    if spot == PANDA8:
        return Paid(Outcome.WIN, stake * rules.panda8_pays) if coup.panda8 else Paid(Outcome.LOSE, -stake)
    raise ValueError(f"baccarat has no spot {spot!r}")
