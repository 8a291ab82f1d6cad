"""The shoe intake: what each message from the shoe means for the table, decided without doing it.

`intake(message, table, memory)` reads one `firmware_bridge` message (a card, a fault, the
heartbeat, the link going down or up ...) beside what the table knows (`TableSide`: its phase,
the shoe in play, the faults standing) and what the service remembers of the shoe
(`ShoeMemory`: the last card stored and what each position held, the last count reported
missing), and returns the steps that carry it out, in order: events to submit, acks to send,
cards to remember, a count to remember as reported, lines to log. It does no I/O and reads no
clock; `TableService` applies the steps (the writer alone, inside its transaction).

The shoe's heartbeat (`Status`) is read field by field (`reconcile`, `check_count`,
`cleared_faults`), so a card of a shoe the table never saw loaded asks the same questions of
the fields it implies without a heartbeat being made up for it.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import assert_never

import firmware_bridge as fb
from controller import events as ev
from controller.cards import BadCard, parse_card

UNREADABLE = "??"  # what a position held when its card could not be read (as the journal keeps it)
SHOE = "shoe"  # the actor of what the shoe said
SHOE_STATUS = "shoe status"  # the actor of what the service read from the shoe's heartbeat


@dataclass(frozen=True, slots=True)
class TableSide:
    """What the intake needs to know of the table, read just before a message is taken."""

    between_rounds: bool  # no round in play: a new shoe may be loaded
    in_round: bool  # a round is open (`table.round` is not None)
    shoe_id: str | None  # the shoe in play, if any
    shoe_spent: bool  # the shoe in play has no card left to deal
    cut_card_out: bool  # the shoe in play has shown its cut card
    has_cut_card: bool  # the game deals to a cut card (blackjack); a club pack is dealt to its bottom
    faults_active: frozenset[str] = frozenset()  # shoe fault kinds on the board with their cause standing


@dataclass(slots=True)
class ShoeMemory:
    """What the service remembers of the shoe in play: the last card event stored, what each position
    held (to tell a card sent again from a different one), and the last count reported missing."""

    stored: fb.StoredPosition | None = None
    cards: dict[int, str] = field(default_factory=dict)
    count_reported: tuple[str, int] | None = None

    def seen(self, shoe_id: str, position: int) -> bool:
        """The journal has a card event of `shoe_id` at `position` or after it."""
        s = self.stored
        return s is not None and s.shoe_id == shoe_id and position <= s.position

    def held(self, position: int) -> str | None:
        """What position `position` of the shoe in play held (a card code, or UNREADABLE), if stored."""
        return self.cards.get(position)

    def remember(self, shoe_id: str, position: int, code: str) -> None:
        """Card event `position` of `shoe_id` is journalled: it is the last stored, holding `code`."""
        if self.stored is None or self.stored.shoe_id != shoe_id:
            self.cards = {}
        self.cards.setdefault(position, card_code(code))
        self.stored = fb.StoredPosition(shoe_id, position)


# ---------------------------------------------------------------------------- the steps
@dataclass(frozen=True, slots=True)
class Submit:
    """Decide, journal and apply `event` as `actor`; a card event names its shoe and position.

    `refused` is the log line's opening when the table may refuse it (logged as a warning with the
    refusal); None for an input the table never refuses (a refusal there is a bug and stops the table).
    """

    event: ev.Event
    actor: str
    shoe_id: str | None = None
    position: int | None = None
    refused: str | None = None


@dataclass(frozen=True, slots=True)
class Ack:
    """Tell the shoe it may forget card event `position` of `shoe_id`: once the inputs before this step are
    committed, never before (`resent`: the shoe sent again what is stored already, its ack was lost: at once)."""

    shoe_id: str
    position: int
    resent: bool = False


@dataclass(frozen=True, slots=True)
class Remember:
    """Card event `position` of `shoe_id` holding `code` is the last one stored (after its Submit)."""

    shoe_id: str
    position: int
    code: str


@dataclass(frozen=True, slots=True)
class CountReported:
    """The shoe's count `believed` of shoe `shoe_id` is reported missing cards: not again for the same count."""

    shoe_id: str
    believed: int


@dataclass(frozen=True, slots=True)
class LinkState:
    """The shoe link went up or down (the health the API and displays show)."""

    up: bool


@dataclass(frozen=True, slots=True)
class SyncGate:
    """Once committed, set the shoe's gate to the table's state (after a reconnect)."""


@dataclass(frozen=True, slots=True)
class Say:
    """A line for the service's log, at `level` (logging's levels)."""

    level: int
    text: str


Step = Submit | Ack | Remember | CountReported | LinkState | SyncGate | Say


# ---------------------------------------------------------------------------- the intake
def intake(message: fb.ShoeMessage, table: TableSide, memory: ShoeMemory) -> list[Step]:
    """The steps that carry out one message from the shoe, in order (nothing is done here)."""
    match message:
        case fb.Card():
            return _card(message, table, memory)
        case fb.Status():
            caught_up: list[Step] = []
            if message.shoe_id:  # a heartbeat with no shoe loaded says nothing of shuffles or counts
                # The heartbeat's cards left, at the shoe's first card, is the count it loaded: the shuffle it
                # records carries it, so a pack of the wrong size raises what SHOE_LOADED's count raises.
                loaded = message.cards_left + message.position if message.cards_left is not None else None
                caught_up += reconcile(message.shoe_id, message.position, message.cut_card_out, table, loaded)
                caught_up += check_count(message.shoe_id, message.position, message.unacked, table, memory)
            return [*caught_up, *cleared_faults(message.jammed, message.lid_open, table)]
        case fb.LinkUp():
            return [LinkState(True), Say(logging.INFO, f"shoe link up: {message.hello}"),
                    Submit(ev.LinkUp(), SHOE), SyncGate()]
        case fb.LinkDown():
            return [LinkState(False), Say(logging.WARNING, f"shoe link down: {message.reason} ({message.detail})"),
                    Submit(ev.LinkDown(reason=message.reason), SHOE)]
        case fb.ShoeLoaded():
            if table.shoe_id == message.shoe_id:
                return []  # told again after a reconnect
            # The shoe's own count of the cards it loaded: the engine checks it against the pack.
            return [Submit(ev.Shuffle(shoe_id=message.shoe_id, card_count=message.card_count), SHOE,
                           refused=f"shoe {message.shoe_id} loaded but the table refused the shuffle")]
        case fb.CutCard():
            if table.shoe_id is not None and table.cut_card_out:
                return []
            return [Submit(ev.CutCardOut(position=message.position), SHOE)]
        case fb.Fault():
            return _fault(message, memory)
        case fb.Button():
            return [Submit(ev.CallPit(), f"shoe button {message.name}")]
        case _:
            assert_never(message)


def reconcile(shoe_id: str, position: int, cut_card_out: bool, table: TableSide,
              card_count: int | None = None) -> list[Step]:
    """Catch up from the shoe's heartbeat (its shoe, position and cut card) on a shuffle or cut card whose
    own message was lost; ``card_count``: the cards the shoe says it loaded (its cards left and dealt), which
    the shuffle carries for the engine to check against the pack, as SHOE_LOADED's count is (None: unknown).

    Only card events are held by the shoe until the journal has them; a SHOE_LOADED or CUT_CARD
    delivered just before a crash is gone, but the shoe's STATUS still says it.
    """
    if not shoe_id:  # no shoe loaded
        return []
    replaces_spent = table.shoe_id is not None and table.shoe_spent and table.in_round
    if table.shoe_id != shoe_id and position == 0 and (table.between_rounds or replaces_spent):
        return [Say(logging.INFO, f"shoe {shoe_id} is loaded (its STATUS came before, or instead of, SHOE_LOADED): "
                                  "recording the shuffle"),
                Submit(ev.Shuffle(shoe_id=shoe_id, card_count=card_count if card_count else None), SHOE_STATUS,
                       refused=f"the table refused the shuffle of shoe {shoe_id}")]
    if table.shoe_id == shoe_id and cut_card_out and not table.cut_card_out and table.has_cut_card:
        return [Say(logging.WARNING, f"the cut card of shoe {shoe_id} is out but its CUT_CARD was not journalled: "
                                     "recording it now"),
                Submit(ev.CutCardOut(), SHOE_STATUS)]
    return []


def check_count(shoe_id: str, position: int, unacked: int, table: TableSide, memory: ShoeMemory) -> list[Step]:
    """The shoe's own count (`position` released, `unacked` of them not acknowledged) against the journal's:
    cards it released that the journal lacks are missing.

    ``position - unacked`` is what the shoe believes the table has stored; more than the
    journal holds means a journal put back from a copy (or an SD card that lost its last
    writes). Journalled once for each count, so a replay shows the same alert.
    """
    believed = position - unacked
    stored = memory.stored
    if stored is not None and stored.shoe_id == shoe_id:
        missing, journalled = believed > stored.position, stored.position
    else:
        # (A shuffle this heartbeat records comes only at position 0: it never makes cards missing.)
        missing, journalled = believed > 0 and table.shoe_id != shoe_id, 0
    if not missing or (shoe_id, believed) == memory.count_reported:
        return []
    return [CountReported(shoe_id, believed),
            Say(logging.ERROR, f"the shoe counts {believed} cards of shoe {shoe_id} as stored but the journal has "
                               f"{journalled}: cards are missing"),
            Submit(ev.ShoeCount(shoe_id=shoe_id, position=position, unacked=unacked), SHOE_STATUS)]


# The shoe faults whose end the heartbeat reports (`Status.jammed`, `Status.lid_open`, in this order).
CLEARABLE_FAULTS = (fb.FaultKind.JAM.value, fb.FaultKind.LID_OPEN.value)


def cleared_faults(jammed: bool, lid_open: bool, table: TableSide) -> list[Step]:
    """The shoe's heartbeat says a jam or an open lid is gone: journal it, so the cause ends at once and
    the gate opens by itself (the alert stays on the board until a supervisor has seen it)."""
    steps: list[Step] = []
    for kind, standing in zip(CLEARABLE_FAULTS, (jammed, lid_open)):
        if not standing and kind in table.faults_active:
            steps += [Say(logging.INFO, f"shoe reports its {kind} gone"),
                      Submit(ev.ShoeFaultCleared(kind=kind), SHOE_STATUS)]  # its ShoeLock opens the gate
    return steps


def _card(msg: fb.Card, table: TableSide, memory: ShoeMemory) -> list[Step]:
    if memory.seen(msg.shoe_id, msg.position) and memory.held(msg.position) == card_code(msg.code):
        return [Ack(msg.shoe_id, msg.position, resent=True)]  # stored already: the ack was lost
    steps: list[Step] = []
    if table.shoe_id != msg.shoe_id:
        if msg.position == 1 and (table.between_rounds or (table.shoe_id is not None and table.shoe_spent)):
            # The first card of a shoe whose SHOE_LOADED was lost: the shuffle happened before it.
            steps += reconcile(msg.shoe_id, 0, False, table)
        else:  # a card of a shoe the table never saw loaded: its shuffle and first cards are missing
            steps += check_count(msg.shoe_id, msg.position - 1, 0, table, memory)
    try:
        event: ev.Event = ev.CardDrawn(card=parse_card(msg.code), position=msg.position)
    except BadCard:
        event = ev.ShoeFault(kind="bad_data", detail=f"card {msg.code!r} at position {msg.position} is not a card")
    return [*steps, Submit(event, SHOE, shoe_id=msg.shoe_id, position=msg.position),
            Remember(msg.shoe_id, msg.position, msg.code), Ack(msg.shoe_id, msg.position)]  # never before its commit


def _fault(msg: fb.Fault, memory: ShoeMemory) -> list[Step]:
    if msg.position is None:  # a fault that is not a card event (a jam, an open lid)
        return [Submit(ev.ShoeFault(kind=msg.kind.value, detail=msg.detail or None), SHOE)]
    if memory.seen(msg.shoe_id, msg.position) and memory.held(msg.position) == UNREADABLE:
        return [Ack(msg.shoe_id, msg.position, resent=True)]
    return [Submit(ev.ShoeFault(kind=msg.kind.value, detail=f"{msg.detail} (card {msg.position})"), SHOE,
                   shoe_id=msg.shoe_id, position=msg.position),
            Remember(msg.shoe_id, msg.position, UNREADABLE), Ack(msg.shoe_id, msg.position)]


def card_code(code: str) -> str:
    """A card code as the journal writes it ('10H' is 'TH'); an unreadable one as it came."""
    try:
        return parse_card(code).code
    except BadCard:
        return code


def codes(bodies: dict[int, str]) -> dict[int, str]:
    """Position -> card code of a shoe's journalled card events, given their JSON bodies ('??' for a card
    that could not be read)."""
    out = {}
    for position, body in bodies.items():
        data = json.loads(body)
        out[position] = data.get("card", UNREADABLE) if data.get("type") == "card" else UNREADABLE
    return out
