"""The live watch: the table's own protection, fed card by card while the shoe is dealt.

`ShoeWatch` keeps the shoe in play and the one before it (a `ShoeBook` trimmed to the last two,
so a table that runs for months holds two shoes, not all of them) and a `SlugWatch` of the shoe in
play against the previous one. The engine feeds it what it placed and returns its findings as alerts:

* ``card``: a `SlugAlarm` on the card that makes a run reach its threshold, while the slug is dealt
  (only the shoe's first: one slug is one alarm), held while a closed card lies on the table (an
  alarm then would tell whoever kept the previous shoe's order what the closed card is);
* ``shuffle``: a `WeakShuffle` notice for the shoe that just ended, when its order is unlikely after
  a fair shuffle (judged only once it dealt a whole pack: fewer cards say too little).

Its state is plain data (`state` / `from_state`), saved in the table's snapshot; the slug watch
itself is rebuilt from the cards, which is cheaper to keep than its runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from controller.cards import Card, parse_card
from controller.protection.discards import PickUp
from controller.protection.findings import Finding, Key, Order, SlugAlarm
from controller.protection.shoes import ShoeBook, ShoeCards, previous_orders, score
from controller.protection.slug import SlugThresholds, SlugWatch


@dataclass(frozen=True, slots=True)
class WatchSettings:
    """The live watch's settings: the slug thresholds and how the dealer picks the cards up (docs/protection.md)."""

    thresholds: SlugThresholds = field(default_factory=SlugThresholds)
    pick_up: PickUp = PickUp.THIRD_BASE_FIRST


class ShoeWatch:
    """One table's live protection (see the module's docstring). ``keep``: shoes kept, None for all (a report)."""

    def __init__(self, settings: WatchSettings | None = None, keep: int | None = 2) -> None:
        self.settings = settings or WatchSettings()
        self.keep = keep
        self.book = ShoeBook()
        self._slug: SlugWatch | None = None
        # Alarms raised while a closed card lay on the table, held until none does: an alarm at that
        # moment would tell whoever kept the previous shoe's order what the closed card is.
        self.held: list[SlugAlarm] = []
        # One alarm per shoe on the table: the same slug reaching the rank and value thresholds a few
        # cards later is the same finding (the report lists every key's alarm).
        self._rung = False

    # ------------------------------------------------------------------ fed by the engine, in order
    def shuffle(self, shoe: str, at: datetime | None, *, decks: int, pack: int, cut_card_at: int) -> list[Finding]:
        """A new shoe is in play: the finding on the shoe that ended, if any; the new shoe is watched."""
        found: list[Finding] = []
        if self.book.shoes and not self.book.shoes[-1].rounds and len(self.book.shoes[-1].dealt) == len(
                self.book.shoes[-1].burnt):
            self.book.shoes.pop()  # shuffled again before a round: the shoe to compare with is still the one before
        elif self.book.shoes:
            ended = self.book.shoes[-1]
            before = self.book.shoes[-2] if len(self.book.shoes) > 1 else None
            if len(ended.dealt) >= ended.pack:
                weak = score(ended, before, self.settings.pick_up).finding()
                if weak is not None:
                    found.append(weak)
        self.book.shuffle(shoe, at, decks=decks, pack=pack, cut_card_at=cut_card_at)
        self._rung = False
        if self.keep is not None:
            del self.book.shoes[:-self.keep]
        self._watch_new_shoe()
        return found

    def card(self, card: Card, to: str, box: int | None = None, hand: int | None = None) -> None:
        """The table placed a card read from the shoe; an alarm it raises waits in `held` for `release`."""
        if not self.book.shoes:
            return
        self.book.card(card, to, box, hand)
        if self._slug is not None:
            alarms = self._slug.push(card)
            if alarms and not self._rung:
                self.held.append(alarms[0])
                self._rung = True

    def release(self) -> list[SlugAlarm]:
        """The held alarms, to raise now (the caller knows no card on the table is closed)."""
        alarms, self.held = self.held, []
        return alarms

    def cut_card(self, position: int | None) -> None:
        """The cut card came out."""
        self.book.cut_card(position)

    def round_settled(self) -> None:
        """A round ended: its hands go to the discard tray."""
        self.book.round_settled()

    # ------------------------------------------------------------------ state, saved explicitly
    def state(self) -> dict[str, Any]:
        """The watch as plain data (cards as codes), for the table's snapshot."""
        hands, dealer = self.book.open_round()
        return {
            "shoes": [_shoe_out(s) for s in self.book.shoes],
            "hands": [{"box": box, "hand": hand, "cards": [c.code for c in cards]} for (box, hand), cards in hands.items()],
            "dealer": [c.code for c in dealer],
            "held": [{"key": a.key.value, "reference": a.order.gathered, "turned": a.order.turned,
                      "split_as_played": a.order.split_as_played, "length": a.length,
                      "new_start": a.new_start, "previous_start": a.previous_start, "at_card": a.at_card}
                     for a in self.held],
        }

    @classmethod
    def from_state(cls, data: dict[str, Any], settings: WatchSettings | None = None,
                   keep: int | None = 2) -> ShoeWatch:
        """A watch from `state`'s data (already validated by the snapshot's model); its alarms are not raised again."""
        watch = cls(settings, keep)
        watch.book.shoes = [_shoe_in(s) for s in data["shoes"]]
        watch.book.restore_round({(h["box"], h["hand"]): [parse_card(c) for c in h["cards"]] for h in data["hands"]},
                                 [parse_card(c) for c in data["dealer"]])
        watch._watch_new_shoe()
        if watch._slug is not None:
            for card in watch.book.shoes[-1].dealt:
                watch._slug.push(card)  # the alarms it raised are on the board already, or held below
            watch._rung = bool(watch._slug.summary().alarms)
        watch.held = [SlugAlarm(Key(a["key"]), _order(a, watch.settings.pick_up), a["length"], a["new_start"],
                                a["previous_start"], a["at_card"]) for a in data["held"]]
        return watch

    # ------------------------------------------------------------------ inside
    def _watch_new_shoe(self) -> None:
        shoes = self.book.shoes
        if len(shoes) < 2:
            self._slug = None  # the table's first shoe: nothing to compare with
            return
        self._slug = SlugWatch(previous_orders(shoes[-2]), thresholds=self.settings.thresholds, pack=shoes[-1].pack)


def _order(held: dict[str, Any], pick_up: PickUp) -> Order:
    """A held alarm's order from the snapshot; an older build's ``discards`` was the table's own pick-up."""
    gathered = held["reference"]
    return Order(pick_up.value if gathered == "discards" else gathered, bool(held.get("turned", False)),
                 bool(held.get("split_as_played", False)))


def _shoe_out(s: ShoeCards) -> dict[str, Any]:
    return {
        "shoe": s.shoe, "shuffled_at": s.shuffled_at.isoformat() if s.shuffled_at else None, "decks": s.decks,
        "pack": s.pack, "cut_card_at": s.cut_card_at, "dealt": [c.code for c in s.dealt],
        "burnt": [c.code for c in s.burnt], "bottom": s.bottom.code if s.bottom else None,
        "rounds": [[[c.code for c in hand] for hand in hands] for hands in s.rounds], "boxes": s.boxes,
        "round_ends": list(s.round_ends), "cut_card_out": s.cut_card_out,
    }


def _shoe_in(d: dict[str, Any]) -> ShoeCards:
    return ShoeCards(
        d["shoe"], datetime.fromisoformat(d["shuffled_at"]) if d["shuffled_at"] else None, d["decks"], d["pack"],
        d["cut_card_at"], [parse_card(c) for c in d["dealt"]], [parse_card(c) for c in d["burnt"]],
        parse_card(d["bottom"]) if d["bottom"] else None,
        [[[parse_card(c) for c in hand] for hand in hands] for hands in d["rounds"]],
        [list(b) for b in d.get("boxes") or []], list(d["round_ends"]), d["cut_card_out"])
