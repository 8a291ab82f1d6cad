"""Simulated players for the advantage-play evidence (issue 26, part 2), played through the real engine.

Each seat of a `Table` in memory holds a `SimPlayer`: it chooses its bet between rounds (or sits the
round out), its play for the hand in turn and its insurance, from what a player at the table can know:
the cards dealt face up (`Seen`, the Hi-Lo count it keeps), and, for the two cheats, one thing more
(the hole card; the next card out). `play_session` deals seeded rounds through `Table.apply`, every
event through `controller.protection.advantage.feed` when a book is given, so the evidence comes from
the same record a journal replay gives.

The players:

* `FlatBettor`: basic strategy (the project's, `simulators.strategy`), one minimum bet every round;
* `Counter`: Hi-Lo, betting 2 x (true count - 1) minimum bets, between 1 and its spread (12), playing the
  index plays of `INDEX_PLAYS` (insurance at +3, 16 v 10 stand at 0, ...); with ``wong``: a 1-8 spread,
  sitting out each new shoe until the true count reaches +1 and leaving when it falls below 0;
* `Casual`: an ordinary player, basic strategy with 5 % of decisions at random, bets that change now
  and then (1 to 5 minimums, kept for a while), insurance now and then, breaks of a few rounds;
* `NeverBust`: stands on every hard 12 or more, never doubles or splits (the rating slip's costly player);
* `Parlay`: basic strategy, doubling its bet after a win (up to 8 minimums), back to one after a loss;
* `HoleCarder`: flat bets, basic strategy except where the hole card (seen by a flashing dealer) says
  otherwise (`hole_deviation`);
* `EdgeSorter`: bets 10 minimums when the next card out (its own first card, from box 1) is an ace or a
  ten, one otherwise.

Pure and seeded: the caller passes the `random.Random`; no clock.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from controller import events as ev
from controller.cards import ALL_CARDS, Card, rank_value
from controller.effects import CardPlaced, Effect, HoleCardTurned
from controller.engine import Phase, Table
from controller.hand import Outcome
from controller.legality import Action
from controller.protection.advantage import (COUNT_SYSTEMS, AdvantageBook, feed, hole_deviation, hole_makes_right,
                                            index_play)
from simulators.strategy import BasicStrategy, strategy_for

from .events import CloseInsurance, EvenMoney, Insure
from .rules import RuleProfile

HI_LO = (0, -1, 1, 1, 1, 1, 1, 0, 0, 0, -1)  # by value, ace = 1, tens = 10


class Seen:
    """The count a player keeps: Hi-Lo over the cards dealt face up (a hole card once turned, no burn)."""

    def __init__(self) -> None:
        self.running = 0
        self.seen = 0
        self.size = 312
        self.runs = [0] * len(COUNT_SYSTEMS)  # each common count's running count (issue 38)

    def shuffle(self, size: int) -> None:
        """A new shoe of ``size`` cards."""
        self.running, self.seen, self.size = 0, 0, size
        self.runs = [0] * len(COUNT_SYSTEMS)

    def effects(self, effects: list[Effect]) -> None:
        """Count the cards the effects show."""
        for e in effects:
            if isinstance(e, CardPlaced) and e.to in ("box", "dealer", "held") and not e.face_down:
                self._see(e.card)
            elif isinstance(e, HoleCardTurned):
                self._see(e.card)

    def _see(self, code: str) -> None:
        value = rank_value(code[0])
        self.running += HI_LO[value]
        self.seen += 1
        for i, system in enumerate(COUNT_SYSTEMS):
            self.runs[i] += system.tags[value]

    def equivalent(self, system: int) -> float:
        """The count ``system`` (COUNT_SYSTEMS' index) keeps, as a Hi-Lo true count: a level-2 count's true count
        halved; KO's running count from its start, 4 - 4 x decks, read as (R - 4 + 4 d) / d with d decks unseen
        (the KO pivot: at +4 the true count is +4 whatever the decks left)."""
        left = max(self.size - self.seen, 1) / 52
        system_of = COUNT_SYSTEMS[system]
        if not system_of.balanced:
            running = self.runs[system] + 4 - 4 * round(self.size / 52)
            return (running - 4 + 4 * left) / left
        level = 2 if max(abs(t) for t in system_of.tags) == 2 else 1
        return self.runs[system] / left / level

    @property
    def true_count(self) -> float:
        """Running count per deck not yet seen."""
        return self.running / (max(self.size - self.seen, 1) / 52)

    @property
    def floored(self) -> int:
        """The true count floored, as Hi-Lo players compare it with an index."""
        return math.floor(self.true_count)


@dataclass(frozen=True, slots=True)
class Hand:
    """The hand in turn, as its player sees it (``hole``: the dealer's face-down card, for a hole-carder only)."""

    values: list[int]
    up: int
    hole: int | None
    legal: list[Action]  # the hand in turn's decisions (the table's, in its players' phase)
    hands_in_box: int
    split_hand: bool

    @property
    def hard(self) -> int:
        """The hand's total with every ace counted 1."""
        return sum(self.values)

    @property
    def soft(self) -> bool:
        """An ace counts 11."""
        return 1 in self.values and self.hard + 10 <= 21


@dataclass
class SimPlayer:
    """A seat's player: basic strategy and one minimum bet unless a subclass knows better."""

    name: str
    strategy: BasicStrategy
    rng: random.Random

    def bet(self, seen: Seen, next_card: Card) -> int:
        """Minimum bets to stake on the next round (0: sit it out)."""
        return 1

    def basic(self, hand: Hand) -> Action:
        """Basic strategy's play, always a legal one."""
        action = self.strategy.decide(hand.values, hand.up, can_double=Action.DOUBLE in hand.legal,
                                      can_split=Action.SPLIT in hand.legal, can_surrender=Action.SURRENDER in hand.legal,
                                      hands_in_box=hand.hands_in_box, is_split_hand=hand.split_hand)
        return Action.STAND if action is Action.HIT and Action.HIT not in hand.legal else action

    def play(self, hand: Hand, seen: Seen) -> Action:
        """The play for the hand in turn."""
        return self.basic(hand)

    def insure(self, seen: Seen) -> bool:
        """Take insurance (even money with a blackjack)."""
        return False

    def settled(self, net: int) -> None:
        """The round's result for this seat, in cents."""


class FlatBettor(SimPlayer):
    """Basic strategy, one minimum bet a round."""


@dataclass
class Counter(SimPlayer):
    """Hi-Lo: bets by the true count, plays the index plays, insures at +3; ``wong``: enters and leaves by it.

    ``system``: the count it keeps (COUNT_SYSTEMS' index; 0 Hi-Lo), so its decisions follow its count, not Hi-Lo's
    (issue 38): a Hi-Opt II or Omega II counter compares its own true count with twice Hi-Lo's indices (a level-2
    count runs about twice as far); a KO counter never divides: it compares its running count (from 4 - 4 x
    decks) with fixed running-count indices, 2 x the Hi-Lo index - 4 (the pivot, +4, where Hi-Lo's is +4; the
    key count, -4, where it is 0: KO Preferred's way of a few fixed points), and bets one unit up to the key
    count and one more for every 2 above it."""

    spread: int = 12
    wong: bool = False
    inside: bool = False
    system: int = 0

    def count(self, seen: Seen) -> int:
        """The count it decides by, floored, on Hi-Lo's scale (KO's running count stays as it is)."""
        if self.system == 0:
            return seen.floored
        if not COUNT_SYSTEMS[self.system].balanced:
            return seen.runs[self.system] + 4 - 4 * round(seen.size / 52)
        return math.floor(seen.equivalent(self.system))

    def at_index(self, seen: Seen, index: int) -> bool:
        """Its count at or above the Hi-Lo ``index`` as its own system reads it."""
        if self.system and not COUNT_SYSTEMS[self.system].balanced:
            return self.count(seen) >= 2 * index - 4
        return self.count(seen) >= index

    def bet(self, seen: Seen, next_card: Card) -> int:
        """2 x (true count - 1) minimum bets between 1 and the spread; a wonger sits out under +1 until in."""
        if self.system and not COUNT_SYSTEMS[self.system].balanced:
            return max(1, min(self.spread, 1 + (self.count(seen) + 4) // 2))
        tc = self.count(seen)
        if self.wong:
            if seen.seen == 0:
                self.inside = False  # a new shoe: back-count it from the top
            if not self.inside and tc >= 1:
                self.inside = True
            elif self.inside and seen.true_count < 0:
                self.inside = False
            if not self.inside:
                return 0
        return max(1, min(self.spread, 2 * (tc - 1)))

    def play(self, hand: Hand, seen: Seen) -> Action:
        """Basic strategy, but the index play where one covers the hand (a pair basic strategy splits is split)."""
        basic = self.basic(hand)
        if hand.soft or basic is Action.SPLIT:
            return basic
        index = index_play(hand.hard, hand.up)
        if index is None or (index.two_cards and (len(hand.values) != 2 or Action.DOUBLE not in hand.legal)):
            return basic
        play = Action(index.above if self.at_index(seen, index.threshold) else index.below)
        return Action.STAND if play is Action.HIT and Action.HIT not in hand.legal else play

    def insure(self, seen: Seen) -> bool:
        """Insurance at a true count of +3 or more (the first index play)."""
        return self.at_index(seen, 3)


@dataclass
class Casual(SimPlayer):
    """An ordinary player: basic strategy with a few random plays, bets that wander, breaks."""

    random_play: float = 0.05
    level: int = 1
    away: int = 0

    def bet(self, seen: Seen, next_card: Card) -> int:
        """Keep the bet most rounds, change it now and then; now and then a break of 3 to 30 rounds."""
        if self.away > 0:
            self.away -= 1
            return 0
        if self.rng.random() < 0.02:
            self.away = self.rng.randint(3, 30)
            return 0
        if self.rng.random() < 0.25:
            self.level = self.rng.randint(1, 5)
        return self.level

    def play(self, hand: Hand, seen: Seen) -> Action:
        """Basic strategy, or a random legal play."""
        if self.rng.random() < self.random_play:
            return self.rng.choice(hand.legal)
        return self.basic(hand)

    def insure(self, seen: Seen) -> bool:
        """Insures one time in ten."""
        return self.rng.random() < 0.1


class NeverBust(SimPlayer):
    """A "never bust" player (issue 41's rating slips): stands on every hard 12 or more, never doubles, splits or
    surrenders (hits where basic strategy would), one minimum bet a round: a classic costly style."""

    def play(self, hand: Hand, seen: Seen) -> Action:
        """Stand on a hard 12 or more; otherwise basic strategy's hit or stand."""
        if hand.hard >= 12 and not hand.soft:
            return Action.STAND
        basic = self.basic(hand)
        return Action.HIT if basic in (Action.DOUBLE, Action.SPLIT, Action.SURRENDER) else basic


@dataclass
class Parlay(SimPlayer):
    """Doubles the bet after a win (to 8 minimums), back to one after a loss, the same after a push."""

    level: int = 1

    def bet(self, seen: Seen, next_card: Card) -> int:
        """The progression's bet."""
        return self.level

    def settled(self, net: int) -> None:
        """Press after a win, back to one after a loss."""
        if net > 0:
            self.level = min(self.level * 2, 8)
        elif net < 0:
            self.level = 1


class HoleCarder(SimPlayer):
    """Flat bets; basic strategy unless the hole card makes a deviation right."""

    def play(self, hand: Hand, seen: Seen) -> Action:
        """Stand on a stiff against a dealer stiff, hit a hard 17+ against a dealer who stands above it."""
        basic = self.basic(hand)
        if hand.hole is None or hand.soft or basic not in (Action.HIT, Action.STAND):
            return basic
        deviation = hole_deviation(hand.hard, hand.up)
        if deviation is not None and hole_makes_right(deviation, hand.hard, hand.up, hand.hole):
            play = Action(deviation)
            return play if play in hand.legal or play is Action.STAND else basic
        return basic


class EdgeSorter(SimPlayer):
    """Ten minimum bets when the next card out is an ace or a ten (sits in box 1: that card is its own)."""

    def bet(self, seen: Seen, next_card: Card) -> int:
        """Big when the first card is good."""
        return 10 if next_card.value in (1, 10) else 1


class SimShoe:
    """A shoe shuffled in full at each shuffle (so the next card can be peeked), with its cut card."""

    def __init__(self, rules: RuleProfile, rng: random.Random) -> None:
        self.rules, self.rng = rules, rng
        self.cards = [card for card in ALL_CARDS for _ in range(rules.decks)]
        self.next = 0
        self.cut_at = 0
        self.count = 0

    def shuffle(self) -> str:
        """Shuffle every card back in and place the cut card; the shoe's id."""
        self.rng.shuffle(self.cards)
        size = len(self.cards)
        self.cut_at = self.rng.randint(int(self.rules.cut_card_min * size), int(self.rules.cut_card_max * size))
        self.next = 0
        self.count += 1
        return f"adv-{self.count}"

    def peek(self) -> Card:
        """The next card out."""
        return self.cards[self.next]

    def draw(self) -> Card:
        """Deal the next card."""
        card = self.cards[self.next]
        self.next += 1
        return card


@dataclass
class Session:
    """One table's seats and the rounds it played.

    ``book``: every event is booked in it as it is applied. ``submit``: the way events reach ``table``
    when not straight to ``Table.apply`` (a journal's authority: its ``table`` then), returning the effects.
    """

    rules: RuleProfile
    seats: dict[int, SimPlayer]
    book: AdvantageBook | None = None
    unit: Decimal = Decimal(10)
    rounds: int = 0
    table: Table = field(default_factory=lambda: Table())
    submit: Callable[[ev.Event], list[Effect]] | None = None

    def __post_init__(self) -> None:
        if self.submit is None:
            self.table = Table(self.rules)


def play_session(session: Session, rounds: int, rng: random.Random,
                 after_round: Callable[[int], None] | None = None) -> Session:
    """Deal ``rounds`` more rounds (voids do not count) at ``session``'s table; ``after_round`` is told the count
    of rounds after each. Some seat must bet every round (a player who always does keeps the table dealing)."""
    rules, table, seats, book = session.rules, session.table, session.seats, session.book
    shoe = SimShoe(rules, rng)
    seen = Seen()
    unit = session.unit
    max_units = int(rules.table_max / unit)

    submit = session.submit

    def apply(event: ev.Event) -> list[Effect]:
        if submit is not None:
            effects = submit(event)
        else:
            effects = feed(book, table, event) if book is not None else table.apply(event)
        seen.effects(effects)
        return effects

    def shuffle() -> None:
        apply(ev.Shuffle(shoe_id=shoe.shuffle()))
        seen.shuffle(len(shoe.cards))

    def draw() -> None:
        if shoe.next == shoe.cut_at:
            apply(ev.CutCardOut())
        if shoe.next == len(shoe.cards):
            shuffle()  # a single deck ran out in the round: a new one goes in and the round goes on
        apply(ev.CardDrawn(card=shoe.draw()))

    target = session.rounds + rounds
    while session.rounds < target:
        if table.phase is Phase.WAITING_FOR_SHUFFLE:
            shuffle()
        stakes: dict[int, int] = {}
        for box, player in sorted(seats.items()):
            units = min(player.bet(seen, shoe.peek()), max_units)
            if units > 0:
                apply(ev.PlaceBet(box=box, amount=unit * units, player=player.name))
                stakes[box] = units
        if not stakes:
            raise ValueError("no seat bet: seat a player who always bets to keep the table dealing")
        number = table.rounds_played + 1
        while not (table.round is None and table.rounds_played == number):
            phase = table.phase
            r = table.round
            if (phase is Phase.PLAYERS or phase is Phase.SURRENDER) and r is not None:
                hand = r.hand
                if len(hand.cards) < 2 or hand.doubled:
                    draw()
                    continue
                assert hand.box is not None
                player = seats[hand.box.number]
                hole = (r.dealer.cards[1].value if isinstance(player, HoleCarder) and table.dealer_card_closed
                        else None)
                legal = [a for a in table.legal_actions() if isinstance(a, Action)]  # (the hand's, in play)
                action = player.play(Hand([c.value for c in hand.cards], r.dealer.cards[0].value, hole, legal,
                                          len(hand.box.hands), hand.from_split), seen)
                if action is Action.HIT:
                    draw()
                else:
                    apply({Action.STAND: ev.Stand(), Action.DOUBLE: ev.Double(), Action.SPLIT: ev.Split(),
                           Action.SURRENDER: ev.Surrender()}[action])
            elif phase is Phase.INSURANCE and r is not None:
                for offered in r.boxes:
                    if not seats[offered.number].insure(seen):
                        continue
                    if offered.hands[0].is_blackjack:
                        if rules.even_money:
                            apply(EvenMoney(box=offered.number))
                    elif rules.insurance and offered.bet % 2 == 0:
                        apply(Insure(box=offered.number, amount=Decimal(offered.bet // 2) / 100))
                apply(CloseInsurance())
            else:
                draw()
        settled = table.previous
        assert settled is not None
        for played in settled.boxes:
            net = sum(h.net or 0 for h in played.hands) + (played.insurance_net or 0)
            seats[played.number].settled(net if not any(h.outcome is Outcome.VOID for h in played.hands) else 0)
        session.rounds += 1
        if after_round is not None:
            after_round(session.rounds)
    return session


PLAYERS: dict[str, Callable[[str, BasicStrategy, random.Random], SimPlayer]] = {
    "flat": FlatBettor,
    "counter": Counter,
    "wonger": lambda name, s, rng: Counter(name, s, rng, spread=8, wong=True),
    "ko-counter": lambda name, s, rng: Counter(name, s, rng, system=1),
    "hi-opt-ii-counter": lambda name, s, rng: Counter(name, s, rng, system=2),
    "omega-ii-counter": lambda name, s, rng: Counter(name, s, rng, system=3),
    "casual": Casual,
    "never-bust": NeverBust,
    "parlay": Parlay,
    "hole-carder": HoleCarder,
    "edge-sorter": EdgeSorter,
}


def seat(rules: RuleProfile, kinds: dict[int, str], rng: random.Random, book: AdvantageBook | None = None,
         table: Table | None = None, submit: Callable[[ev.Event], list[Effect]] | None = None) -> Session:
    """A session with ``kinds`` (box -> a name of `PLAYERS`) at the table, each player named after its kind;
    ``table`` and ``submit``: a table the events reach through ``submit`` (a journal's authority)."""
    strategy = strategy_for(rules)
    seats = {box: PLAYERS[kind](kind, strategy, random.Random(rng.random())) for box, kind in kinds.items()}
    if table is not None and submit is not None:
        return Session(rules, seats, book, table=table, submit=submit)
    return Session(rules, seats, book)
