"""The virtual shoe's firmware logic: the device side of the framed protocol, sans I/O.

What a real shoe's firmware must do, in the order docs/shoe-protocol.md gives:
number every event, keep it until the host's ACK ``stored`` covers it, send
at most ``window`` events beyond the host's ``received``, go back to the
first unreceived event when no ACK progress comes within the retransmit
timeout or a NAK asks, answer RESUME with HELLO and resend what follows the
host's stored position, send STATUS every heartbeat, and honour LOCK.
Time is passed in; randomness (unreadable cards) comes from an injected RNG.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import math
import random
from collections import deque
from dataclasses import dataclass

from firmware_bridge.wire import (
    PROTOCOL_VERSION,
    Ack,
    ButtonEvent,
    CardEvent,
    CutCardEvent,
    Event,
    FaultEvent,
    Hello,
    Lock,
    Nak,
    Resume,
    ShoeLoadedEvent,
    StatusFlags,
    StatusPacket,
    Unlock,
    WireError,
    WireFaultKind,
    decode_packet,
    encode_packet,
)
from simulators.shoe.deck import check_pack, shuffled_shoe
from simulators.shuffles import ShuffleKind, ShuffleSpec, shuffle

log = logging.getLogger(__name__)


class DealRefused(enum.Enum):
    """Why the shoe would not release a card."""

    LOCKED = "locked"
    EMPTY = "empty"
    JAMMED = "jammed"
    LID_OPEN = "lid_open"


class ShoeFault(enum.Enum):
    """Faults the dealer (or a test) can provoke."""

    JAM = "jam"
    UNREADABLE = "unreadable"
    LID_OPEN = "lid_open"


@dataclass(frozen=True, slots=True)
class ShoeConfig:
    """Fixed settings of one virtual shoe."""

    seed: int = 1
    decks: int = 6
    pack: int = 52  # cards in one pack: 52, or 36 (six to ace) for club-21-36
    # The cut card sits before card ``cut_at``: cut_at - 1 cards come out before it (docs/shoe-protocol.md 7 and 13).
    # None: drawn per shoe (seeded) so that a number of cards in ``cut_zone`` comes out before it.
    cut_at: int | None = None
    cut_zone: tuple[int, int] | None = None  # cards dealt before the cut card, least and most; None: ``default_cut_zone``
    boot_id: int = 1
    firmware: str = "sim-1.0"
    serial: str = "SIM-0001"
    heartbeat: float = 1.0
    retransmit: float = 0.5
    window: int = 32
    unreadable: float = 0.0  # probability that a released card cannot be read
    shuffle: ShuffleSpec = ShuffleSpec()  # how the dealer shuffles from the second shoe on (fair by default)


def default_cut_zone(size: int) -> tuple[int, int]:
    """ru-standard's cut card (rules.md: 200 to 220 of 312 cards dealt before it), scaled to a shoe of ``size``."""
    return max(1, round(size * 200 / 312)), max(1, round(size * 220 / 312))


@dataclass(frozen=True, slots=True)
class Released:
    """A card that left the shoe."""

    shoe_id: str
    position: int
    card: str
    unreadable: bool
    cut_card_next: bool  # the cut card came out right after this card


@dataclass(slots=True)
class _Retained:
    seq: int
    body: bytes
    key: tuple[str, int] | None  # (shoe id, position) of card events


class ShoeCore:
    """One shoe: its cards, its gate, and its side of the link."""

    def __init__(self, config: ShoeConfig, rng: random.Random, now: float) -> None:
        check_pack(config.pack)
        self.config = config
        self._rng = rng
        self.shoe_number = 0
        self.shoe_id = ""
        self.cards: list[str] = []
        self._shoes: dict[str, list[str]] = {}  # the last few shoes' cards, for ``load(keep=...)``
        self.position = 0
        self.cut_at = 0
        self.cut_card_out = False
        self.locked = False
        self.jammed = False
        self.lid_open = False
        self._force_unreadable = 0
        self._garble = False
        self._next_seq = 1
        self._retained: deque[_Retained] = deque()
        self._received = 0
        self._send_seq = 1
        self._synced = False
        self._last_progress = now
        self._last_status = -math.inf
        self._out: list[bytes] = []
        self.retransmissions = 0

    # --- the dealer's side ----------------------------------------------------

    def load(self, shoe_id: str | None = None, *, pack: int | None = None, decks: int | None = None,
             keep: list[tuple[str, int]] | None = None) -> str:
        """Load the next deterministic shuffle; emits SHOE_LOADED. Returns the shoe id.

        ``pack`` / ``decks``, if given, change what the dealer puts in the shoe from this shoe
        on (a table switched to a 36-card game); raises ValueError for a pack not 36 or 52.
        ``keep`` names cards that stay on the table, as (shoe id, position) of a recent shoe: the
        new shoe is the pack without them (club-21-36 reshuffles in the middle of a round), and
        SHOE_LOADED's card count says so. Raises ValueError for a position it never dealt.
        """
        kept = [self._card_at(shoe_id_, position) for shoe_id_, position in keep or []]
        if pack is not None or decks is not None:
            new_pack = check_pack(self.config.pack if pack is None else pack)
            new_decks = self.config.decks if decks is None else decks
            if new_decks < 1:
                raise ValueError(f"a shoe needs at least one deck, got {new_decks}")
            self.config = dataclasses.replace(self.config, pack=new_pack, decks=new_decks)
        previous, dealt = self.cards, self.cards[:self.position]
        self.shoe_number += 1
        self.shoe_id = shoe_id or f"{self.config.boot_id:08X}.{self.shoe_number}"
        cut = self._cut_for(self.config.decks * self.config.pack - len(kept))
        self.cards = self._shuffle(previous, dealt, cut - 1)
        for card in kept:
            self.cards.remove(card)  # in the shoe's order, the card stays on the table
        self._shoes[self.shoe_id] = self.cards
        while len(self._shoes) > 4:
            del self._shoes[next(iter(self._shoes))]
        self.position = 0
        self.cut_at = cut
        self.cut_card_out = False
        self._emit(ShoeLoadedEvent(self._next_seq, len(self.cards), self.shoe_id, self.config.pack))
        if cut == 1:
            self._cut_card_out()
        return self.shoe_id

    def _cut_for(self, size: int) -> int:
        """The card the new shoe's cut card sits before: ``cut_at``, or drawn (seeded by the shoe's number) so that a
        number of cards in the cut zone comes out before it."""
        if self.config.cut_at is not None:
            return self.config.cut_at
        least, most = self.config.cut_zone or default_cut_zone(size)
        rng = random.Random(f"{self.config.seed}:{self.shoe_number}:cut")
        return rng.randint(min(least, size), min(most, size)) + 1

    def _shuffle(self, previous: list[str], dealt: list[str], within: int) -> list[str]:
        """The new shoe's order: the seeded fair shuffle, or the configured bad one of the previous shoe (``within``:
        the cards dealt before its cut card, where a false slug is put).

        A bad shuffle needs the previous shoe's order, so the first shoe, a shoe after the pack or
        decks changed, and a shoe after a club reshuffle that kept cards on the table are fair. The
        shoe does not know the rounds, so its dealt order stands for the discard order a false
        slug copies (the dealt cards as the pile's bottom, the unplayed rest on top).
        """
        config = self.config
        fair = shuffled_shoe(config.seed, self.shoe_number, config.decks, config.pack)
        if config.shuffle.kind is ShuffleKind.FAIR or not dealt or sorted(previous) != sorted(fair):
            return fair
        rng = random.Random(f"{config.seed}:{self.shoe_number}:{config.shuffle}")
        return shuffle(config.shuffle, dealt + previous[len(dealt):], rng, discards=dealt, within=within)

    def _card_at(self, shoe_id: str, position: int) -> str:
        cards = self._shoes.get(shoe_id)
        shoe_position = self.position if shoe_id == self.shoe_id else len(cards or [])
        if cards is None or not 1 <= position <= shoe_position:
            raise ValueError(f"card {position} of shoe {shoe_id} has not left this shoe")
        return cards[position - 1]

    @property
    def cards_left(self) -> int:
        """Cards still in the shoe."""
        return len(self.cards) - self.position

    def refusal(self) -> DealRefused | None:
        """Why a deal would be refused right now, or None."""
        if self.locked:
            return DealRefused.LOCKED
        if self.jammed:
            return DealRefused.JAMMED
        if self.lid_open:
            return DealRefused.LID_OPEN
        if self.cards_left <= 0:
            return DealRefused.EMPTY
        return None

    def deal(self) -> Released | DealRefused:
        """Release the next card (or say why not); emits CARD, or FAULT if unreadable."""
        refused = self.refusal()
        if refused is not None:
            return refused
        self.position += 1
        card = self.cards[self.position - 1]
        unreadable = False
        if self._force_unreadable:
            self._force_unreadable -= 1
            unreadable = True
        elif self.config.unreadable and self._rng.random() < self.config.unreadable:
            unreadable = True
        if unreadable:
            kind = int(WireFaultKind.UNREADABLE)
            self._emit(FaultEvent(self._next_seq, kind, self.position, self.shoe_id, "card could not be read"))
        else:
            self._emit(CardEvent(self._next_seq, self.position, card, self.shoe_id))
        cut_next = self.position + 1 == self.cut_at and not self.cut_card_out
        if cut_next:
            self._cut_card_out()
        return Released(self.shoe_id, self.position, card, unreadable, cut_next)

    # --- firmware faults a real shoe can show (for the table's tests and a technician's demo) ----

    def skip(self, count: int) -> None:
        """The shoe's count jumps: the next ``count`` cards leave without being reported."""
        if not 1 <= count <= self.cards_left:
            raise ValueError(f"skip takes 1 to {self.cards_left} cards")
        self.position += count

    def repeat_position(self, card: str) -> None:
        """The shoe goes back: it reports its last position again, holding ``card``."""
        if self.position == 0:
            raise ValueError("no card has left this shoe yet")
        self._emit(CardEvent(self._next_seq, self.position, card, self.shoe_id))

    def garble_next(self) -> None:
        """The next card's event goes out with a good CRC but a body that does not parse."""
        self._garble = True

    def _cut_card_out(self) -> None:
        self.cut_card_out = True
        self._emit(CutCardEvent(self._next_seq, self.cut_at, self.shoe_id))

    def stack(self, wanted: list[str]) -> list[str]:
        """Put these cards next in the shoe, in this order (a stacked deck for a test or a demo).

        Each entry is a card code (``AS``) or a rank alone (``A``, ``T``: any suit); it is
        taken from the cards still in the shoe and swapped forward, so the shoe keeps its
        exact composition (nothing is seen twice). Returns the codes that will come out;
        raises ValueError, naming the entry, when the shoe has no such card left.
        """
        cards = self.cards
        placed: list[str] = []
        for i, want in enumerate(wanted):
            slot = self.position + i
            found = next((j for j in range(slot, len(cards))
                          if cards[j] == want or (len(want) == 1 and cards[j][0] == want)), None)
            if found is None:
                raise ValueError(f"no {want!r} is left in the shoe for card {i + 1} of the stack")
            cards[slot], cards[found] = cards[found], cards[slot]
            placed.append(cards[slot])
        return placed

    def press_button(self, name: str) -> None:
        """The dealer pressed one of the shoe's buttons."""
        self._emit(ButtonEvent(self._next_seq, name))

    def fault(self, kind: ShoeFault) -> None:
        """Provoke a fault: a jam or open lid stops the gate; unreadable spoils the next card."""
        if kind is ShoeFault.UNREADABLE:
            self._force_unreadable += 1
            return
        if kind is ShoeFault.JAM:
            self.jammed = True
            wire_kind, detail = WireFaultKind.JAM, "card jammed in the gate"
        else:
            self.lid_open = True
            wire_kind, detail = WireFaultKind.LID_OPEN, "shoe lid opened"
        self._emit(FaultEvent(self._next_seq, int(wire_kind), 0, self.shoe_id, detail))

    def clear_faults(self) -> None:
        """The dealer cleared the jam and closed the lid."""
        self.jammed = False
        self.lid_open = False

    @property
    def unacked(self) -> int:
        """Events the host has not yet said it stored."""
        return len(self._retained)

    @property
    def synced(self) -> bool:
        """True once a host has sent RESUME on the current connection."""
        return self._synced

    # --- the link's side ------------------------------------------------------

    def link_reset(self) -> None:
        """The cable was unplugged: send nothing but STATUS until the next RESUME."""
        self._synced = False

    def on_body(self, body: bytes, now: float) -> None:
        """Act on one good frame body from the host."""
        try:
            packet = decode_packet(body)
        except WireError as exc:
            log.debug("bad packet from host: %s", exc)
            return
        if isinstance(packet, Resume):
            self._on_resume(packet, now)
        elif isinstance(packet, Ack):
            self._on_ack(packet, now)
        elif isinstance(packet, Nak):
            self._on_nak(packet, now)
        elif isinstance(packet, (Lock, Unlock)):
            self.locked = isinstance(packet, Lock)
            self._last_status = -math.inf  # confirm at once in STATUS
        else:
            log.debug("ignoring %r from host", packet)

    def poll(self, now: float) -> list[bytes]:
        """Return the frame bodies to send now (heartbeat, retransmissions, new events)."""
        out = self._out
        self._out = []
        if now - self._last_status >= self.config.heartbeat:
            out.append(encode_packet(self._status_packet()))
            self._last_status = now
        if not self._synced or not self._retained:
            return out
        first = self._retained[0].seq
        if self._send_seq > self._received + 1 and now - self._last_progress >= self.config.retransmit:
            self._send_seq = self._received + 1
            self._last_progress = now
            self.retransmissions += 1
        self._send_seq = max(self._send_seq, first)
        if self._send_seq == self._received + 1:
            self._last_progress = now  # the retransmit clock starts with the first unreceived event
        while self._send_seq < self._next_seq and self._send_seq - self._received <= self.config.window:
            out.append(self._retained[self._send_seq - first].body)
            self._send_seq += 1
        return out

    def _status_packet(self) -> StatusPacket:
        flags = StatusFlags.NONE
        if self.locked:
            flags |= StatusFlags.LOCKED
        if self.cut_card_out:
            flags |= StatusFlags.CUT_CARD_OUT
        if self.jammed:
            flags |= StatusFlags.JAMMED
        if self.lid_open:
            flags |= StatusFlags.LID_OPEN
        return StatusPacket(
            self.config.boot_id,
            flags,
            self.position,
            min(self.cards_left, 0xFFFE),
            min(self.unacked, 0xFFFF),
            self._next_seq,
            self.shoe_id,
        )

    def _emit(self, event: Event) -> None:
        key = None
        if isinstance(event, CardEvent) or (isinstance(event, FaultEvent) and event.position):
            key = (event.shoe_id, event.position)
        body = encode_packet(event)
        if self._garble and isinstance(event, CardEvent):
            self._garble = False
            body = body[:-2]  # the shoe id's length byte now runs past the end of the frame
        self._retained.append(_Retained(event.seq, body, key))
        self._next_seq += 1

    def _on_resume(self, resume: Resume, now: float) -> None:
        key = (resume.shoe_id, resume.position)
        if resume.position and any(r.key == key for r in self._retained):
            while self._retained:
                if self._retained.popleft().key == key:
                    break
        first = self._retained[0].seq if self._retained else self._next_seq
        self._received = first - 1
        self._send_seq = first
        self._synced = True
        self._last_progress = now
        config = self.config
        self._out.append(
            encode_packet(Hello(resume.token, PROTOCOL_VERSION, config.boot_id, first, config.firmware, config.serial))
        )
        self._last_status = -math.inf

    def _on_ack(self, ack: Ack, now: float) -> None:
        top = self._next_seq - 1
        received = min(ack.received, top)
        if received > self._received:
            self._received = received
            self._last_progress = now
        stored = min(ack.stored, received)
        while self._retained and self._retained[0].seq <= stored:
            self._retained.popleft()
        self._send_seq = max(self._send_seq, self._received + 1)

    def _on_nak(self, nak: Nak, now: float) -> None:
        first = self._retained[0].seq if self._retained else self._next_seq
        if first <= nak.seq < self._send_seq:
            self._received = max(self._received, nak.seq - 1)
            self._send_seq = nak.seq
            self._last_progress = now
            self.retransmissions += 1
