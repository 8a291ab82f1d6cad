"""The virtual dealer on a club table, its I/O edge replaced by an engine and a shoe in memory.

`VirtualDealer` talks HTTP to the API and JSON lines to the shoe's control socket; here both are
answered in memory (the API's view is the dealer key's: ``reveal_closed=False``), so the test
checks what the dealer sends, and that it loads the shoe with the table's packs.
"""

from __future__ import annotations

import json
from typing import Any

from controller import events as ev
from controller.cards import parse_card
from controller.engine import IllegalAction, Table
from controller.event_codec import parse_event
from controller.rules import build_rules
from controller.view import table_view
from simulators.shoe.deck import shuffled_shoe
from simulators.virtual_dealer import VirtualDealer


class InMemoryCroupier(VirtualDealer):
    """The virtual dealer with the API and the shoe in memory: what it sends goes to an engine."""

    def __init__(self, profile: str, options: dict[str, Any], shoe_pack: int = 52, shoe_decks: int = 6,
                 supervisor_key: str | None = None) -> None:
        super().__init__("http://memory", "dealer-key", "/nowhere", seed=11, max_boxes=3,
                         supervisor_key=supervisor_key)
        self.supervised: list[dict[str, Any]] = []
        self.rules = build_rules(profile, options)
        self.engine = Table(self.rules)
        self.sent: list[dict[str, Any]] = []
        self.shoe_calls: list[dict[str, Any]] = []
        self.seq = 0
        self.shoe_number = 0
        self.pack, self.decks = shoe_pack, shoe_decks
        self.cards: list[str] = []
        self.position = 0
        self.loaded: list[int] = []  # card_count of every shuffle the table heard
        self.previous: list[str] = []
        self._load()  # the shoe comes up with its own packs, as shoe-sim does at start

    def _load(self, keep: list[list[Any]] | None = None) -> None:
        shoe_id = f"M.{self.shoe_number}"
        self.shoe_number += 1
        self.cards = shuffled_shoe(11, self.shoe_number, self.decks, self.pack)
        for _, position in keep or []:  # what the dealer says is on the table stays there
            self.cards.remove(self.previous[position - 1])
        self.previous = list(self.cards)
        assert all(k[0] == shoe_id for k in keep or [])
        self.position = 0
        try:  # what the service does with SHOE_LOADED: the engine's shuffle, with the shoe's count
            self.engine.apply(ev.Shuffle(shoe_id=f"M.{self.shoe_number}", card_count=len(self.cards)))
            self.loaded.append(len(self.cards))
        except IllegalAction:
            pass
        self.seq += 1

    def _http(self, method: str, path: str, body: dict[str, Any] | None = None,
              key: str | None = None) -> tuple[int, Any]:
        if (method, path) == ("POST", "/api/actions"):  # only the pit's actions come this way
            assert key == self.supervisor_key and body is not None and body["type"] in ("open_bank", "close_bank")
            self.supervised.append(body)
            self.engine.apply(parse_event(body))
            self.seq += 1
            return 200, {}
        assert (method, path) == ("GET", "/api/rules"), (method, path)
        return 200, json.loads(json.dumps({"profile": self.rules.name, "options": self.rules.options()}, default=str))

    def table(self) -> dict[str, Any]:
        view = table_view(self.engine, reveal_closed=False)
        view["last_seq"] = self.seq
        return view

    def act(self, event: dict[str, Any]) -> bool:
        self.sent.append(event)
        self.engine.apply(parse_event(event))  # a refusal raises: the test fails
        self.seq += 1
        return True

    def _shoe(self, cmd: str, **fields: Any) -> dict[str, Any]:
        self.shoe_calls.append({"cmd": cmd, **fields})
        if cmd == "status":
            return {"ok": True, "shoe_id": f"M.{self.shoe_number}", "position": self.position, "unacked": 0,
                    "pack": self.pack, "decks": self.decks, "connected": True}
        if cmd == "shuffle":
            self.pack, self.decks = fields.get("pack", self.pack), fields.get("decks", self.decks)
            self._load(fields.get("keep"))
            return {"ok": True}
        assert cmd == "deal"
        card = self.cards[self.position]
        self.position += 1
        self.engine.apply(ev.CardDrawn(card=parse_card(card)))
        self.seq += 1
        return {"ok": True, "card": card, "position": self.position, "shoe_id": f"M.{self.shoe_number}"}

    def _sleep(self, seconds: float) -> None:
        raise AssertionError(f"the dealer waited in memory, phase {self.engine.phase.value}")


def test_the_virtual_dealer_plays_club_rounds_through_its_edge() -> None:
    dealer = InMemoryCroupier("club-21", {})
    dealer.run(40)
    assert dealer.engine.rounds_played >= 40 and dealer.stats.refused == 0
    kinds = {e["type"] for e in dealer.sent}
    assert {"bet", "stand", "banker_stand"} <= kinds
    assert kinds <= {"bet", "stand", "banker_stand", "double", "fold"}


def test_it_loads_the_shoe_with_the_tables_packs() -> None:
    dealer = InMemoryCroupier("club-21", {"pack": 36, "decks": 1}, shoe_pack=52, shoe_decks=6)
    dealer.run(10)
    loads = [c for c in dealer.shoe_calls if c["cmd"] == "shuffle"]
    assert loads and all((c["pack"], c["decks"]) == (36, 1) for c in loads)
    assert dealer.loaded[0] == 312 and set(dealer.loaded[1:]) == {36}  # the shoe's own first load was replaced
    assert dealer.engine.shoe is not None and dealer.engine.shoe.shoe_id != "M.1"


def test_on_a_spent_pack_it_sends_double_or_fold_with_the_box() -> None:
    dealer = InMemoryCroupier("club-21", {"decks": 1}, shoe_pack=52, shoe_decks=1)
    dealer.run(150)  # the pack runs out only when a box in turn still wants a card: rarer than a spent pack
    choices = [e for e in dealer.sent if e["type"] in ("double", "fold")]
    assert choices and all(isinstance(e["box"], int) for e in choices)


def test_club_21_36_with_the_pit_key_opens_and_closes_banks_and_goes_dark() -> None:
    dealer = InMemoryCroupier("club-21-36", {}, shoe_pack=36, shoe_decks=1, supervisor_key="pit-key")
    dealer.run(30)
    assert dealer.engine.rounds_played >= 30 and dealer.stats.refused == 0
    assert {e["type"] for e in dealer.supervised} == {"open_bank", "close_bank"}
    kinds = {e["type"] for e in dealer.sent}
    assert {"bet", "dark", "stand", "banker_stand"} <= kinds and kinds <= {"bet", "dark", "stand", "banker_stand"}
    assert any(n < 36 for n in dealer.loaded)  # a pack reloaded in a round, without the table's cards
    assert not [a for a in dealer.engine.alerts if a.kind.value == "integrity"]


def test_without_the_pit_key_it_waits_for_the_bank() -> None:
    dealer = InMemoryCroupier("club-21-36", {}, shoe_pack=36, shoe_decks=1)
    waited: list[float] = []

    def sleep(seconds: float) -> None:
        waited.append(seconds)
        raise StopIteration

    dealer._sleep = sleep  # type: ignore[method-assign]
    try:
        dealer.step(dealer.table())
    except StopIteration:
        pass
    assert waited and not dealer.sent and not dealer.supervised and not dealer.engine.game_state.open
