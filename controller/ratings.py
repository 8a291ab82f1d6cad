"""The rating slip, measured by the table (issue 41, part 1). Pure: the journal in order, one line per session out.

A pit rates a player by hand: a supervisor writes the average bet and the time, and the system takes a static
60 decisions an hour and the game's published edge, so its theoretical win is off by the table's real pace and
by how the player really plays. The table knows every bet, decision and payout: `RatingBook` is fed the table's
record as the engine applies it (each accepted event with its effects, and for a player's decision the hand in
turn just before it: `feed` does the three for a caller that holds the `Table`) and answers one `Session` per
player's sitting. What each figure means: docs/ratings.md.

**Sessions.** A ``seat`` opens one (named, or anonymous: "Player on box N"); ``unseat`` ends it; ``pause`` and
``resume`` take time out of it. A bet by a named player on a box nobody is seated on opens one at that bet (the
engine seats them: `controller.seats`); an anonymous bet on such a box opens an anonymous one, and a named
player's bet on a box another player sits on (a back bet) opens one for that player. Those two, which no
``unseat`` ends, end at their last round when `LEFT_AFTER` passes without another, when someone is seated on
the box, or with the seated player's session. A session still open when the journal ends is reported open, its
end the last round it played.

**The figures** (money in cents, the house's side: positive is the house's win):

* ``wagered``: the initial bets of the rounds played (a double's or a split's added stake is the play, not the
  wager: the edge is per initial bet); a box shared by several players is split among them by stake;
* ``actual``: what the house won from the player (the box's net, insurance included, shared by stake);
* ``theo``: ``wagered`` x the game's edge under basic strategy (``edge``: the exact analyser's, off the top),
  plus, for each decision that was not basic strategy's, what it cost: the hand's stake times the difference
  between the expectation of basic strategy's play and of the play taken (``cost``; per unit of the initial
  bet). A basic-strategy player's theo is exactly wagered x edge; every mistake raises it;
* ``thumb_theo``: what a pit's rating would have written: average bet x hours x `THUMB_DECISIONS_PER_HOUR` x
  the same edge.

The book never reads a clock: the times are the journal's (each event's ``at``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from . import events as ev
from .effects import CardPlaced, Effect, RoundSettled
from .legality import Action
from .phase import PLAY
from .seats import seated_name

LEFT_AFTER = timedelta(minutes=30)  # a player no unseat ends has left after this long without a round (decided)
THUMB_DECISIONS_PER_HOUR = 60  # the static pace a pit's rating system takes (issue 41's anchor: 60-70)


@dataclass(frozen=True, slots=True)
class Situation:
    """A blackjack decision as basic strategy sees it: the hand's card values (ace 1, tens 10) in the order dealt,
    the dealer's up card, what the table allows, and the box's hands (a split hand's resplit)."""

    values: tuple[int, ...]
    up: int
    can_double: bool
    can_split: bool
    can_surrender: bool
    hands_in_box: int
    is_split_hand: bool


Cost = Callable[[Situation, Action], float | None]
"""What taking ``action`` in a situation costs against basic strategy's play, per unit of the initial bet (0 for
basic strategy's own play; None: the play cannot be priced)."""


@dataclass(frozen=True, slots=True)
class _Before:
    """The hand in turn just before an event: its box and hand, its stake (cents), and the situation."""

    box: int
    hand: int
    stake: int
    situation: Situation


def before(table: Any) -> _Before | None:
    """The blackjack decision the table waits for now (a hand of two cards or more, not doubled), or None."""
    if table.phase not in PLAY or table.rules.game != "blackjack":
        return None
    r = table.round
    if r is None or r.box_i >= len(r.boxes) or not r.dealer.cards:
        return None
    hand = r.hand
    if len(hand.cards) < 2 or hand.doubled or hand.done or hand.box is None:
        return None
    legal = table.legal_actions()
    box = hand.box
    return _Before(box.number, r.hand_i, hand.stake, Situation(
        tuple(c.value for c in hand.cards), r.dealer.cards[0].value, Action.DOUBLE in legal, Action.SPLIT in legal,
        Action.SURRENDER in legal, len(box.hands), hand.from_split))


@dataclass
class Session:
    """One player's sitting at the table, with the figures of their slip (money in cents, house's side)."""

    player: str  # their name, or "Player on box N"
    box: int
    named: bool
    seated: bool  # by a seat event (else opened by a bet)
    card: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    open: bool = True
    paused_seconds: float = 0.0
    paused_at: datetime | None = None
    last_round_at: datetime | None = None
    rounds: int = 0
    hands: int = 0
    decisions: int = 0  # the player's own decisions taken (hit, stand, double, split, surrender)
    mistakes: int = 0  # decisions that were not basic strategy's
    unpriced: int = 0  # decisions no cost could be given for
    wagered: int = 0
    largest_bet: int = 0
    actual: int = 0
    mistake_cost: float = 0.0  # cents of expectation the mistakes gave the house
    edge: float | None = None  # the house's edge under basic strategy (a fraction), when the game has one

    @property
    def seconds(self) -> float:
        """Time played: start to end, less the pauses."""
        if self.start is None or self.end is None:
            return 0.0
        return max((self.end - self.start).total_seconds() - self.paused_seconds, 0.0)

    @property
    def hours(self) -> float:
        """Time played in hours."""
        return self.seconds / 3600

    @property
    def average_bet(self) -> float | None:
        """The mean initial bet a round played (cents)."""
        return self.wagered / self.rounds if self.rounds else None

    @property
    def decisions_per_hour(self) -> float | None:
        """Hands decided per hour played: the pace a pit's rating takes as 60 (a split adds a hand)."""
        return self.hands / self.hours if self.hours > 0 else None

    @property
    def basic_theo(self) -> float | None:
        """wagered x the edge of basic strategy (cents)."""
        return self.wagered * self.edge if self.edge is not None else None

    @property
    def theo(self) -> float | None:
        """The theoretical win by measured play: basic strategy's, plus what each mistake cost (cents)."""
        base = self.basic_theo
        return base + self.mistake_cost if base is not None else None

    @property
    def measured_edge(self) -> float | None:
        """The house's edge under the player's measured play: theo / wagered."""
        theo = self.theo
        return theo / self.wagered if theo is not None and self.wagered else None

    @property
    def thumb_theo(self) -> float | None:
        """The rule of thumb's theo: average bet x hours x 60 decisions an hour x the edge (cents)."""
        if self.edge is None or self.average_bet is None:
            return None
        return self.average_bet * self.hours * THUMB_DECISIONS_PER_HOUR * self.edge


@dataclass
class _Box:
    """What the book keeps of a box: who sits on it, the other sessions on it, when its next round's bets came."""

    seated: Session | None = None
    others: dict[str, Session] = field(default_factory=dict)  # back bets and anonymous play, by player
    first_bet_at: datetime | None = None
    cost: float = 0.0  # the round's mistake costs on this box, shared at its settlement
    decisions: int = 0
    mistakes: int = 0
    unpriced: int = 0


class RatingBook:
    """Books the journal, in order, into sessions (`Session`): feed it with `feed` or `event`."""

    def __init__(self, edge: float | None = None, cost: Cost | None = None, since: datetime | None = None,
                 until: datetime | None = None) -> None:
        """``edge``: the house's edge under basic strategy (a fraction; None: the game has none); ``cost``: the
        price of a decision (`Cost`); ``since``/``until``: report only the sessions that overlap that window."""
        self.edge = edge
        self.cost = cost
        self.since, self.until = since, until
        self.sessions: list[Session] = []
        self.boxes: dict[int, _Box] = {}
        self.now: datetime | None = None

    def _box(self, n: int) -> _Box:
        box = self.boxes.get(n)
        if box is None:
            box = self.boxes[n] = _Box()
        return box

    def _open(self, box: int, player: str | None, at: datetime | None, *, seated: bool, card: str | None = None
              ) -> Session:
        session = Session(seated_name(box, player), box, player is not None, seated, card, start=at, end=at,
                          edge=self.edge)
        self.sessions.append(session)
        return session

    def _close(self, session: Session, at: datetime | None) -> None:
        if not session.open:
            return
        session.open = False
        if session.paused_at is not None and at is not None:
            session.paused_seconds += max((at - session.paused_at).total_seconds(), 0.0)
            session.paused_at = None
        if at is not None and session.seated:
            session.end = at
        # a session opened by a bet ends at its last round (set as rounds settle)

    # ---------------------------------------------------------------- the record, in order
    def event(self, event: ev.Event, effects: Sequence[Effect], was: _Before | None = None) -> None:
        """An accepted ``event``, the ``effects`` the engine gave it, and the decision waited for just before it."""
        at = event.at or self.now
        if event.at is not None:
            self.now = event.at
        if isinstance(event, ev.Seat):
            box = self._box(event.box)
            for other in [o for o in box.others.values() if o.player == seated_name(event.box, None)]:
                self._close(other, at)  # the anonymous play on the box was this player's or ended
                box.others.pop(other.player, None)
            box.seated = self._open(event.box, event.player, at, seated=True, card=event.card)
        elif isinstance(event, ev.Unseat):
            box = self._box(event.box)
            if box.seated is not None:
                self._close(box.seated, at)
                box.seated = None
            for other in box.others.values():
                self._close(other, at)
            box.others = {}
        elif isinstance(event, (ev.Pause, ev.Resume)):
            seated = self._box(event.box).seated
            if seated is not None:
                if isinstance(event, ev.Pause):
                    seated.paused_at = at
                elif seated.paused_at is not None and at is not None:
                    seated.paused_seconds += max((at - seated.paused_at).total_seconds(), 0.0)
                    seated.paused_at = None
        elif isinstance(event, ev.PlaceBet):
            box = self._box(event.box)
            if box.first_bet_at is None:
                box.first_bet_at = at
            if event.player is not None and box.seated is None:
                box.seated = self._open(event.box, event.player, at, seated=False)  # as the engine seats them
        if was is not None:
            self._decision(event, effects, was)
        for effect in effects:
            if isinstance(effect, RoundSettled):
                self._settle(effect, at)

    def _decision(self, event: ev.Event, effects: Sequence[Effect], was: _Before) -> None:
        action: Action | None
        if isinstance(event, ev.Stand):
            action = Action.STAND
        elif isinstance(event, ev.Double):
            action = Action.DOUBLE
        elif isinstance(event, ev.Split):
            action = Action.SPLIT
        elif isinstance(event, ev.Surrender):
            action = Action.SURRENDER
        elif isinstance(event, ev.CardDrawn) and any(
                isinstance(e, CardPlaced) and e.to == "box" and e.box == was.box and e.hand == was.hand
                for e in effects):
            action = Action.HIT
        else:
            return
        box = self._box(was.box)
        box.decisions += 1
        if self.cost is None:
            return
        loss = self.cost(was.situation, action)
        if loss is None:
            box.unpriced += 1
        elif loss > 1e-12:
            box.mistakes += 1
            box.cost += loss * was.stake

    def _session_for(self, number: int, player: str, at: datetime | None) -> Session:
        """The session a box's bettor ``player`` (``boxN``: the box's anonymous bettor) plays this round in."""
        box = self._box(number)
        anonymous = player == f"box{number}"
        seated = box.seated
        if seated is not None and seated.open and (anonymous or seated.player == player):
            return seated
        name = seated_name(number, None if anonymous else player)
        session = box.others.get(name)
        if session is not None and session.last_round_at is not None and at is not None \
                and at - session.last_round_at > LEFT_AFTER:
            self._close(session, session.last_round_at)
            session = None
        if session is None:
            session = box.others[name] = self._open(number, None if anonymous else player,
                                                    box.first_bet_at or at, seated=False)
        return session

    def _settle(self, effect: RoundSettled, at: datetime | None) -> None:
        r = effect.round
        for played in r.boxes:
            box = self._box(played.number)
            cost, decisions, mistakes, unpriced = box.cost, box.decisions, box.mistakes, box.unpriced
            box.cost, box.decisions, box.mistakes, box.unpriced = 0.0, 0, 0, 0
            if r.voided or not played.bet:
                continue
            net = played.net()
            for player, stake in played.bets.items():
                session = self._session_for(played.number, player, at)
                share = stake / played.bet
                session.rounds += 1
                session.hands += len(played.hands)
                session.wagered += stake
                session.largest_bet = max(session.largest_bet, stake)
                session.actual -= round(net * share)
                session.mistake_cost += cost * share
                session.decisions += decisions if share == 1 else round(decisions * share)
                session.mistakes += mistakes if share == 1 else round(mistakes * share)
                session.unpriced += unpriced if share == 1 else round(unpriced * share)
                session.last_round_at = at
                if not session.seated or session.open:
                    session.end = at
        for box in self.boxes.values():
            box.first_bet_at = None

    def expire(self, now: datetime) -> list[Session]:
        """End, at their last round, the sessions no ``unseat`` ends whose player has left: `LEFT_AFTER` passed
        by ``now`` without a round of theirs (what a later bet of theirs would find). The ones ended."""
        ended = []
        for box in self.boxes.values():
            for name, other in list(box.others.items()):
                if other.last_round_at is not None and now - other.last_round_at > LEFT_AFTER:
                    self._close(other, other.last_round_at)
                    box.others.pop(name)
                    ended.append(other)
        return ended

    # ---------------------------------------------------------------- the answers
    def report(self) -> list[Session]:
        """Every session that played or sat within the window, in the order they opened."""
        out = []
        for session in self.sessions:
            if self.since is not None and session.end is not None and session.end < self.since:
                continue
            if self.until is not None and session.start is not None and session.start >= self.until:
                continue
            if session.rounds or session.seated:
                out.append(session)
        return out


def feed(book: RatingBook, table: Any, event: ev.Event, received: datetime | None = None) -> list[Effect]:
    """Apply ``event`` to ``table`` and book it with its effects (IllegalAction passes through, nothing booked);
    ``received``: when the journal took it, for an event that carries no time of its own."""
    was = before(table)
    if event.at is None and received is not None:
        book.now = received
    effects: list[Effect] = table.apply(event)
    book.event(event, effects, was)
    return effects
