"""What each press of the dealer console means, game by game: the same buttons, the game's decisions.

One function per game; `tablectl.games` says which one a table's game uses. They only read the
table: the press goes down the service's ordered path like any API action (`console_actions`).
"""

from __future__ import annotations

from typing import cast

from controller import events as ev
from controller.engine import Phase, Table
from controller.money import from_cents
from games.blackjack.rules import RuleProfile
from display.console import ConsoleAction, ConsoleKind


def blackjack_console_event(action: ConsoleAction, table: Table) -> ev.Event | None:
    """The blackjack event a button press means now, or None when it means nothing here."""
    kind = action.kind
    if kind is ConsoleKind.STAND:
        return ev.Stand()
    if kind is ConsoleKind.DOUBLE:
        return ev.Double()
    if kind is ConsoleKind.SPLIT:
        return ev.Split()
    if kind is ConsoleKind.SURRENDER:
        return ev.Surrender(box=action.box)
    if kind is ConsoleKind.CALL_PIT:
        return ev.CallPit()
    if kind is ConsoleKind.CONTINUE:
        return ev.CloseInsurance() if table.phase is Phase.INSURANCE else None
    if kind is ConsoleKind.INSURANCE and table.round is not None:
        number = action.box
        if number is None:
            return None  # insurance needs a box: press the box's button first
        for box in table.round.boxes:
            if box.number == number:
                hand = box.hands[0]
                rules = cast(RuleProfile, table.rules)  # the registry hands this mapping blackjack's tables
                if hand.is_blackjack and rules.even_money:
                    return ev.EvenMoney(box=number)
                return ev.Insure(box=number, amount=from_cents(box.bet) / 2)  # the console insures the full half
    return None


def club21_console_event(action: ConsoleAction, table: Table) -> ev.Event | None:
    """A press at a club table (003), where the croupier is the banker and decides for every box.

    The same buttons, in the club game's words: STAND ends the box's turn, or the banker's
    drawing in his turn; DOUBLE doubles a pair, the named box's stake on a spent pack, or,
    after everyone's first card, every stake (the banker's contra; with a box selected, that
    box's recontra); SURRENDER surrenders, or folds the named box on a spent pack. There is
    no insurance. The engine refuses what the table's options do not allow (logged).
    """
    kind = action.kind
    box = action.box
    phase = table.phase
    if kind is ConsoleKind.STAND:
        return ev.BankerStand() if phase is Phase.DEALER else ev.Stand()
    if kind is ConsoleKind.DOUBLE:
        if phase is Phase.CONTRA:
            return ev.Recontra(box=box) if box is not None else ev.Contra()
        return ev.Double(box=box)  # on a spent pack the engine asks for the box (needs_box) when none is named
    if kind is ConsoleKind.SURRENDER:
        if phase is Phase.PACK_OUT:
            return ev.Fold(box=box) if box is not None else None  # fold names its box: press the box first
        return ev.Surrender(box=box)
    if kind is ConsoleKind.SPLIT:
        return ev.Split()
    if kind is ConsoleKind.CALL_PIT:
        return ev.CallPit()
    return None




def club2136_console_event(action: ConsoleAction, table: Table) -> ev.Event | None:
    """A press at a club-21-36 table, which has no doubling: DOUBLE sends the box in its duel dark (it draws
    from now on without looking); STAND ends the box's turn, or the banker's drawing in his turn."""
    kind = action.kind
    if kind is ConsoleKind.STAND:
        return ev.BankerStand() if table.phase is Phase.DEALER else ev.Stand()
    if kind is ConsoleKind.DOUBLE:
        return ev.Dark(box=action.box)
    return ev.CallPit() if kind is ConsoleKind.CALL_PIT else None
