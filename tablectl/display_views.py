"""What each display shows, game by game: the engine's state in the display package's own model.

display/ never imports the controller, so the translation is here, one function per family of
games; `tablectl.games` says which one a table's game uses.
"""

from __future__ import annotations

from decimal import Decimal

from controller.alerts import AlertKind
from controller.cards import soft_total
from controller.engine import Table
from controller.hand import Hand, Outcome
from controller.money import from_cents
from controller.phase import PLAY, Phase
from controller.round import Round
from display.model import (
    MAX_HARD_TOTAL,
    BankerAdvice,
    BoxView,
    DealerView,
    HandOutcome,
    HandView,
    TableMessage,
    TableView,
)


_OUTCOMES = {
    Outcome.WIN: HandOutcome.WIN, Outcome.BLACKJACK: HandOutcome.WIN, Outcome.EVEN_MONEY: HandOutcome.WIN,
    Outcome.THREE_SEVENS: HandOutcome.WIN, Outcome.LOSE: HandOutcome.LOSE, Outcome.BUST: HandOutcome.LOSE,
    Outcome.PUSH: HandOutcome.PUSH, Outcome.VOID: HandOutcome.PUSH,
}


def _hand(hand: Hand, in_play: bool) -> HandView:
    n = len(hand.cards)
    soft = hand.soft if n else None
    return HandView(
        card_count=n,
        hard_total=hand.hard,
        soft_total=soft,
        is_blackjack=hand.is_blackjack,
        is_bust=hand.is_bust,
        doubled=hand.doubled,
        surrendered=hand.outcome is Outcome.SURRENDER,
        in_play=in_play,
        done=hand.done,
        outcome=_OUTCOMES.get(hand.outcome) if hand.outcome and hand.outcome is not Outcome.SURRENDER else None,
    )


def blackjack_display_view(table: Table, link_up: bool = True, *, show_settled: bool = True) -> TableView:
    """Translate the engine's state into what each display must show.

    Between rounds the settled round stays (each box's payout, the dealer's round total)
    until the next round's first card, unless ``show_settled`` is False (its time is up).
    The club games have their own mapping (closed hands): see :func:`club_display_view`.
    """
    r = table.round
    phase = table.phase
    settled = table.previous if r is None and show_settled else None
    in_players = phase in PLAY
    by_number: dict[int, BoxView] = {}
    if r is not None:
        for bi, box in enumerate(r.boxes):
            hands = tuple(_hand(h, in_players and bi == r.box_i and hi == r.hand_i) for hi, h in enumerate(box.hands))
            by_number[box.number] = BoxView(box.number, active=True, hands=hands)
    elif settled is not None:
        for box in settled.boxes:
            hands = tuple(_hand(h, False) for h in box.hands)
            by_number[box.number] = BoxView(box.number, active=True, hands=hands, payout=from_cents(box.net()))
    for number in table.pending:
        by_number.setdefault(number, BoxView(number, active=True))
    boxes = tuple(by_number.get(n, BoxView(n)) for n in range(1, table.rules.boxes + 1))
    dealer = DealerView()
    shown = r if r is not None else settled
    if shown is not None and shown.dealer.cards:
        d = shown.dealer
        dealer = DealerView(
            up_card=d.cards[0].value,
            card_count=len(d.cards),
            hard_total=d.hard,
            soft_total=d.soft,
            is_blackjack=d.is_blackjack,
            is_bust=d.is_bust,
            hole_card_hidden=table.dealer_card_closed,
            done=r is None or (phase is not Phase.DEALER and len(d.cards) >= 2 and not table.dealer_card_closed),
            payout=from_cents(shown.net()) if r is None else None,
        )
    elif settled is not None:
        dealer = DealerView(payout=from_cents(settled.net()))  # every box busted or surrendered: the dealer has no card
    return TableView(boxes=boxes, dealer=dealer, messages=_messages(table, link_up))


def _messages(table: Table, link_up: bool) -> frozenset[TableMessage]:
    """The table-wide conditions standing now (every game has the same)."""
    phase = table.phase
    r = table.round
    messages: set[TableMessage] = set()
    kinds = {a.kind for a in table.open_alerts() if a.active}
    if phase is Phase.ATTENTION or AlertKind.INTEGRITY in kinds:
        messages.add(TableMessage.ATTENTION)
    if AlertKind.SHOE_FAULT in kinds:
        messages.add(TableMessage.SHOE_FAULT)
    if not link_up or AlertKind.LINK_DOWN in kinds:
        messages.add(TableMessage.LINK_DOWN)
    if AlertKind.CALL_PIT in kinds:
        messages.add(TableMessage.PIT_CALLED)
    if phase is Phase.WAITING_FOR_SHUFFLE:
        messages.add(TableMessage.SHUFFLE_DUE)
    elif table.shoe is not None and table.shoe.cut_card_out:
        messages.add(TableMessage.CUT_CARD_OUT)
    if phase is Phase.BETTING and r is None and not table.pending:
        messages.add(TableMessage.PLACE_BETS)
    return frozenset(messages)


# ---------------------------------------------------------------------------- the club games (003)
# A club hand's outcome as the display words it: the amount itself is the box's payout.
_CLUB_OUTCOMES = {
    Outcome.NATURAL: HandOutcome.WIN, Outcome.BANKER_BUST: HandOutcome.WIN, Outcome.WIN: HandOutcome.WIN,
    Outcome.LOSE: HandOutcome.LOSE, Outcome.BUST: HandOutcome.LOSE, Outcome.FOLD: HandOutcome.LOSE,
    Outcome.PUSH: HandOutcome.PUSH, Outcome.VOID: HandOutcome.PUSH, Outcome.WITHDRAWN: HandOutcome.PUSH,
    Outcome.RETURNED: HandOutcome.PUSH,
}


def _closed(hand: Hand) -> bool:
    """A card of a club hand is still face down (a hand without the mark is open)."""
    return bool(getattr(hand, "closed", False))


def _club_hand(hand: Hand, in_play: bool) -> HandView:
    """A club box's hand: a closed one shows its card count and nothing that tells its total."""
    n = len(hand.cards)
    if _closed(hand):
        return HandView(card_count=n, closed=True, in_play=in_play, done=hand.done, doubled=hand.doubled)
    hard = min(hand.hard, MAX_HARD_TOTAL)  # a club box may draw on past 21: the display has two digits
    soft = soft_total(hard, hand.has_ace) if n else None
    return HandView(
        card_count=n,
        hard_total=hard,
        soft_total=soft,
        is_bust=hard > 21,
        doubled=hand.doubled,
        surrendered=hand.outcome is Outcome.SURRENDER,
        in_play=in_play,
        done=hand.done,
        outcome=_CLUB_OUTCOMES.get(hand.outcome) if hand.outcome is not None else None,
    )


def _club_total(hand: Hand) -> int:
    return min(hand.total, MAX_HARD_TOTAL)


def banker_advice(table: Table) -> BankerAdvice | None:
    """The advice to the banker in his turn, where the house turns it on (club-21's ``banker_advice``): his best
    play from what he can see (``games.club_21.banker.advice``: his own cards, the cards shown since the
    shuffle and how many cards each box holds, never a closed card). None out of his turn, or where it is off."""
    if not getattr(table.rules, "banker_advice", False) or table.phase is not Phase.DEALER:
        return None
    from games.club_21.banker import advice  # (only a table that shows advice needs the model)

    draw = advice(table)
    if draw is None:
        return None
    return BankerAdvice.DRAW if draw else BankerAdvice.STAND


def _banker_view(table: Table, banker: Hand | None, settled: Round | None) -> DealerView:
    """The banker's display: ``--`` and his card count while his cards are closed, his total once he draws
    face up, the round's total once it is settled; the bank's balance beside (club-21-36); in his turn the
    advice to draw or stand, where the house turns it on (club-21)."""
    bank = bank_balance(table)
    if settled is not None:
        return DealerView(payout=from_cents(settled.net()), bank=bank)
    if banker is None or not banker.cards:
        return DealerView(bank=bank)
    n = len(banker.cards)
    if _closed(banker):
        return DealerView(card_count=n, closed=True, bank=bank)
    values: tuple[int, ...] = table.rules.values  # type: ignore[attr-defined]  # a banker: a club game, whose rules have values
    hard = min(banker.hard, MAX_HARD_TOTAL)
    advice = banker_advice(table) if hard <= 21 else None
    return DealerView(
        up_card=min(values[banker.cards[0].index], 10),
        card_count=n,
        hard_total=hard,
        soft_total=soft_total(hard, banker.has_ace),
        is_bust=hard > 21,
        done=table.phase is not Phase.DEALER,
        bank=bank,
        advice=advice,
    )


def bank_balance(table: Table) -> Decimal | None:
    """The open bank's balance on a club-21-36 table (None where the game has no bank, or none is open)."""
    bank = getattr(table, "game_state", None)  # club-21-36's Bank (cents); other games keep none
    if bank is None or not getattr(bank, "open", False) or not isinstance(getattr(bank, "balance", None), int):
        return None
    return from_cents(bank.balance)


def club_display_view(table: Table, link_up: bool = True, *, show_settled: bool = True) -> TableView:
    """The club games on the displays: every box's hand closed (``-- 2``) until it is turned; the
    settled round's total and payout per box; the banker's hand, then his total when he draws face up."""
    r = table.round
    settled = table.previous if r is None and show_settled else None
    in_players = table.phase in PLAY
    by_number: dict[int, BoxView] = {}
    if r is not None:
        for bi, box in enumerate(r.boxes):
            hands = tuple(_club_hand(h, in_players and bi == r.box_i and hi == r.hand_i)
                          for hi, h in enumerate(box.hands))
            by_number[box.number] = BoxView(box.number, active=True, hands=hands)
    elif settled is not None:
        for box in settled.boxes:
            hands = tuple(_club_hand(h, False) for h in box.hands)
            total = _club_total(box.hands[0]) if len(box.hands) == 1 and box.hands[0].cards else None
            by_number[box.number] = BoxView(box.number, active=True, hands=hands, payout=from_cents(box.net()),
                                            settled_total=total)
    for number in table.pending:
        by_number.setdefault(number, BoxView(number, active=True))
    boxes = tuple(by_number.get(n, BoxView(n)) for n in range(1, table.rules.boxes + 1))
    dealer = _banker_view(table, r.dealer if r is not None else None, settled)
    return TableView(boxes=boxes, dealer=dealer, messages=_messages(table, link_up))
