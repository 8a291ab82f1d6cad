"""Baccarat's tableau: the points of a hand, the naturals, and who draws a third card (pure; docs/rules.md).

The shoe alone decides a coup: cards go Player, Banker, Player, Banker; a natural (8 or 9 on two cards)
on either hand ends the coup; otherwise the Player draws on 0-5, and the Banker draws by his total and
the Player's third card (the standard tableau, the same in the Nevada, New Jersey and UK rules of play:
docs/rules.md cites them). Points are the cards' values modulo 10: ace 1, 2-9 their pips, tens and faces 0.
"""

from __future__ import annotations

from enum import Enum

PLAYER = "player"
BANKER = "banker"


class Result(str, Enum):
    """Who won the coup."""

    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"


def points(values: list[int]) -> int:
    """A hand's points from its cards' values (ace 1, tens and faces 10 or 0): the last digit of their sum."""
    return sum(values) % 10


def banker_draws(banker: int, third: int | None) -> bool:
    """Whether the Banker draws on ``banker`` points, given the Player's third card's value (None: the Player
    stood). The tableau: with no Player third card the Banker draws on 0-5; otherwise on 0-2 always, on 3 unless
    the Player's third card is an 8, on 4 against 2-7, on 5 against 4-7, on 6 against 6-7, never on 7."""
    if third is None:
        return banker <= 5
    t = third % 10
    if banker <= 2:
        return True
    if banker == 3:
        return t != 8
    if banker == 4:
        return 2 <= t <= 7
    if banker == 5:
        return 4 <= t <= 7
    if banker == 6:
        return t in (6, 7)
    return False


def next_due(player: list[int], banker: list[int]) -> str | None:
    """Which hand takes the next card (PLAYER or BANKER), or None: the coup is decided. Values in dealing order."""
    p, b = len(player), len(banker)
    if p + b < 4:
        return PLAYER if p == b else BANKER
    pp, bp = points(player[:2]), points(banker[:2])
    if pp >= 8 or bp >= 8:
        return None  # a natural: both stand
    if p == 2 and b == 2:
        if pp <= 5:
            return PLAYER
        return BANKER if bp <= 5 else None
    if p == 3 and b == 2:
        return BANKER if banker_draws(bp, player[2]) else None
    return None


def result(player: list[int], banker: list[int]) -> Result:
    """Who won a decided coup: the higher points, equal points a tie."""
    pp, bp = points(player), points(banker)
    return Result.PLAYER if pp > bp else Result.BANKER if bp > pp else Result.TIE


def natural(player: list[int], banker: list[int]) -> bool:
    """Either hand has 8 or 9 on its first two cards."""
    return points(player[:2]) >= 8 or points(banker[:2]) >= 8
