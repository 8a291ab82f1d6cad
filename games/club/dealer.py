"""The virtual croupier's decisions in the club games, from the dealer key's view alone (pure).

The croupier of `club-21` deals, banks and plays every box. His key sees the boxes' cards
closed (``XX``, no totals), so he decides for the players by the blind players' rule of
:mod:`simulators.club_strategy` (the number of cards a box holds), and for the banker, whose
cards the view shows face up once he draws, by the banker's rule. :func:`club_move` reads one
table view and says the one thing to do next; the virtual dealer carries it out over the API
and the shoe's control channel, and the tests carry it out on an engine in memory.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from controller.rules import Rules
from simulators.club_strategy import BLIND_PLAYERS, BankerRule, PlayersRule, banker_rule_for, best_total
from simulators.dealer_moves import DEAL, SHUFFLE, WAIT, Move, act, bets_to_place


def cards_held(hand: dict[str, Any]) -> int:
    """How many cards a hand holds: public even when they are closed (``XX``)."""
    count = hand.get("card_count")
    return int(count) if count is not None else len(hand["cards"])


def _box_in_turn(t: dict[str, Any]) -> dict[str, Any] | None:
    turn = t.get("turn") or {}
    number = turn.get("box")
    if number is None:
        return None
    return next((b for b in t["boxes"] if b["box"] == number and not b.get("next_round")), None)


def _players_move(t: dict[str, Any], players: PlayersRule) -> Move:
    """The box in turn: another card, or stand (never a split, a pair's double, a surrender or a raise).

    In club-21-36 a blind box goes ``dark`` before it draws: it does not look at its cards anyway,
    and a dark box wins ties and (by default) a double bust, and does not lose at once over 21.
    """
    box = _box_in_turn(t)
    if box is None:
        return WAIT
    hand = box["hands"][t["turn"].get("hand", 0)]
    count = cards_held(hand)
    total = best_total(hand["totals"]) if players.sighted else None
    if players.sighted and total is None:
        raise ValueError("a sighted players' rule needs the box's cards, and the dealer's view has them closed")
    legal = t["legal_actions"]
    if t.get("next_card") == "bottom":
        return DEAL  # a new pack in the round: its first card is the bottom card, before anyone draws
    if "hit" in legal and players.draws(count, total):
        if not players.sighted and "dark" in legal and not hand.get("dark"):
            return act({"type": "dark", "box": box["box"]})
        return DEAL
    if "fold" in legal and players.draws(count, total):
        return _double_or_fold(box, hand, players)  # club-21, a spent pack: the box wants a card (the run-out)
    return act({"type": "stand"}) if "stand" in legal else WAIT


def _banker_move(t: dict[str, Any], banker: BankerRule) -> Move:
    """The banker draws by his rule from his own cards, shown face up in his turn."""
    legal = t["legal_actions"]
    total = best_total(t["dealer"]["totals"])
    if total is None:  # his cards are not turned yet: the table has not handed him the turn
        return WAIT
    if "hit" in legal and (banker.draws(total) or "banker_stand" not in legal):
        return DEAL  # by his rule, or because the house binds him to draw
    if "banker_stand" in legal:
        return act({"type": "banker_stand"})
    return WAIT


def _pack_out_move(t: dict[str, Any], players: PlayersRule) -> Move:
    """The spent pack: each box not yet settled doubles or folds, one box a step."""
    for box in t["boxes"]:
        if box.get("next_round") or box.get("choice") is not None:
            continue
        hands = [h for h in box["hands"] if h["outcome"] is None]
        if not hands:
            continue
        return _double_or_fold(box, hands[0], players)
    return WAIT


def _double_or_fold(box: dict[str, Any], hand: dict[str, Any], players: PlayersRule) -> Move:
    """The spent pack's choice for a box, by the players' stated rule: double its stake, or fold."""
    total = best_total(hand["totals"]) if players.sighted else None
    count = cards_held(hand)
    doubles = players.doubles_on_spent_pack(count, count > 2 or hand.get("split", False), total)
    return act({"type": "double" if doubles else "fold", "box": box["box"]})


def bank_move(t: dict[str, Any]) -> Move | None:
    """Between rounds of club-21-36: the banker opens a bank (ten times the bank minimum, within the
    limits) when none is open, and closes it as soon as he may (four rounds of duels, or tripled);
    both are the pit's key's to send. None: nothing to do with the bank now."""
    bank = t.get("bank")
    if bank is None or t.get("round") is not None or t["phase"] not in ("betting", "settled", "waiting_for_shuffle"):
        return None
    legal = t["legal_actions"]
    if not bank["open"] and "open_bank" in legal:
        limits = bank["limits"]
        amount = min(Decimal(limits["max"]), max(Decimal(limits["min"]), 10 * Decimal(limits["min"])))
        return Move("supervise", {"type": "open_bank", "amount": str(amount)})
    if bank["open"] and bank["may_close"] and "close_bank" in legal:
        return Move("supervise", {"type": "close_bank"})
    return None


class CardsOnTable:
    """Where the croupier put each card of this round, by shoe position, never by face.

    In club-21-36 a pack can run out in the middle of a round; the new pack is what is not on
    the table (the first cards of the boxes still to play, the duel in play's). The croupier
    knows which shoe positions he dealt to which box or to the banker (the view's ``next_card``
    when he dealt), so he can tell the shoe which cards to leave out without seeing them.
    """

    def __init__(self) -> None:
        self.round: int | None = None
        self.dealt: list[tuple[str, int, str]] = []  # (shoe id, position, target: "box N", "banker", "bottom")

    def target(self, t: dict[str, Any]) -> str | None:
        """Where the next card goes, from the view: ``box N``, ``banker`` or ``bottom``."""
        nxt = t.get("next_card")
        if nxt == "first box":
            boxes = [b["box"] for b in t["boxes"] if b.get("next_round")]
            return f"box {min(boxes)}" if boxes else None
        return nxt

    def note(self, t: dict[str, Any], target: str | None, shoe_id: str, position: int) -> None:
        """The card at ``position`` of ``shoe_id`` went to ``target`` (the round's first card starts afresh)."""
        number = t.get("round")
        if number is None or (self.round is not None and number != self.round):
            self.dealt = []  # between rounds (this card starts one, or is the bottom card), or a new round
        self.round = number
        if target is not None:
            self.dealt.append((shoe_id, position, target))

    def on_table(self, t: dict[str, Any]) -> list[tuple[str, int]]:
        """The (shoe id, position) of every card still on the table, from the public view."""
        open_boxes = {f"box {b['box']}" for b in t["boxes"]
                      if not b.get("next_round") and any(h["outcome"] is None for h in b["hands"])}
        keep = [(s, p) for s, p, target in self.dealt if target in open_boxes]
        duel = (t.get("bank") or {}).get("duel")
        banker_cards = cards_held(t["dealer"])
        if duel is not None and f"box {duel['box']}" in open_boxes and banker_cards:
            keep += [(s, p) for s, p, target in self.dealt if target == "banker"][-banker_cards:]
        return keep


def pack_spent_in_round(t: dict[str, Any]) -> bool:
    """The pack ran out in the round (club-21-36): a new one is loaded and the round goes on."""
    return t.get("round") is not None and any(a.get("kind") == "shoe_empty" and not a.get("acknowledged")
                                             for a in t.get("alerts", []))


def club_move(t: dict[str, Any], players: PlayersRule = BLIND_PLAYERS, banker: BankerRule | None = None) -> Move:
    """The croupier's next move in a club round, from ``t`` (a table view as the dealer's key sees it).

    Between rounds the caller places the bets; this covers the round: the bottom card and the
    deal (``deal``), the contra window (the banker never calls contra: the next card closes it),
    the boxes' turns, the banker's turn, the spent pack, and the shuffle.
    """
    banker = banker or BankerRule()
    phase = t["phase"]
    bank = bank_move(t)
    if bank is not None:
        return bank
    if phase == "waiting_for_shuffle" or (pack_spent_in_round(t) and t.get("game") == "club-21-36"):
        return SHUFFLE
    if phase == "attention":
        return WAIT
    if t.get("next_card") == "bottom":
        return DEAL  # a new pack's first card is its bottom card, whoever plays next
    if phase == "pack_out":
        return _pack_out_move(t, players)
    if phase == "dealer":
        return _banker_move(t, banker)
    if phase == "players":
        return _players_move(t, players)
    return DEAL if t.get("next_card") else WAIT


class _ClubPlay:
    """The croupier's play at one club table: the bank (club-21-36), the bets, then `club_move`; he notes where each
    card went by its shoe position, never by its face (`CardsOnTable`)."""

    def __init__(self, rules: Rules, seed: int, max_boxes: int | None) -> None:
        self.rules, self.seed, self.max_boxes = rules, seed, max_boxes
        self.banker = banker_rule_for(rules)
        self.on_table = CardsOnTable()

    def move(self, t: dict[str, Any]) -> Move:
        """Between rounds: the bank, then one bet a move (after a restart the rest still follow); then the round."""
        if t["round"] is None and t["phase"] in ("betting", "settled"):
            bank = bank_move(t)
            if bank is not None:
                return bank
            if t.get("bank") is not None and not t["bank"]["open"]:
                return WAIT  # no bank, no stakes (club-21-36)
            missing = bets_to_place(t, self.rules, self.seed, self.max_boxes)
            if missing:
                box, amount = missing[0]
                return act({"type": "bet", "box": box, "amount": str(amount)})
        return club_move(t, BLIND_PLAYERS, self.banker)

    def dealt(self, t: dict[str, Any], shoe_id: str, position: int) -> None:
        """Where the card went, by position: its face is not the croupier's to use."""
        self.on_table.note(t, self.on_table.target(t), shoe_id, position)

    def keep(self, t: dict[str, Any]) -> list[tuple[str, int]]:
        """A pack spent in the round (club-21-36): the new pack is what is not on the table."""
        return self.on_table.on_table(t) if pack_spent_in_round(t) else []


class ClubDealer:
    """A club game's croupier (the registry's ``dealer`` part, `simulators.parts.DealerMoves`): he deals, banks and
    plays every box, the boxes by the blind players' rule, himself by the banker's rule of the table's options."""

    loads_packs = True  # the game's packs (36 or 52, one or two): loaded at each shuffle, checked between rounds
    in_memory = False  # the fleet's in-process dealer does not drive the club games

    def __init__(self, needs_supervisor: bool) -> None:
        self.needs_supervisor = needs_supervisor  # a bank the pit opens and closes (club-21-36)

    def play(self, rules: Rules, seed: int, random_choice: float, max_boxes: int | None) -> _ClubPlay:
        """The croupier's play at a table of these rules (he takes no random decisions: ``random_choice`` unused)."""
        return _ClubPlay(rules, seed, max_boxes)

