"""Advantage-play evidence, per box and per player (issue 26, part 2). Pure: events in, signals out.

`AdvantageBook` is fed the table's record in order, as the engine applies it: each accepted event with
the effects the engine gave it, and, for a player's decision, the hand in turn just before it
(`decision_before`; `feed` does the three for a caller that holds the `Table`). It keeps, per player
(the ``player`` on ``bet`` events; an anonymous bet is its box's) and per box, what it needs to answer
`Signal`s: a statistic, its sample size ``n`` and a p-value under a stated null, with one line saying
what was seen. A signal is evidence, never a verdict: surveillance weighs it with the tapes.

**The count** is the one the players can keep: Hi-Lo over every card dealt face up, a hole card once it
is turned, a burnt card never (it is not shown); the true count divides the running count by the decks
not yet seen. It is taken when each round's first card comes out (the bets are down then: *bet time*),
at each decision (the cards of the round so far included) and when insurance opens.

The signals, each with its null (docs/protection.md, "Advantage play"):

* ``bet_vs_true_count``: Spearman's rank correlation of the bet with the true count at bet time, one-sided
  (bigger bets at higher counts). Null: the bet is independent of the count. Both series run in streaks
  (a shoe's count drifts, a player's bets go in steps), which makes a plain correlation test far too
  quick to call; the variance is Bartlett's for two independent autocorrelated series,
  (1 + 2 sum_k rho_bet(k) rho_count(k)) / n, over the first lags. The slope (bet in table minimums
  per unit of true count) is given beside it.
* ``bet_vs_shoe_edge``: the same against the exact edge of the remaining shoe, when the book is given
  an ``edge`` function (any counting system, not only Hi-Lo). None is given today: the exact analysis
  (`simulators.exact`) takes about 1 s per six-deck composition, too slow to run each round.
* ``first_bet_after_shuffle``: the change of bet (log of the ratio to the player's previous bet) on the
  first round a player plays in a new shoe, against their other changes: Mann-Whitney, one-sided
  (down after a shuffle, as a counter's bet drops to the minimum off the top). Null: a shuffle does
  not change how a bet changes.
* ``bet_change_after_push``: after a push a progression bettor has no win or loss to follow, so a bet
  that changes then follows something else: Spearman of the change of bet with the change of true
  count over rounds that follow a push, one-sided. Null: the change is independent of the count's.
* ``index_plays``: the count's index plays (`INDEX_PLAYS`: insurance at +3, 16 v 10 stand at 0, ...).
  For each situation the player met, whether they took the index's play against whether the true count
  was at the index; the sum over situations of the agreeing cells is tested exactly (each situation's
  cell is hypergeometric given its margins, the situations convolved: a stratified Fisher test),
  one-sided; and for each common count (`COUNT_SYSTEMS`: Hi-Lo, KO, Hi-Opt II, Omega II) a stratified
  rank test of that count's level at the deviations, whatever its indices; the smallest p times the
  number of tests (issue 38). Null: the choice between the two plays is independent of the count. A
  basic-strategy player, who never changes play, gives no evidence at all.
* ``wonging``: entering and leaving by the count. Over the table's rounds from a player's first to their
  last, the true count of the rounds they came in against those they stayed out, and of the rounds they
  left against those they stayed (Mann-Whitney each, one-sided, combined by Stouffer). Null: sitting a
  round out is independent of the count.
* ``first_card``: bet size against the card the box is dealt first (edge sorting, ace sequencing).
  Whether that card is an ace or a ten, less its chance given every card seen (the shoe's unseen
  cards), weighted by the bet less the player's mean bet so far: a sum with mean exactly 0 under the
  null whatever the count (a counter's bets know the count, not the card). Null: given the cards seen,
  the bet says nothing about the next card.
* ``hole_card``: decisions that make sense only knowing the hole card, where the dealer has one face
  down: standing on a hard 12-16 against a 7 to ace, hitting a hard 17-20. Each such deviation is
  checked against the hole card: did it make the play right (the dealer's two cards a stiff; the dealer
  standing above the player)? The statistic is the log10 likelihood ratio of "knows the hole card"
  (right 95 % of the time) to "does not" (right with the chance the unseen cards give, as the peek
  leaves them), the p-value the Poisson-binomial tail of the deviations that were right.

**Flagged** (`SubjectReport.flagged`): the smallest p-value, times the number of signals that have one
(Bonferroni: the family-wise error rate at most ``FLAG_ALPHA`` = 0.001 at one look, however the signals
depend on each other), below ``FLAG_ALPHA``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from ..effects import CardPlaced, Effect, HoleCardTurned, PhaseChanged, RoundSettled
from ..events import CardDrawn, Double, Event, SetRules, Shuffle, Split, Stand, Surrender
from ..legality import Action
from ..phase import PLAY, Phase

if TYPE_CHECKING:
    from ..engine import Table

FLAG_ALPHA = 0.001  # the family-wise false-flag rate per look (issue 26: flat bettors flagged in <= 0.1 %)
HI_LO = (0, -1, 1, 1, 1, 1, 1, 0, 0, 0, -1)  # by value (index 1 = ace ... 10 = tens)
BARTLETT_LAGS = 20  # the lags of Bartlett's variance (a shoe's count drifts over tens of rounds)
KNOWS_HOLE = 0.95  # the alternative of the hole-card likelihood ratio: a hole-carder's deviations are right 95 %


@dataclass(frozen=True, slots=True)
class IndexPlay:
    """A count's index play: with a hard ``total`` against ``up`` (1 = ace), play ``above`` at a true count of
    ``threshold`` or more, ``below`` under it; ``two_cards``: only on the first two cards (a double).
    ``total`` 0 is insurance (``above`` "insure", ``below`` "decline")."""

    name: str
    total: int
    up: int
    threshold: int
    above: str
    below: str
    two_cards: bool = False


# Hi-Lo's Illustrious 18 (Schlesinger), the plays that change hit, stand or double, and insurance.
INDEX_PLAYS: tuple[IndexPlay, ...] = (
    IndexPlay("insurance", 0, 1, 3, "insure", "decline"),
    IndexPlay("16 v 10", 16, 10, 0, "stand", "hit"),
    IndexPlay("15 v 10", 15, 10, 4, "stand", "hit"),
    IndexPlay("12 v 3", 12, 3, 2, "stand", "hit"),
    IndexPlay("12 v 2", 12, 2, 3, "stand", "hit"),
    IndexPlay("11 v A", 11, 1, 1, "double", "hit", True),
    IndexPlay("9 v 2", 9, 2, 1, "double", "hit", True),
    IndexPlay("10 v A", 10, 1, 4, "double", "hit", True),
    IndexPlay("9 v 7", 9, 7, 3, "double", "hit", True),
    IndexPlay("16 v 9", 16, 9, 5, "stand", "hit"),
    IndexPlay("13 v 2", 13, 2, -1, "stand", "hit"),
    IndexPlay("12 v 4", 12, 4, 0, "stand", "hit"),
    IndexPlay("12 v 5", 12, 5, -2, "stand", "hit"),
    IndexPlay("12 v 6", 12, 6, -1, "stand", "hit"),
    IndexPlay("13 v 3", 13, 3, -2, "stand", "hit"),
    IndexPlay("10 v 10", 10, 10, 4, "double", "hit", True),
)
_INDEX_BY_HAND = {(p.total, p.up): p for p in INDEX_PLAYS if p.total}


def index_play(total: int, up: int) -> IndexPlay | None:
    """The index play for a hard ``total`` against ``up``, if the table has one."""
    return _INDEX_BY_HAND.get((total, up))


@dataclass(frozen=True, slots=True)
class CountSystem:
    """A card-counting system a player may keep: its tags by value (index 1 = ace ... 10 = tens).

    A balanced count's level is its true count (running count per 52 cards not yet seen); an unbalanced one's
    (KO) its running count from the initial running count ``4 - 4 x decks``, which KO's players use as it
    stands (the key count, not a division)."""

    name: str
    tags: tuple[int, ...]
    balanced: bool = True

    def level(self, running: int, left: int, decks: int) -> float:
        """The count a player of this system decides by, from its running count of the cards seen."""
        if self.balanced:
            return running / (max(left, 1) / 52)
        return running + 4 - 4 * decks


# The common counts (issue 38): Hi-Lo; Knock-Out (Vancura and Fuchs), unbalanced; Hi-Opt II and Omega II, level 2.
COUNT_SYSTEMS: tuple[CountSystem, ...] = (
    CountSystem("Hi-Lo", HI_LO),
    CountSystem("KO", (0, -1, 1, 1, 1, 1, 1, 1, 0, 0, -1), balanced=False),
    CountSystem("Hi-Opt II", (0, 0, 1, 1, 2, 2, 1, 1, 0, 0, -2)),
    CountSystem("Omega II", (0, 0, 1, 1, 2, 2, 2, 1, 0, -1, -2)),
)


@dataclass(frozen=True, slots=True)
class Signal:
    """One piece of evidence: its statistic, sample size and p-value under its null (None: too little to test)."""

    name: str
    statistic: float | None
    n: int
    p: float | None
    explanation: str


@dataclass(frozen=True, slots=True)
class SubjectReport:
    """A player's (or a box's) signals, and whether the family of them is flagged."""

    subject: str
    rounds: int
    signals: tuple[Signal, ...]

    @property
    def tested(self) -> int:
        """How many signals have a p-value (the Bonferroni factor)."""
        return sum(1 for s in self.signals if s.p is not None)

    @property
    def combined_p(self) -> float | None:
        """The Bonferroni-adjusted smallest p-value: min(1, K x min p) over the K signals with one."""
        ps = [s.p for s in self.signals if s.p is not None]
        return min(1.0, len(ps) * min(ps)) if ps else None

    @property
    def flagged(self) -> bool:
        """The combined p-value is below FLAG_ALPHA."""
        p = self.combined_p
        return p is not None and p < FLAG_ALPHA


@dataclass(frozen=True, slots=True)
class Decision:
    """The hand in turn just before an event, as far as the signals need it (`decision_before`)."""

    box: int
    hand: int
    owner: str
    total: int  # the total the hand plays at
    soft: bool
    cards: int
    up: int  # the dealer's up card's value (1 = ace)
    hole: int | None  # the dealer's hole card's value while it lies face down
    dealer_soft_hole: bool  # the up card and the hole card make a soft total
    can_double: bool
    peeked: bool  # the dealer has checked for blackjack (so the hole card does not make one)


def decision_before(table: Table) -> Decision | None:
    """The decision the table waits for now (the hand in turn, its first two cards dealt), or None."""
    if table.phase not in PLAY:
        return None
    r = table.round
    if r is None or r.box_i >= len(r.boxes) or not r.dealer.cards:
        return None
    hand = r.hand
    if len(hand.cards) < 2 or hand.doubled or hand.done or hand.box is None:
        return None
    hole = None
    if table.dealer_card_closed and len(r.dealer.cards) >= 2:
        hole = r.dealer.cards[1].value
    up = r.dealer.cards[0].value
    return Decision(hand.box.number, r.hand_i, hand.box.owner or f"box{hand.box.number}", hand.total,
                    hand.soft is not None, len(hand.cards), up, hole, hole is not None and 1 in (up, hole),
                    Action.DOUBLE in table.legal_actions(), r.peeked)


def feed(book: AdvantageBook, table: Table, event: Event) -> list[Effect]:
    """Apply ``event`` to ``table`` and book it with its effects (IllegalAction passes through, nothing booked)."""
    before = decision_before(table)
    effects = table.apply(event)
    if isinstance(event, (SetRules, Shuffle)):
        book.decks, book.pack = table.rules.decks, table.rules.pack
    book.event(event, effects, before)
    return effects


# ------------------------------------------------------------------ what the book keeps
@dataclass(slots=True)
class _Round:
    """One round a subject played: the count at bet time and what it bet."""

    table_round: int
    shoe: int
    true_count: float
    edge: float | None
    bet: int  # cents
    net: int  # cents
    first_high: int | None  # the box's first card an ace or a ten (1) or not (0); None if none came
    chance_high: float


@dataclass(slots=True)
class _Subject:
    rounds: list[_Round] = field(default_factory=list)
    # index plays: (situation, the Hi-Lo count at or above its index, took the index's "above" play, each count
    # system's level then (COUNT_SYSTEMS' order))
    index: list[tuple[str, bool, bool, tuple[float, ...]]] = field(default_factory=list)
    # hole-card deviations: (chance the hole card makes it right, it did); and the opportunities
    hole: list[tuple[float, bool]] = field(default_factory=list)
    hole_opportunities: int = 0
    min_bet: int | None = None


@dataclass(slots=True)
class _Pending:
    """A decision of the round in play: an index play's (``at_index``, ``above``) or a hole-card chance's."""

    decision: Decision
    kind: str  # an index play's name, or "hole"
    at_index: bool = False
    levels: tuple[float, ...] = ()
    above: bool = False
    right: bool | None = None  # hole: None when the player did not deviate
    chance: float = 0.0


class AdvantageBook:
    """Books one table's record, in order, per player and per box (see the module's docstring).

    ``decks`` and ``pack``: the shoe's make-up (`feed` keeps them to the table's rules). ``edge``: the
    hook for the exact edge of the remaining shoe, called at bet time with the unseen cards by value
    (index 1 = aces ... 10 = tens; index 0 unused); None (today) leaves ``bet_vs_shoe_edge`` out.
    """

    def __init__(self, decks: int = 6, pack: int = 52, edge: Callable[[Sequence[int]], float] | None = None,
                 since: datetime | None = None, first_round: int | None = None) -> None:
        """``since``: book only the rounds started at or after it; ``first_round``: only the rounds numbered from it
        on (the count is kept from the start all the same)."""
        self.decks, self.pack = decks, pack
        self.since = since
        self.first_round = first_round
        self.edge = edge
        self.subjects: dict[str, _Subject] = {}
        self.table_rounds = 0  # rounds settled at the table (voids not counted)
        self.shoes = 0
        self._seen = [0] * 11  # cards seen face up in this shoe, by value
        self._running = 0
        self._runs = [0] * len(COUNT_SYSTEMS)  # each count system's running count of them
        self._size = decks * pack
        self._round_count: float = 0.0
        self._round_edge: float | None = None
        self._round_unseen: list[int] = []
        self._first: dict[int, int] = {}  # box -> its first card's value this round
        self._insurance_count: float | None = None
        self._insurance_levels: tuple[float, ...] = ()
        self._pending: list[_Pending] = []  # the round's decisions, booked when it settles (a void drops them)
        self.round_counts: dict[int, float] = {}  # the true count at bet time of every round settled
        self.replayed_from = 0  # the ledger row after which the caller's replay began (0: the journal's first)
        # A game's own evidence per player, added by the caller after the replay (baccarat's side bets at a positive
        # expectation: its ``spot_odds`` part); each signal counts in the player's Bonferroni factor like the rest.
        self.extra_signals: dict[str, list[Signal]] = {}
        self._in_round = False

    # ---------------------------------------------------------------- the count
    def _unseen(self) -> list[int]:
        per_value = self._size // 13 if self.pack == 52 else 0
        unseen = [0] + [max(per_value * (4 if v == 10 else 1) - self._seen[v], 0) for v in range(1, 11)]
        return unseen

    def true_count(self) -> float:
        """Hi-Lo running count per deck not yet seen (the count the players can keep)."""
        left = max(self._size - sum(self._seen), 1)
        return self._running / (left / 52)

    def levels(self) -> tuple[float, ...]:
        """Each count system's level now (COUNT_SYSTEMS' order): a balanced count's true count, KO's running count."""
        left = self._size - sum(self._seen)
        decks = max(1, round(self._size / 52))
        return tuple(system.level(run, left, decks) for system, run in zip(COUNT_SYSTEMS, self._runs))

    def _see(self, code: str) -> None:
        value = _VALUE[code[0]]
        self._seen[value] += 1
        self._running += HI_LO[value]
        for i, system in enumerate(COUNT_SYSTEMS):
            self._runs[i] += system.tags[value]

    # ---------------------------------------------------------------- fed in order
    def event(self, event: Event, effects: Sequence[Effect], before: Decision | None = None) -> None:
        """An accepted ``event``, the ``effects`` the engine gave it, and the hand in turn just before it."""
        if isinstance(event, Shuffle):
            self.shoes += 1
            self._seen, self._running = [0] * 11, 0
            self._runs = [0] * len(COUNT_SYSTEMS)
            self._size = event.card_count or self.decks * self.pack
        if before is not None:
            self._decision(event, effects, before)
        for effect in effects:
            if isinstance(effect, CardPlaced):
                if effect.to == "box" and effect.box is not None and effect.hand == 0 and effect.box not in self._first:
                    self._first[effect.box] = _VALUE[effect.card[0]]
                if effect.to in ("box", "dealer", "held") and not effect.face_down:
                    self._see(effect.card)
            elif isinstance(effect, HoleCardTurned):
                self._see(effect.card)
            elif isinstance(effect, PhaseChanged):
                if effect.new is Phase.DEALING and not self._in_round:
                    self._start_round()
                elif effect.new is Phase.INSURANCE:
                    self._insurance_count = self.true_count()
                    self._insurance_levels = self.levels()
            elif isinstance(effect, RoundSettled):
                self._settle(effect)

    def _start_round(self) -> None:
        self._in_round = True
        self._round_count = self.true_count()
        self._round_unseen = self._unseen()
        self._round_edge = self.edge(self._round_unseen) if self.edge is not None else None
        self._first = {}
        self._insurance_count = None
        self._pending = []

    def _decision(self, event: Event, effects: Sequence[Effect], d: Decision) -> None:
        if isinstance(event, Stand):
            action = "stand"
        elif isinstance(event, Double):
            action = "double"
        elif isinstance(event, Split):
            action = "split"
        elif isinstance(event, Surrender):
            action = "surrender"
        elif isinstance(event, CardDrawn) and any(
                isinstance(e, CardPlaced) and e.to == "box" and e.box == d.box and e.hand == d.hand for e in effects):
            action = "hit"
        else:
            return
        if d.hole is not None and not d.soft and action in ("hit", "stand"):
            deviation = hole_deviation(d.total, d.up)
            if deviation is not None:
                chance, right = self._hole_chance(d, deviation)
                # a chance the player did not take is counted, not tested: only deviations are
                self._pending.append(_Pending(d, "hole", right=right if action == deviation else None, chance=chance))
        play = index_play(d.total, d.up) if not d.soft else None
        if play is not None and action in (play.above, play.below) and (
                not play.two_cards or (d.cards == 2 and d.can_double)):
            self._pending.append(_Pending(d, play.name, at_index=self.true_count() >= play.threshold,
                                          above=action == play.above, levels=self.levels()))

    def _hole_chance(self, d: Decision, deviation: str) -> tuple[float, bool]:
        """The chance, from the unseen cards (the hole card among them), that the hole card makes the
        deviation right; and whether it did."""
        unseen = self._unseen()
        assert d.hole is not None
        weight = right_weight = 0
        for v in range(1, 11):
            if not unseen[v]:
                continue
            if d.peeked and {d.up, v} == {1, 10}:
                continue  # the peek showed no blackjack: the hole card is not its other half
            weight += unseen[v]
            if hole_makes_right(deviation, d.total, d.up, v):
                right_weight += unseen[v]
        chance = right_weight / weight if weight else 0.0
        return chance, hole_makes_right(deviation, d.total, d.up, d.hole)

    def _settle(self, effect: RoundSettled) -> None:
        r = effect.round
        self._in_round = False
        if r.voided:
            return  # every bet went back: nothing was played
        if (self.since is not None and r.started_at is not None and r.started_at < self.since) or (
                self.first_round is not None and r.number < self.first_round):
            self._pending = []
            return
        self.table_rounds += 1
        self.round_counts[self.table_rounds] = self._round_count
        unseen = self._round_unseen
        total_unseen = sum(unseen)
        chance_high = (unseen[1] + unseen[10]) / total_unseen if total_unseen else 0.0
        played: dict[str, list[int]] = {}  # subject -> [stake, net, its first box's first card high (-1: none)]
        for box in r.boxes:
            net = sum(h.net or 0 for h in box.hands) + (box.insurance_net or 0)
            first = self._first.get(box.number)
            high = -1 if first is None else int(first in (1, 10))
            players = [(p, stake) for p, stake in box.bets.items() if p != f"box{box.number}"]
            for name, stake, share in [(f"box {box.number}", box.bet, net)] + [
                    (p, stake, net * stake // box.bet if box.bet else 0) for p, stake in players]:
                line = played.setdefault(name, [0, 0, high])  # a player on two boxes: the bets added up
                line[0] += stake
                line[1] += share
            if self._insurance_count is not None:
                # even money is insurance taken on a blackjack: blackjack's own outcome, read by its name in round records
                insured = box.insurance is not None or any(h.outcome == "even_money" for h in box.hands)
                for name in self._names(box.number, box.owner):
                    self.subjects.setdefault(name, _Subject()).index.append(
                        ("insurance", self._insurance_count >= INDEX_PLAYS[0].threshold, insured,
                         self._insurance_levels))
        for name, (stake, share, high) in played.items():
            subject = self.subjects.setdefault(name, _Subject())
            subject.rounds.append(_Round(self.table_rounds, self.shoes, self._round_count, self._round_edge,
                                         stake, share, None if high < 0 else high, chance_high))
            subject.min_bet = stake if subject.min_bet is None else min(subject.min_bet, stake)
        for pending in self._pending:
            for name in self._names(pending.decision.box, pending.decision.owner):
                subject = self.subjects.setdefault(name, _Subject())
                if pending.kind == "hole":
                    subject.hole_opportunities += 1
                    if pending.right is not None:
                        subject.hole.append((pending.chance, pending.right))
                else:
                    subject.index.append((pending.kind, pending.at_index, pending.above, pending.levels))
        self._pending = []

    @staticmethod
    def _names(box: int, owner: str | None) -> list[str]:
        """The subjects a box's decision belongs to: the box, and its owner when named."""
        names = [f"box {box}"]
        if owner is not None and owner != f"box{box}":
            names.append(owner)
        return names

    # ---------------------------------------------------------------- the answers
    def report(self) -> list[SubjectReport]:
        """Every player's and box's signals: players by name first, then boxes by number."""
        def order(name: str) -> tuple[int, int, str]:
            if name.startswith("box ") and name[4:].isdigit():
                return (1, int(name[4:]), "")
            return (0, 0, name)
        return [self.subject_report(name) for name in sorted(set(self.subjects) | set(self.extra_signals), key=order)]

    def subject_report(self, name: str) -> SubjectReport:
        """One subject's signals (see the module's docstring)."""
        s = self.subjects.get(name) or _Subject()
        signals = [bet_vs_true_count(s.rounds, s.min_bet or 1)]
        if any(r.edge is not None for r in s.rounds):
            signals.append(bet_vs_shoe_edge(s.rounds))
        signals += [first_bet_after_shuffle(s.rounds), bet_change_after_push(s.rounds), index_plays(s.index),
                    wonging([r.table_round for r in s.rounds], self.round_counts)]
        signals.append(first_card(s.rounds))
        if s.hole_opportunities:
            signals.append(hole_card(s.hole, s.hole_opportunities))
        signals += self.extra_signals.get(name, [])
        return SubjectReport(name, len(s.rounds), tuple(signals))


_VALUE = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in "A23456789TJQK"}


def _dealer_total(up: int, hole: int) -> int:
    hard = up + hole
    return hard + 10 if 1 in (up, hole) and hard + 10 <= 21 else hard


def hole_deviation(total: int, up: int) -> str | None:
    """The deviation from basic strategy a hole card could call for with a hard ``total`` against ``up``:
    "stand" (12-16 against a 7 to an ace, where basic strategy hits), "hit" (17-20, where it stands)."""
    if 12 <= total <= 16 and (up >= 7 or up == 1):
        return "stand"
    if 17 <= total <= 20:
        return "hit"
    return None


def hole_makes_right(deviation: str, total: int, up: int, hole: int) -> bool:
    """Whether a hole card of value ``hole`` makes the deviation the right play: standing when the dealer's
    two cards are a stiff (12-16, he must draw), hitting when he stands on more than the player has."""
    dealer = _dealer_total(up, hole)
    if deviation == "stand":
        return 12 <= dealer <= 16
    return 17 <= dealer <= 21 and dealer > total


# ------------------------------------------------------------------ the statistics (pure functions)
def normal_upper(z: float) -> float:
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def midranks(xs: Sequence[float]) -> list[float]:
    """The ranks of ``xs`` (1 = smallest), ties sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's correlation; None when either series is constant or shorter than 3."""
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def autocorrelations(xs: Sequence[float], lags: int) -> list[float]:
    """The sample autocorrelations of ``xs`` at lags 1..``lags`` (0 for a constant series)."""
    n = len(xs)
    m = sum(xs) / n
    d = [x - m for x in xs]
    c0 = sum(v * v for v in d)
    if c0 <= 1e-12:
        return [0.0] * lags
    return [sum(d[i] * d[i + k] for i in range(n - k)) / c0 if k < n else 0.0 for k in range(1, lags + 1)]


def bartlett_correlation(xs: Sequence[float], ys: Sequence[float], lags: int = BARTLETT_LAGS
                         ) -> tuple[float, float, float] | None:
    """Spearman's correlation of two series, and its one-sided p-value (positive) with Bartlett's variance for
    autocorrelated series: (rho, z, effective n); None when either is constant or too short."""
    rx, ry = midranks(xs), midranks(ys)
    rho = pearson(rx, ry)
    if rho is None:
        return None
    n = len(xs)
    lags = min(lags, n // 4)
    inflation = 1 + 2 * sum(a * b for a, b in zip(autocorrelations(rx, lags), autocorrelations(ry, lags)))
    n_eff = min(float(n), max(n / max(inflation, 1e-9), 2.0))
    z = rho * math.sqrt(max(n_eff - 1, 1.0))
    return rho, z, n_eff


def slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """The least-squares slope of ys on xs."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 1e-12 else None


def mann_whitney_z(low: Sequence[float], high: Sequence[float]) -> float | None:
    """Mann-Whitney's z for ``high`` tending above ``low`` (normal approximation, ties corrected); None if a
    group is empty or every value ties."""
    n1, n2 = len(high), len(low)
    if not n1 or not n2:
        return None
    ranks = midranks(list(high) + list(low))
    u = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    n = n1 + n2
    ties: dict[float, int] = {}
    for r in ranks:
        ties[r] = ties.get(r, 0) + 1
    variance = n1 * n2 / 12 * ((n + 1) - sum(t ** 3 - t for t in ties.values()) / (n * (n - 1)))
    if variance <= 1e-12:
        return None
    return (u - n1 * n2 / 2) / math.sqrt(variance)


def _log_choose(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def stratified_exact_greater(tables: Sequence[tuple[int, int, int, int]]) -> tuple[int, float, float]:
    """The stratified (Mantel-Haenszel) exact test, one-sided: each stratum's 2 x 2 table [[a, b], [c, d]] has,
    given its margins, ``a`` hypergeometric; the strata are independent, so the sum of the ``a`` has their
    convolution. Returns (sum of a, its expectation, P(sum >= observed))."""
    dist = [1.0]
    observed = 0
    expected = 0.0
    for a, b, c, d in tables:
        row, col, n = a + b, a + c, a + b + c + d
        observed += a
        low, high = max(0, row + col - n), min(row, col)
        if n == 0 or low == high:
            dist = [0.0] * low + dist if low else dist  # a fixed cell shifts the sum
            expected += low
            continue
        denominator = _log_choose(n, col)
        pmf = [math.exp(_log_choose(row, x) + _log_choose(n - row, col - x) - denominator) for x in range(low, high + 1)]
        expected += row * col / n
        new = [0.0] * (len(dist) + high)
        for i, p in enumerate(dist):
            if p:
                for j, q in enumerate(pmf):
                    new[i + low + j] += p * q
        dist = new
    return observed, expected, min(1.0, sum(dist[observed:]))


def poisson_binomial_upper(chances: Sequence[float], k: int) -> float:
    """P(at least ``k`` of independent trials with these chances succeed)."""
    dist = [1.0]
    for q in chances:
        new = [0.0] * (len(dist) + 1)
        for i, p in enumerate(dist):
            new[i] += p * (1 - q)
            new[i + 1] += p * q
        dist = new
    return min(1.0, sum(dist[k:]))


# ------------------------------------------------------------------ the signals
def bet_vs_true_count(rounds: Sequence[_Round], unit: int) -> Signal:
    """Spearman's correlation of bet with true count at bet time, Bartlett's variance; the slope beside it."""
    bets = [float(r.bet) for r in rounds]
    counts = [r.true_count for r in rounds]
    result = bartlett_correlation(bets, counts) if len(rounds) >= 3 else None
    if result is None:
        why = "the bet never changed" if rounds and len(set(bets)) == 1 else "too few rounds"
        return Signal("bet_vs_true_count", None, len(rounds), None, f"no test: {why}")
    rho, z, n_eff = result
    b = slope(counts, [x / unit for x in bets]) or 0.0
    return Signal("bet_vs_true_count", round(rho, 4), len(rounds), normal_upper(z),
                  f"Spearman {rho:+.2f} of bet with true count (effective n {n_eff:.0f} of {len(rounds)}); "
                  f"{b:+.2f} minimum bets per true count")


def bet_vs_shoe_edge(rounds: Sequence[_Round]) -> Signal:
    """As ``bet_vs_true_count``, against the exact edge of the remaining shoe (where the hook gave one)."""
    pairs = [(float(r.bet), r.edge) for r in rounds if r.edge is not None]
    result = bartlett_correlation([b for b, _ in pairs], [e for _, e in pairs]) if len(pairs) >= 3 else None
    if result is None:
        return Signal("bet_vs_shoe_edge", None, len(pairs), None, "no test: the bet never changed or too few rounds")
    rho, z, n_eff = result
    return Signal("bet_vs_shoe_edge", round(rho, 4), len(pairs), normal_upper(z),
                  f"Spearman {rho:+.2f} of bet with the shoe's exact edge (effective n {n_eff:.0f})")


def _changes(rounds: Sequence[_Round]) -> list[tuple[_Round, _Round, float]]:
    """Each round after the first with the one before it and the log of the bets' ratio."""
    return [(a, b, math.log(b.bet / a.bet)) for a, b in zip(rounds, rounds[1:]) if a.bet > 0 and b.bet > 0]


def first_bet_after_shuffle(rounds: Sequence[_Round]) -> Signal:
    """The bet's change into a new shoe against the other changes: Mann-Whitney, one-sided (down)."""
    changes = _changes(rounds)
    after = [c for a, b, c in changes if b.shoe != a.shoe]
    other = [c for a, b, c in changes if b.shoe == a.shoe]
    z = mann_whitney_z(after, other)  # "other" above "after": the first bet of a shoe lower
    if z is None:
        return Signal("first_bet_after_shuffle", None, len(after), None,
                      "no test: no shuffle between two of their rounds, or the bet never changed")
    down = sum(1 for c in after if c < 0)
    return Signal("first_bet_after_shuffle", round(z, 3), len(after), normal_upper(z),
                  f"the bet went down into {down} of {len(after)} new shoes (Mann-Whitney z {z:+.2f} against "
                  f"{len(other)} other changes)")


def bet_change_after_push(rounds: Sequence[_Round]) -> Signal:
    """After a push, Spearman of the change of bet with the change of true count, one-sided."""
    pairs = [(c, b.true_count - a.true_count) for a, b, c in _changes(rounds) if a.net == 0 and b.shoe == a.shoe]
    rho = pearson(midranks([c for c, _ in pairs]), midranks([t for _, t in pairs])) if len(pairs) >= 3 else None
    if rho is None:
        return Signal("bet_change_after_push", None, len(pairs), None,
                      "no test: the bet never changed after a push, or too few pushes")
    z = rho * math.sqrt(len(pairs) - 1)
    moved = sum(1 for c, _ in pairs if c != 0)
    return Signal("bet_change_after_push", round(rho, 4), len(pairs), normal_upper(z),
                  f"after {len(pairs)} pushes the bet moved {moved} times, Spearman {rho:+.2f} with the count's change")


def index_plays(decisions: Sequence[tuple[str, bool, bool, tuple[float, ...]]]) -> Signal:
    """Whether the player takes the index plays by a count: Hi-Lo's published indices, and each common count.

    Two kinds of test, and the smallest p times their number (Bonferroni, issue 38): the stratified exact test
    of taking each index's play against Hi-Lo's true count being at its published index (Schlesinger's
    Illustrious 18); and, for each count system of ``COUNT_SYSTEMS`` (Hi-Lo, KO, Hi-Opt II, Omega II), a
    stratified rank test (Mann-Whitney within each situation, summed: van Elteren's without weights) of that
    count's level when the player took the index's play against when they did not, one-sided. The rank tests
    assume no index: a KO, Hi-Opt II or Omega II player deviates at that count's own indices (which differ by
    book and by rules), and whatever they are, the deviations come at higher counts of that system. The best
    fitting count is named. A basic-strategy player, who never changes play, gives no evidence: p = 1.
    """
    strata: dict[str, list[int]] = {}
    for name, at_index, above, _ in decisions:
        cell = strata.setdefault(name, [0, 0, 0, 0])  # [above & at, below & at, above & under, below & under]
        cell[(0 if above else 1) + (0 if at_index else 2)] += 1
    tables = [(c[0], c[2], c[1], c[3]) for c in strata.values()]  # rows: took "above"; columns: at the index
    agree = sum(c[0] + c[3] for c in strata.values())
    n = len(decisions)
    if not n:
        return Signal("index_plays", None, 0, None, "no test: no decision an index play covers")
    observed, expected, p_hilo = stratified_exact_greater(tables)
    ranks: list[tuple[float, str]] = []
    for i, system in enumerate(COUNT_SYSTEMS):
        by_situation: dict[str, tuple[list[float], list[float]]] = {}
        for name, _, above, levels in decisions:
            if len(levels) > i:
                took, other = by_situation.setdefault(name, ([], []))
                (took if above else other).append(levels[i])
        z = stratified_rank_z(list(by_situation.values()))
        if z is not None:
            ranks.append((z, system.name))
    tests = 1 + len(ranks)
    best = max(ranks, default=None)
    p_best = normal_upper(best[0]) if best is not None else 1.0
    p = min(1.0, tests * min(p_hilo, p_best))
    fits = (f"; the deviations fit {best[1]}'s count best (stratified rank z {best[0]:+.2f}); p the smaller of "
            f"{tests} tests times {tests}") if best is not None else ""
    return Signal("index_plays", round(agree / n, 4), n, p,
                  f"played Hi-Lo's way in {agree} of {n} index decisions; the index play at Hi-Lo's index "
                  f"{observed} times ({expected:.1f} expected if the count did not matter){fits}")


def stratified_rank_z(strata: Sequence[tuple[Sequence[float], Sequence[float]]]) -> float | None:
    """Mann-Whitney within each stratum (the first group above the second), summed: (Σ U - E) / sqrt(Σ Var), with
    the ties' correction; None when no stratum has both groups (or no variance)."""
    total = expected = variance = 0.0
    for high, low in strata:
        n1, n2 = len(high), len(low)
        if not n1 or not n2:
            continue
        values = list(high) + list(low)
        ranks = midranks(values)
        u = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
        n = n1 + n2
        ties = 0.0
        for value in set(values):
            t = values.count(value)
            ties += t ** 3 - t
        total += u
        expected += n1 * n2 / 2
        variance += n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if variance <= 0:
        return None
    return (total - expected) / math.sqrt(variance)


def wonging(played: Sequence[int], table_counts: dict[int, float]) -> Signal:
    """Entering at higher counts than staying out, leaving at lower counts than staying: Mann-Whitney, Stouffer."""
    if not played:
        return Signal("wonging", None, 0, None, "no test: no round played")
    inside = set(played)
    span = [t for t in sorted(table_counts) if played[0] <= t <= played[-1]]
    enter: list[float] = []
    stay_out: list[float] = []
    leave: list[float] = []
    stay_in: list[float] = []
    for before, now in zip(span, span[1:]):
        count = table_counts[now]
        if before in inside:
            (stay_in if now in inside else leave).append(count)
        else:
            (enter if now in inside else stay_out).append(count)
    zs = [z for z in (mann_whitney_z(stay_out, enter), mann_whitney_z(leave, stay_in)) if z is not None]
    n = len(enter) + len(leave)
    if not zs:
        return Signal("wonging", None, n, None, "no test: never sat a round out while the table played")
    z = sum(zs) / math.sqrt(len(zs))
    return Signal("wonging", round(z, 3), n, normal_upper(z),
                  f"came in {len(enter)} times (mean true count {_mean(enter):+.1f}, staying out {_mean(stay_out):+.1f}), "
                  f"left {len(leave)} times ({_mean(leave):+.1f}, staying {_mean(stay_in):+.1f})")


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def first_card(rounds: Sequence[_Round]) -> Signal:
    """Bet against the box's first card being an ace or a ten, less its chance given the cards seen."""
    total = variance = 0.0
    mean_so_far: float | None = None
    n = k = 0
    for r in rounds:
        if r.first_high is not None and mean_so_far is not None:
            w = r.bet - mean_so_far
            total += w * (r.first_high - r.chance_high)
            variance += w * w * r.chance_high * (1 - r.chance_high)
            n += 1
        k += 1
        mean_so_far = r.bet if mean_so_far is None else mean_so_far + (r.bet - mean_so_far) / k
    if variance <= 1e-9:
        return Signal("first_card", None, n, None, "no test: the bet never moved from its mean")
    z = total / math.sqrt(variance)
    return Signal("first_card", round(z, 3), n, normal_upper(z),
                  f"bets above their mean went with a first ace or ten z {z:+.2f} past the chance the unseen cards gave")


def hole_card(deviations: Sequence[tuple[float, bool]], opportunities: int) -> Signal:
    """The deviations only the hole card would call for, against the chance the hole card made each right."""
    right = sum(1 for _, ok in deviations if ok)
    if not deviations:
        return Signal("hole_card", None, opportunities, None,
                      f"no test: no deviation a hole card would call for in {opportunities} chances")
    llr = sum(math.log10(KNOWS_HOLE / max(q, 1e-12)) if ok else math.log10((1 - KNOWS_HOLE) / max(1 - q, 1e-12))
              for q, ok in deviations)
    p = poisson_binomial_upper([q for q, _ in deviations], right)
    return Signal("hole_card", round(llr, 3), len(deviations), p,
                  f"{len(deviations)} deviations in {opportunities} chances, {right} made right by the hole card "
                  f"(log10 likelihood ratio, knows it v not, {llr:+.1f})")
