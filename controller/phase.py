"""Where the table is in its cycle, and the sets of phases the rules speak of."""

from __future__ import annotations

from enum import Enum


class Phase(str, Enum):
    """Where the table is in its cycle (the names in views, replay output and the API)."""

    WAITING_FOR_SHUFFLE = "waiting_for_shuffle"
    BETTING = "betting"
    DEALING = "dealing"
    INSURANCE = "insurance"
    SURRENDER = "surrender"
    PLAYERS = "players"
    DEALER = "dealer"
    SETTLED = "settled"
    ATTENTION = "attention"
    CONTRA = "contra"  # club-21: after everyone's first card, the banker's contra and the boxes' recontra
    PACK_OUT = "pack_out"  # club-21: the pack is spent while the boxes play; each doubles or folds


# A round is under way: its bets are locked and its cards are being dealt or played.
IN_ROUND = frozenset({Phase.DEALING, Phase.INSURANCE, Phase.SURRENDER, Phase.PLAYERS, Phase.DEALER,
                      Phase.CONTRA, Phase.PACK_OUT})
# No round is under way: bets, shuffles and rule changes belong here.
BETWEEN_ROUNDS = frozenset({Phase.BETTING, Phase.SETTLED, Phase.WAITING_FOR_SHUFFLE})
# A hand is in play: the players' decisions (and a hit, which is the next card) belong here.
PLAY = frozenset({Phase.PLAYERS, Phase.SURRENDER})
# Between rounds with a shoe that may deal: the next card is a burn or a new round's first.
READY = frozenset({Phase.BETTING, Phase.SETTLED})
