"""Random but plausible play on a Table, for the property tests (see tests/engine/test_properties.py).

A session drives a ``Table`` with a real shuffled shoe (``decks`` copies of the pack's cards,
shuffled by ``random.Random`` with a drawn seed, and shuffled again whenever the table takes a
Shuffle): bets on random boxes, then at each step one of the game's events (blackjack: the next
card, stand, double, split, surrender with or without a box, insurance or even money on random
boxes with random amounts, close insurance, cut card, shuffle, bet, discard card or void round;
the club games: the banker's stand, contra and recontra, a box's double or fold on a spent pack,
dark, a raised stake, the bank opened and closed, withdraw). One step in six is picked blindly,
whatever the phase, so many actions are illegal where they stand; the others are what a dealer
would plausibly do in that phase, so rounds get dealt, played and settled.

The cases are every built-in profile, and ``club-21+variants``: club-21 with one 36-card pack
and every variant on (pairs, contra, two aces split, surrender), so the pack runs out in play.

Every step also checks that ``Table.refusal`` agrees with ``Table.apply`` and that a card is
never refused.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, note, settings
from hypothesis import strategies as st

from controller import events as ev
from games.blackjack.events import CloseInsurance, EvenMoney, Insure
from games.club.events import BankerStand, Fold, Withdraw
from games.club_21.events import Contra, Recontra
from games.club_21_36.events import CloseBank, Dark, OpenBank
from controller.cards import ALL_CARDS, Card
from controller.effects import CardPlaced, Effect, RoundSettled
from controller.engine import IllegalAction, Phase, Table
from controller.event_codec import dump_event
from controller.rules import build_rules, profiles as profiles_of

# A case is a profile and options: every built-in profile, and club-21 with every variant on.
# The games this driver plays (GAME_PLAY below): another registered game is swept by the conformance suite and its
# own folder's tests, so a new game's registry line changes nothing here.
DRIVEN_GAMES = ("blackjack", "club-21", "club-21-36")
CASES: dict[str, tuple[str, dict[str, Any]]] = {name: (name, {}) for game in DRIVEN_GAMES
                                                for name in profiles_of(game)}
CASES["club-21+variants"] = ("club-21", {"decks": 1, "pack": 36, "pairs": True, "contra": True, "two_aces_split": True,
                                         "surrender": True})
PROFILE_NAMES = sorted(CASES)
BLACKJACK_CASES = sorted(profiles_of("blackjack"))
CLUB_CASES = sorted(c for c in CASES if c not in BLACKJACK_CASES)

# Small sessions, many of them: the whole file stays well under 20 s.
SESSION_SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MAX_STEPS = 100

ACTIONS = ("card", "stand", "double", "split", "surrender", "insure", "even_money",
           "close_insurance", "cut_card", "shuffle", "bet", "discard_card", "void_round")

# What a dealer would plausibly do in each phase (the blind steps ignore this).
PLAUSIBLE: dict[Phase, tuple[str, ...]] = {
    Phase.WAITING_FOR_SHUFFLE: ("shuffle", "shuffle", "shuffle", "bet"),
    Phase.BETTING: ("bet", "bet", "shuffle", "cut_card"),  # no bets yet
    Phase.SETTLED: ("bet", "card"),
    Phase.DEALING: ("card",),
    Phase.INSURANCE: ("close_insurance", "insure", "insure", "even_money"),
    Phase.SURRENDER: ("card", "surrender", "surrender", "stand", "double", "split"),
    Phase.PLAYERS: ("card", "card", "stand", "stand", "double", "split", "surrender"),
    Phase.DEALER: ("card",),
    # A held card waits for the supervisor; meanwhile another card or the cut card may come out.
    Phase.ATTENTION: ("discard_card", "discard_card", "void_round", "card", "cut_card"),
}
BETTING_WITH_BETS = ("card", "card", "card", "bet", "shuffle", "cut_card")

# The club games' own: what a croupier, who is the banker, plausibly does in each phase.
CLUB21_ACTIONS = ("card", "stand", "double", "double_box", "split", "surrender", "fold", "banker_stand", "contra",
                  "recontra", "withdraw", "cut_card", "shuffle", "bet", "discard_card", "void_round")
CLUB21_PLAUSIBLE: dict[Phase, tuple[str, ...]] = {
    Phase.WAITING_FOR_SHUFFLE: ("shuffle", "shuffle", "shuffle", "bet"),
    Phase.BETTING: ("bet", "bet", "card"),  # the pack is dealt down to its bottom card: no shuffle before
    Phase.SETTLED: ("bet", "card"),
    Phase.DEALING: ("card",) * 15 + ("withdraw",),
    Phase.CONTRA: ("contra", "recontra", "recontra", "card", "card"),
    Phase.PLAYERS: ("card", "card", "card", "stand", "stand", "stand", "split", "double", "surrender") * 2
    + ("withdraw",),
    Phase.DEALER: ("card", "card", "banker_stand"),
    Phase.PACK_OUT: ("double_box", "fold", "double_box", "withdraw"),
    Phase.ATTENTION: ("discard_card", "discard_card", "void_round", "card", "cut_card"),
}
CLUB36_ACTIONS = ("card", "stand", "dark", "raise", "banker_stand", "open_bank", "close_bank", "withdraw",
                  "cut_card", "shuffle", "bet", "discard_card", "void_round")
CLUB36_PLAUSIBLE: dict[Phase, tuple[str, ...]] = {
    Phase.WAITING_FOR_SHUFFLE: ("shuffle", "shuffle", "shuffle", "open_bank", "bet"),
    Phase.BETTING: ("open_bank", "bet", "bet", "close_bank", "card"),
    Phase.SETTLED: ("bet", "card", "close_bank"),
    Phase.DEALING: ("card",) * 15 + ("withdraw",),
    Phase.PLAYERS: ("card", "card", "stand", "stand", "dark", "raise") * 2 + ("withdraw",),
    Phase.DEALER: ("card", "card", "banker_stand"),
    Phase.ATTENTION: ("discard_card", "discard_card", "void_round", "card", "cut_card"),
}
GAME_PLAY = {
    "blackjack": (ACTIONS, PLAUSIBLE),
    "club-21": (CLUB21_ACTIONS, CLUB21_PLAUSIBLE),
    "club-21-36": (CLUB36_ACTIONS, CLUB36_PLAUSIBLE),
}
# The world's events, in sessions with ``world=True``: reservations, the clock, the shoe and the
# link, the pit, acknowledgements and rule changes (each event then carries a time).
WORLD = ("reserve", "reserve", "tick", "tick", "shoe_fault", "link_down", "link_up", "call_pit",
         "ack_alert", "ack_alert", "rules")
# Seconds the clock moves between two events: mostly little, now and then past a reservation.
CLOCK_STEPS = (0, 1, 1, 30, 200, 1300)
START = datetime(2026, 11, 30, 20, 0, tzinfo=timezone.utc)


# ---------------------------------------------------------------------------- choices
class OutOfChoices(Exception):
    """The drawn choices are used up: the session ends there."""


class Chooser:
    """Where the driver's choices come from: a list of words drawn by hypothesis, or a Random.

    One ``st.lists`` draw per example keeps hypothesis's overhead low (a draw per decision
    costs more than the engine), and it still shrinks well: deleting words deletes steps.
    """

    def __init__(self, words: list[int] | None = None, rng: random.Random | None = None) -> None:
        self.words = iter(words) if words is not None else None
        self.rng = rng

    def _word(self) -> int:
        if self.words is None:
            return self.rng.getrandbits(16)  # type: ignore[union-attr]
        try:
            return next(self.words)
        except StopIteration:
            raise OutOfChoices from None

    def one(self, options: tuple | list) -> Any:
        return options[self._word() % len(options)]

    def int(self, lo: int, hi: int) -> int:
        return lo + self._word() % (hi - lo + 1)


# ---------------------------------------------------------------------------- state snapshot
def snapshot(table: Table) -> dict[str, Any]:
    """The table's whole state, for == comparisons: its own explicit snapshot."""
    return table.snapshot()


def diff(a: Any, b: Any, path: str = "table") -> str:
    """Where two snapshots first differ (for assertion messages)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if a.get(key) != b.get(key):
                return diff(a.get(key), b.get(key), f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return diff(x, y, f"{path}[{i}]")
    return f"{path}: {a!r} != {b!r}"


# ---------------------------------------------------------------------------- the session driver
@dataclass(repr=False)
class Session:
    """One table driven through random play; records what happened for the checks."""

    profile: str
    seed: int
    choose: Chooser
    check_illegal: bool = False  # snapshot around every person's action (costs time)
    world: bool = False  # also the world's events (WORLD), and a time on every event
    on_step: Callable[["Session", ev.Event, list[Effect] | None], None] | None = None
    before_step: Callable[["Session", ev.Event], Any] | None = None

    def __post_init__(self) -> None:
        self.case = self.profile
        self.profile, self.options = CASES.get(self.case, (self.case, {}))
        self.rules = build_rules(self.profile, self.options)
        self.game = self.rules.game
        self.actions, self.plausible = GAME_PLAY[self.game]
        self.table = Table(self.rules)
        self.rng = random.Random(self.seed)
        self.shoe: list[Card] = []
        self._new_shoe()
        self.shuffles = 0
        self.attempted: list[ev.Event] = []  # every event tried, in order
        self.accepted: list[ev.Event] = []  # those the table took
        self.illegal: list[tuple[int, ev.Event, str]] = []  # (attempt index, event, code)
        self.rounds: list[dict[str, Any]] = []  # RoundSettled results, in order
        self.round_bets: list[dict[int, Decimal]] = []  # each settled round's box bets (model)
        # An independent model of the bets: what the accepted PlaceBets put on each box.
        self.pending: dict[int, Decimal] = {}
        self.in_play_bets: dict[int, Decimal] | None = None
        self.clock = START

    # -- the physical shoe
    def _new_shoe(self) -> None:
        ranks = "A6789TJQK" if self.rules.pack == 36 else "A23456789TJQK"
        shoe = [c for _ in range(self.rules.decks) for c in ALL_CARDS if c.rank in ranks]
        table = getattr(self, "table", None)
        if table is not None and table.round is not None:
            for card in table.game.cards_in_play(table):  # still on the table: not in the pack shuffled now
                shoe.remove(card)
        self.shoe = shoe
        self.rng.shuffle(self.shoe)

    # -- making events
    def _amount_for_bet(self) -> Decimal:
        lo, hi = self.rules.table_min, self.rules.table_max
        if self.game == "club-21-36":  # the bank binds: at most what it holds
            hi = max(lo, min(hi, Decimal(self.table.game_state.balance) / 100))
        how = self.choose.int(0, 5)
        if how == 0:
            return lo
        if how == 1:
            return hi
        if how == 2:  # often illegal: under the minimum, over the maximum, or not whole chips
            return self.choose.one((lo / 2, hi + 1, hi * 2, Decimal("0.5"), lo + Decimal("0.35")))
        return Decimal(self.choose.int(int(lo), int(hi)))

    def _amount_for_insurance(self, box: int) -> Decimal:
        r = self.table.round
        cents = next((b.bet for b in r.boxes if b.number == box), None) if r else None
        bet = Decimal(cents) / 100 if cents is not None else None
        how = self.choose.int(0, 4)
        if bet is not None and how <= 2:  # exactly half (all some tables take), or less
            return bet / 2 if how <= 1 else max(Decimal("0.5"), (bet / 4).quantize(Decimal("0.5")))
        if bet is not None and how == 3:
            return bet / 2 + Decimal("0.5")  # just over the limit
        return Decimal(self.choose.int(1, 2400)) / 2

    def _box_number(self) -> int:
        """A box number: usually one with a bet in the round, sometimes any (1..9, some absent)."""
        r = self.table.round
        if r is not None and self.choose.int(0, 3):
            return self.choose.one(tuple(b.number for b in r.boxes))
        return self.choose.int(1, 9)

    def make_event(self, kind: str) -> ev.Event | None:
        if kind == "card":
            if not self.shoe:
                return None  # the physical shoe is empty
            return ev.CardDrawn(card=self.shoe.pop())
        if kind == "stand":
            return ev.Stand()
        if kind == "double":
            return ev.Double()
        if kind == "double_box":
            return ev.Double(box=self._box_number())
        if kind == "fold":
            return Fold(box=self._box_number())
        if kind == "recontra":
            return Recontra(box=self._box_number())
        if kind == "withdraw":
            return Withdraw(box=self._box_number(), actor="sup")
        if kind == "banker_stand":
            return BankerStand()
        if kind == "contra":
            return Contra()
        if kind == "dark":
            return Dark(box=None if self.choose.int(0, 2) else self._box_number())
        if kind == "raise":
            r = self.table.round
            box = r.boxes[min(r.box_i, len(r.boxes) - 1)].number if r is not None and self.choose.int(0, 3) \
                else self._box_number()
            return ev.PlaceBet(box=box, amount=self._amount_for_bet() / self.choose.one((1, 2, 4, 10)))
        if kind == "open_bank":
            lo, hi = self.rules.bank_min, self.rules.bank_max
            how = self.choose.int(0, 5)
            amount = (lo, hi, lo / 2, hi + 1, lo + Decimal("0.5"))[how] if how < 5 else \
                Decimal(self.choose.int(int(lo), int(hi)))
            return OpenBank(amount=amount)
        if kind == "close_bank":
            return CloseBank()
        if kind == "split":
            return ev.Split()
        if kind == "surrender":
            return ev.Surrender(box=None if self.choose.int(0, 1) else self._box_number())
        if kind == "insure":
            box = self._box_number()
            return Insure(box=box, amount=self._amount_for_insurance(box))
        if kind == "even_money":
            return EvenMoney(box=self._box_number())
        if kind == "close_insurance":
            return CloseInsurance()
        if kind == "cut_card":
            return ev.CutCardOut()
        if kind == "shuffle":
            self.shuffles += 1
            return ev.Shuffle(shoe_id=f"s{self.shuffles}")
        if kind == "bet":
            boxes = self.rules.boxes
            box = self.choose.int(1, boxes) if self.choose.int(0, 5) else self.choose.int(1, 9)
            player = None if self.choose.int(0, 3) else self.choose.one(("ann", "bob", "cid", "dan"))
            return ev.PlaceBet(box=box, amount=self._amount_for_bet(), player=player)
        if kind == "reserve":
            box = self.choose.int(1, self.rules.boxes) if self.choose.int(0, 5) else self.choose.int(1, 9)
            return ev.Reserve(box=box, player=self.choose.one((None, "ann", "bob", "eve")))
        if kind == "tick":
            return ev.Tick()
        if kind == "shoe_fault":
            return ev.ShoeFault(kind=self.choose.one(("jam", "lid_open")), detail=self.choose.one((None, "x")))
        if kind == "link_down":
            return ev.LinkDown(reason=self.choose.one((None, "timeout")))
        if kind == "link_up":
            return ev.LinkUp()
        if kind == "call_pit":
            return ev.CallPit(actor=self.choose.one((None, "dealer")))
        if kind == "ack_alert":
            ids = [a.id for a in self.table.alerts] or [1]
            alert_id = self.choose.one(ids) if self.choose.int(0, 4) else self.choose.int(1, 30)
            return ev.AcknowledgeAlert(alert_id=alert_id, actor="sup")
        if kind == "rules":
            if self.game == "club-21":
                return ev.SetRules(profile=self.profile, options={
                    **self.options, "ties": self.choose.one(("push", "banker")),
                    "banker_stands_on": self.choose.one((None, 17, 19))})
            if self.game == "club-21-36":
                return ev.SetRules(profile=self.profile, options={
                    **self.options, "dark_both_bust": self.choose.one(("player", "banker"))})
            return ev.SetRules(profile=self.profile, options={
                "burn_cards": self.choose.int(0, 2), "dealer_hits_soft17": bool(self.choose.int(0, 1))})
        if kind == "discard_card":
            return ev.DiscardCard()
        if kind == "void_round":
            return ev.VoidRound()
        raise AssertionError(kind)

    # -- running
    def run(self, steps: int) -> None:
        try:
            for _ in range(steps):
                self._one_step()
        except OutOfChoices:
            pass

    def _one_step(self) -> None:
        phase = self.table.phase
        if self.world and self.choose.int(0, 6) == 6:
            kind = self.choose.one(WORLD)
        elif self.choose.int(0, 5) == 5:  # blind: any action, whatever the phase
            kind = self.choose.one(self.actions)
        elif phase is Phase.BETTING and self.table.pending:
            kind = self.choose.one(BETTING_WITH_BETS if self.game == "blackjack" else ("card", "bet"))
        elif phase is Phase.PLAYERS and self.game == "club-21" and not self.shoe:
            # The pack is spent (club-21): the box in turn stands, or asks for a card (double or fold: the
            # run-out begins), or a card is read (held).
            kind = self.choose.one(("stand", "double", "fold", "double_box", "card"))
        else:
            kind = self.choose.one(self.plausible[phase])
        event = self.make_event(kind)
        if event is not None:
            if self.world:
                self.clock += timedelta(seconds=self.choose.one(CLOCK_STEPS))
                event.at = self.clock
            self.step(event)

    def step(self, event: ev.Event) -> None:
        t = self.table
        index = len(self.attempted)
        self.attempted.append(event)
        had_round = t.round is not None
        if self.before_step:
            self.before_step(self, event)
        if isinstance(event, ev.CardDrawn):
            phase = t.phase
            assert t.refusal(event) is None, f"refusal() refuses a card in phase {phase.value}"
            try:
                fx = t.apply(event)
            except Exception as exc:  # property 5: a card is physical and never refused
                raise AssertionError(
                    f"card {event.card.code} refused in phase {phase.value}: {exc!r}") from exc
        else:
            before = snapshot(t) if self.check_illegal else None
            refusal = t.refusal(event)
            if before is not None:
                after = snapshot(t)
                assert after == before, f"refusal() on {dump_event(event)} changed the state: {diff(before, after)}"
            try:
                fx = t.apply(event)
            except IllegalAction as exc:
                assert refusal == exc.refusal, (
                    f"apply() refused {dump_event(event)} with {exc.refusal}, refusal() said {refusal}")
                self.illegal.append((index, event, exc.code))
                if before is not None:
                    after = snapshot(t)
                    assert after == before, (
                        f"IllegalAction {exc.code!r} on {dump_event(event)} changed the state: "
                        f"{diff(before, after)}")
                if self.on_step:
                    self.on_step(self, event, None)
                return
            assert refusal is None, f"refusal() said {refusal} but apply() accepted {dump_event(event)}"
        self.accepted.append(event)
        if isinstance(event, ev.Shuffle):
            self._new_shoe()  # the real shoe is shuffled too: every card is back in it
        self._model(event, fx, had_round)
        if self.on_step:
            self.on_step(self, event, fx)

    def _model(self, event: ev.Event, fx: list[Effect], had_round: bool) -> None:
        """Keep the independent bet model and the settled rounds up to date."""
        if isinstance(event, ev.PlaceBet):
            self.pending[event.box] = self.pending.get(event.box, Decimal(0)) + event.amount
        if isinstance(event, ev.VoidRound) and not had_round:
            self.pending = {}
        if isinstance(event, ev.CardDrawn) and not had_round and any(
                type(f) is CardPlaced and f.to in ("box", "dealer") for f in fx):
            self.in_play_bets, self.pending = self.pending, {}
        for f in fx:
            if type(f) is RoundSettled:
                self.rounds.append(f.result)
                self.round_bets.append(self.in_play_bets or {})
                self.in_play_bets = None

    def session_lines(self, events: list[ev.Event] | None = None) -> list[str]:
        """The session file: a rules line, then the events."""
        evs = self.accepted if events is None else events
        return [json.dumps(dump_event(ev.SetRules(profile=self.profile, options=dict(self.options))))] + [
            json.dumps(dump_event(e)) for e in evs]

    def note_session(self) -> None:
        """Print the attempted events (the illegal ones marked) for a failing example."""
        codes = {i: code for i, _, code in self.illegal}
        lines = [f"profile={self.profile} options={self.options} seed={self.seed}"]
        for i, e in enumerate(self.attempted):
            mark = f"   # IllegalAction {codes[i]}" if i in codes else ""
            lines.append(json.dumps(dump_event(e)) + mark)
        note("\n".join(lines))


# Hypothesis keeps lists short unless told: min_size sets the average (about 2 x min_size).
# All-zero words are the plausible default at every step, which is what shrinking tends to.
WORDS = st.lists(st.integers(0, 2**16 - 1), min_size=120, max_size=4 * MAX_STEPS)


SEEDS = st.integers(0, 2**32 - 1)


def run_session(data: Any, profile: str, **kw: Any) -> Session:
    seed = data.draw(SEEDS, label="shoe seed")
    return run_words(profile, seed, data.draw(WORDS, label="choices"), **kw)


def run_words(profile: str, seed: int, words: list[int], **kw: Any) -> Session:
    s = Session(profile, seed, Chooser(words=words), **kw)
    try:
        s.run(MAX_STEPS)
    finally:
        s.note_session()
    return s


profiles = pytest.mark.parametrize("profile", PROFILE_NAMES)
blackjack_profiles = pytest.mark.parametrize("profile", BLACKJACK_CASES)
club_profiles = pytest.mark.parametrize("profile", CLUB_CASES)
