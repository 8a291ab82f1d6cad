"""How a club hand (003) may end besides the table's own outcomes (win, lose, push, void): the names in round
records, shared by club-21 and club-21-36."""

from __future__ import annotations

from controller.hand import GameOutcome


class ClubOutcome(GameOutcome):
    """The club games' own outcomes."""

    BUST = "bust"  # over 21 (a dark box's bust may still win against a bust banker: club-21-36)
    SURRENDER = "surrender"  # half the stake back (club-21, ``surrender``)
    NATURAL = "natural"  # a box's two-card 21, paid at once (club-21)
    BANKER_BUST = "banker_bust"  # the banker passed 21: a box at 21 or less is paid 2:1 (club-21)
    FOLD = "fold"  # on a spent pack the box gave up its stake (club-21)
    WITHDRAWN = "withdrawn"  # the supervisor returned the box's stake (club games)
    RETURNED = "returned"  # the bank was empty before the box's duel: its stake came back (club-21-36)
