"""The club games' own decisions besides the hand's (hit, stand, double, split, surrender:
`controller.legality.Action`), shared by club-21 and club-21-36."""

from __future__ import annotations

from controller.legality import GameAction


class ClubAction(GameAction):
    """The banker's, the bank's and the club rules' decisions (003)."""

    BANKER_STAND = "banker_stand"
    FOLD = "fold"
    CONTRA = "contra"
    RECONTRA = "recontra"
    BET = "bet"  # club-21-36: the box whose duel it is raises its stake before it draws
    DARK = "dark"
    OPEN_BANK = "open_bank"
    CLOSE_BANK = "close_bank"
