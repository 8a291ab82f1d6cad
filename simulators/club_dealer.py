"""The virtual croupier's decisions in the club games, from the dealer key's view alone (pure).

The croupier of `club-21` deals, banks and plays every box. His key sees the boxes' cards
closed (``XX``, no totals), so he decides for the players by the blind players' rule of
:mod:`simulators.club_strategy` (the number of cards a box holds), and for the banker, whose
cards the view shows face up once he draws, by the banker's rule. :func:`club_move` reads one
table view and says the one thing to do next; the virtual dealer carries it out over the API
and the shoe's control channel, and the tests carry it out on an engine in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .club_strategy import BLIND_PLAYERS, BankerRule, PlayersRule, best_total

MoveKind = Literal["deal", "act", "shuffle", "bet", "wait"]


@dataclass(frozen=True, slots=True)
class Move:
    """What the croupier does next: deal a card, send an action (``event``), shuffle, or wait."""

    kind: MoveKind
    event: dict[str, Any] | None = None


DEAL, SHUFFLE, WAIT = Move("deal"), Move("shuffle"), Move("wait")


def _act(event: dict[str, Any]) -> Move:
    return Move("act", event)


def _box_in_turn(t: dict[str, Any]) -> dict[str, Any] | None:
    turn = t.get("turn") or {}
    number = turn.get("box")
    if number is None:
        return None
    return next((b for b in t["boxes"] if b["box"] == number and not b.get("next_round")), None)


def _players_move(t: dict[str, Any], players: PlayersRule) -> Move:
    """The box in turn: another card, or stand (never a split, a pair's double or a surrender)."""
    box = _box_in_turn(t)
    if box is None:
        return WAIT
    hand = box["hands"][t["turn"].get("hand", 0)]
    count = hand["card_count"]
    total = best_total(hand["totals"]) if players.sighted else None
    if players.sighted and total is None:
        raise ValueError("a sighted players' rule needs the box's cards, and the dealer's view has them closed")
    legal = t["legal_actions"]
    if "hit" in legal and players.draws(count, total):
        return DEAL
    return _act({"type": "stand"}) if "stand" in legal else WAIT


def _banker_move(t: dict[str, Any], banker: BankerRule) -> Move:
    """The banker draws by his rule from his own cards, shown face up in his turn."""
    legal = t["legal_actions"]
    total = best_total(t["dealer"]["totals"])
    if total is None:  # his cards are not turned yet: the table has not handed him the turn
        return WAIT
    if "hit" in legal and (banker.draws(total) or "banker_stand" not in legal):
        return DEAL  # by his rule, or because the house binds him to draw
    if "banker_stand" in legal:
        return _act({"type": "banker_stand"})
    return WAIT


def _pack_out_move(t: dict[str, Any], players: PlayersRule) -> Move:
    """The spent pack: each box not yet settled doubles or folds, one box a step."""
    for box in t["boxes"]:
        if box.get("next_round") or box.get("choice") is not None:
            continue
        hands = [h for h in box["hands"] if h["outcome"] is None]
        if not hands:
            continue
        hand = hands[0]
        total = best_total(hand["totals"]) if players.sighted else None
        drew = hand["card_count"] > 2 or hand.get("split", False)
        doubles = players.doubles_on_spent_pack(hand["card_count"], drew, total)
        return _act({"type": "double" if doubles else "fold", "box": box["box"]})
    return WAIT


def club_move(t: dict[str, Any], players: PlayersRule = BLIND_PLAYERS, banker: BankerRule | None = None) -> Move:
    """The croupier's next move in a club round, from ``t`` (a table view as the dealer's key sees it).

    Between rounds the caller places the bets; this covers the round: the bottom card and the
    deal (``deal``), the contra window (the banker never calls contra: the next card closes it),
    the boxes' turns, the banker's turn, the spent pack, and the shuffle.
    """
    banker = banker or BankerRule()
    phase = t["phase"]
    if phase == "waiting_for_shuffle":
        return SHUFFLE
    if phase == "attention":
        return WAIT
    if phase == "pack_out":
        return _pack_out_move(t, players)
    if phase == "dealer":
        return _banker_move(t, banker)
    if phase == "players":
        return _players_move(t, players)
    return DEAL if t.get("next_card") else WAIT
