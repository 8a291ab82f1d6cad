"""The record of a disputed round (issue 26, part 3), built from a verified journal's rows: pure.

`DisputeBook` is fed the ledger's rows in order (`feed`), from the journal's first row, and replays each
accepted event through the engine exactly as the table applied it (a refused action is kept, never
applied). It keeps what the record needs of the round asked for and of the ``recall`` rounds settled
before it (the regulators' last-game recall), nothing more, so a long journal streams through it.
`DisputeBook.record` then returns the `DisputeRecord`: the table, the shoe and each card's position and
time, each box's bets and decisions, the settlement the engine computes again against the round record
the table kept when the round settled (what it told the dealer to pay), the dealer on duty and the
supervisors who acted, the round's alerts, the Hi-Lo count at each bet (the surveillance copy only), and
the journal rows it came from with their MACs and the head they chain to.

It reads no file, clock or zone database: the caller verifies the journal, reads its rows and the kept
round records, and passes in the head it verified, the time of the export and the time zone
(`DisputeOptions`). Renderers (JSON, HTML, PDF) live in ``tablectl.dispute``; docs/dispute.md says what
each part of the record means.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from decimal import Decimal
from enum import Enum
from typing import Any, Callable, Iterable, Mapping

from . import events as ev
from . import registry
from .authority import ReplayRefused
from .closed import ClosedCards
from .effects import AlertCleared, AlertRaised, CardPlaced, Effect, RoundSettled
from .engine import IllegalAction, Table
from .events import BadEvent, Event, SetRules
from .event_codec import parse_event
from .game import ShoeFigure
from .journal import EVENT, LedgerRow, UnreadableRow
from .rules import RuleError, build_rules

FORMAT = 1  # the record's own format: a reader of an older one knows it
RECALL = 10  # the rounds before the disputed one that the record recalls (last-game recall)
# The rows of the disputed round's window the record lists at most (issue 37): a round is a few dozen rows, but
# the rows between two rounds are not bounded (a reserved box's clock ticks, a flapping shoe link, refused
# actions). Past this many, the earliest are left out of the listing (counted, and still verified and applied).
MAX_WINDOW_ROWS = 2000

# The table's Hi-Lo count, as the pit dashboard computes it from the cards left (tablectl/api/static/app.js,
# HILO): 2-6 count +1, 7-9 nothing, tens and aces -1; the true count is per 52 cards left.
HI_LO = {"2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "7": 0, "8": 0, "9": 0, "T": -1, "J": -1, "Q": -1, "K": -1, "A": -1}

# What a box stakes before its round (each listed under its box with the count, in the surveillance copy): the
# table's bet and reservation, and each game's own (`Game.stake_events`, club-21-36's deal-in).
_CORE_STAKES = (ev.PlaceBet, ev.Reserve)


def _stakes() -> tuple[type, ...]:
    """Every event that stakes a box before its round, the table's own and every registered game's."""
    return (*_CORE_STAKES, *registry.stake_events())


def _is_box_decision(event: Event, stakes: tuple[type, ...]) -> bool:
    """A decision about one box (the one it names, else the box in turn), in any game: an event with a ``box`` that
    stakes nothing (stand, double, split, surrender, insurance, a club game's fold, withdraw ...)."""
    return "box" in getattr(type(event), "__dataclass_fields__", {}) and not isinstance(event, stakes)
# The roles whose keys may act as a supervisor (an admin's includes a supervisor's): tablectl.web.auth's actor.
_SUPERVISOR_ROLES = ("supervisor", "admin")


class Copy(str, Enum):
    """Whose copy of the record: the pit's has no count; surveillance's has the count at each bet."""

    PIT = "pit"
    SURVEILLANCE = "surveillance"


class NoSuchRound(LookupError):
    """The journal holds no round of that number, settled or in play."""


class RoundNotSettled(LookupError):
    """The round is still in play: a record is made of a settled round only."""


class RoundStillClosed(LookupError):
    """A card of the round is still face down at the table (club-21-36's banker carries his kept card into the
    next round): the record waits until it is turned, so no copy shows a card the table still keeps closed."""


@dataclass(frozen=True, slots=True)
class DisputeOptions:
    """What the record is made with, besides the journal: all passed in (no clock, no zone database here)."""

    round_number: int
    table: str
    exported_by: str
    exported_at: datetime
    time_zone: tzinfo = timezone.utc
    time_zone_name: str | None = None  # None: no zone was configured or given, and local times are UTC (said so)
    camera: str | None = None  # the camera or recorder that covers the table, as surveillance names it
    recorder_offset_s: float = 0.0  # the recorder's clock minus the table's (seconds)
    copy: Copy = Copy.PIT
    recall: int = RECALL


@dataclass(frozen=True, slots=True)
class KeptRecord:
    """A round record as the journal's rounds table keeps it: the record, the row it is bound to, its MAC."""

    record: dict[str, Any]
    seq: int
    mac: str


@dataclass(frozen=True, slots=True)
class JournalHead:
    """The journal's head when the record was made, and how far it was verified (``note``: in words)."""

    seq: int
    mac: str
    key_id: str
    note: str = ""  # empty: every row up to ``seq`` was verified with the key


@dataclass(frozen=True, slots=True)
class BookStart:
    """Where a book starts, when not at the journal's first row: the table as the state kept after row ``seq``
    restores it (its MAC checked by the caller), that row's MAC, the last shuffle row at or before it (the shoe
    the next round is dealt from) and the last act of a supervisor's key before it, if the caller found them."""

    table: Table
    seq: int
    mac: str
    shuffle: LedgerRow | None = None
    supervisor_before: LedgerRow | None = None


# ---------------------------------------------------------------------------- the record's parts
@dataclass(frozen=True, slots=True)
class Moment:
    """One instant: UTC, the local time in the record's time zone, and what the recorder's clock reads then."""

    utc: str
    local: str
    recorder: str


@dataclass(frozen=True, slots=True)
class CardLine:
    """A card the shoe gave during the round's rows: its position in the shoe and where the table placed it."""

    seq: int
    shoe_id: str | None
    position: int | None
    card: str
    to: str  # box, dealer, burn, bottom, held, discard (controller.effects.CardPlaced), or "" when placed nowhere
    box: int | None
    hand: int | None
    face_down: bool
    at: Moment


@dataclass(frozen=True, slots=True)
class StakeLine:
    """A bet (or a reservation, or a club-21-36 deal-in) on a box, with the table's count when it was placed."""

    seq: int
    type: str
    box: int
    player: str | None
    amount: str | None
    actor: str | None
    at: Moment
    refused: str | None = None  # the refusal's code and message, when the table refused it
    returned: bool = False  # a supervisor voided the bets before the round was dealt: they went back
    running_count: int | None = None  # surveillance copy only
    true_count: float | None = None


@dataclass(frozen=True, slots=True)
class DecisionLine:
    """A decision about one box: stand, double, split, insurance ..., accepted or refused."""

    seq: int
    type: str
    box: int | None
    hand: int | None
    amount: str | None
    actor: str | None
    at: Moment
    refused: str | None = None


@dataclass(frozen=True, slots=True)
class BoxLine:
    """One box of the round: its stakes and decisions in order, and its hands and insurance as the engine settles them."""

    box: int
    stakes: list[StakeLine]
    decisions: list[DecisionLine]
    hands: list[dict[str, Any]]
    insurance: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ActLine:
    """Anything else in the round's rows: the shuffle, the dealer signing in, a supervisor's act, the shoe's faults."""

    seq: int
    type: str
    actor: str | None
    at: Moment
    refused: str | None = None


@dataclass(frozen=True, slots=True)
class Difference:
    """Where the record the table kept and the engine's settlement differ: a path in the record, both values."""

    path: str
    recorded: str
    engine: str


@dataclass(frozen=True, slots=True)
class Settlement:
    """The settlement the engine computes again on replay against the record kept when the round settled."""

    engine: dict[str, Any]
    recorded: dict[str, Any] | None
    recorded_mac: str | None
    agrees: bool
    differences: list[Difference]


@dataclass(frozen=True, slots=True)
class DealerOnDuty:
    """The dealer signed in (dealer_in) when the round was dealt, and since when; None: nobody was signed in."""

    dealer: str | None
    since: Moment | None


@dataclass(frozen=True, slots=True)
class SupervisorAct:
    """One act of a supervisor's key on the table."""

    actor: str
    seq: int
    type: str
    at: Moment
    refused: bool


@dataclass(frozen=True, slots=True)
class Supervisors:
    """The supervisors on duty as the journal knows them: there is no supervisor sign-in."""

    note: str
    during: list[SupervisorAct]
    last_before: SupervisorAct | None


@dataclass(frozen=True, slots=True)
class AlertLine:
    """An alert of the round: raised during its rows, or open when they began."""

    id: int
    kind: str
    level: str
    message: str
    raised: Moment | None
    raised_seq: int | None  # None: open before the round's first row
    cleared_seq: int | None
    acknowledged_by: str | None
    count: int


@dataclass(frozen=True, slots=True)
class SourceRow:
    """A ledger row the record comes from, exactly as stored (its MAC covers these and the row before)."""

    seq: int
    kind: str
    received_at: str
    body: str
    shoe_id: str | None
    position: int | None
    code: str | None
    message: str | None
    mac: str


@dataclass(frozen=True, slots=True)
class Verification:
    """How the rows chain: the row before the first (its MAC starts the chain), and the head verified."""

    verified: bool
    key_id: str
    first_seq: int
    last_seq: int
    previous_seq: int
    previous_mac: str  # "" before the journal's first row
    head_seq: int
    head_mac: str
    note: str
    replayed_from: int = 0  # the row whose kept state the replay started from (0: the journal's first row)
    rows_left_out: int = 0  # rows of the round's window before `first_seq` not listed (MAX_WINDOW_ROWS)


@dataclass(frozen=True, slots=True)
class Camera:
    """The camera or recorder covering the table and its clock's offset, from the table's config."""

    reference: str | None
    recorder_offset_s: float
    time_zone: str
    note: str


@dataclass(frozen=True, slots=True)
class Exported:
    """Who made this record, when, and whose copy it is."""

    by: str
    at: Moment
    copy: str


@dataclass(frozen=True, slots=True)
class RecallRound:
    """One of the rounds before the disputed one, in order: what was dealt and settled."""

    number: int
    shoe_id: str | None
    first_seq: int
    last_seq: int
    started: Moment | None
    settled: Moment
    dealer_on_duty: str | None
    dealer_cards: list[str]
    hands: list[dict[str, Any]]
    net: str
    void: bool
    agrees: bool | None  # None: no record kept (the journal held none to compare)


@dataclass(frozen=True, slots=True)
class DisputeRecord:
    """The whole record of a disputed round (docs/dispute.md)."""

    format: int
    table: str
    game: str
    rules: str
    round: int
    shoe_id: str | None
    shuffled: Moment | None
    started: Moment | None
    settled: Moment
    void: bool
    cards: list[CardLine]
    boxes: list[BoxLine]
    acts: list[ActLine]
    settlement: Settlement
    dealer: DealerOnDuty
    supervisors: Supervisors
    alerts: list[AlertLine]
    counts: str  # what the copy says of the count: shown at each bet, or left out (and why)
    rows: list[SourceRow]
    verification: Verification
    camera: Camera
    exported: Exported
    recall: list[RecallRound]
    # Where an imported journal came from (`tablectl journal import`, issue 38): source, format, sha256, at; None
    # for a table's own record. The record says so at its top: not a live table's evidence.
    imported: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (what `--format json` writes)."""
        return asdict(self)


# ---------------------------------------------------------------------------- the replay
@dataclass(slots=True)
class _Step:
    """A row as the replay met it, with what the record needs of the table just before it was applied."""

    row: LedgerRow
    event: Event
    effects: list[Effect]
    count: tuple[int, float] | None = None
    turn: tuple[int | None, int | None] = (None, None)
    returned: bool = False  # a stake a supervisor's void sent back before the round was dealt


@dataclass(slots=True)
class _Window:
    """The rows from the one after a round's settlement to the next settlement: one round's rows.

    Only the disputed round's window keeps its steps (at most MAX_WINDOW_ROWS of them, the earliest left out
    past that, their alerts kept); another round's keeps where it began and when it was dealt."""

    previous_seq: int
    previous_mac: str
    supervisor_before: SupervisorAct | None
    steps: list[_Step] = field(default_factory=list)
    open_alerts: list[dict[str, object]] = field(default_factory=list)
    started_seq: int | None = None
    started_at: str | None = None
    shuffle: LedgerRow | None = None
    first_seq: int | None = None
    left_out: int = 0
    left_out_mac: str = ""  # the MAC of the last row left out: the first row listed chains from it
    early_alerts: list[tuple[int, Effect]] = field(default_factory=list)  # (seq, effect) of the rows left out


@dataclass(frozen=True, slots=True)
class _Settled:
    number: int
    window: _Window
    record: dict[str, Any]
    settled: LedgerRow
    dealer: str | None
    dealer_since: datetime | None
    game: str
    rules: str
    figures: frozenset[ShoeFigure]


class DisputeBook:
    """Feed it every ledger row in order (`feed`) until it is `done`, then ask for the `record`."""

    def __init__(self, options: DisputeOptions, start: BookStart | None = None) -> None:
        """A book for round ``options.round_number`` and the ``options.recall`` rounds before it; fed from the
        journal's first row, or from the row after ``start.seq`` with the table restored as it was then."""
        if options.round_number < 1:
            raise ValueError("a round's number is 1 or more")
        self.options = options
        self._table: Table | None = None
        self._closed = ClosedCards()
        self._last_seq = 0
        self._last_mac = ""
        self._last_supervisor: SupervisorAct | None = None
        self._recall: deque[_Settled] = deque(maxlen=max(options.recall, 0))
        self._target: _Settled | None = None
        self._shuffle: LedgerRow | None = None  # the last shuffle row: the shoe the next round is dealt from
        self._stakes = _stakes()
        self.started_from = 0
        if start is not None:
            self._table, self._last_seq, self._last_mac = start.table, start.seq, start.mac
            self._shuffle = start.shuffle
            if start.supervisor_before is not None:
                self._last_supervisor = self._supervisor_act(start.supervisor_before,
                                                             _event_of(start.supervisor_before))
            self.started_from = start.seq
        self._window = _Window(self._last_seq, self._last_mac, self._last_supervisor)

    @property
    def done(self) -> bool:
        """True once the round is settled and none of its cards is still face down at the table."""
        return self._target is not None and not self._still_closed()

    @property
    def wanted(self) -> list[int]:
        """The numbers of the rounds whose kept records the record compares (ask once `done`)."""
        numbers = [s.number for s in self._recall]
        return numbers + ([self._target.number] if self._target is not None else [])

    def feed(self, row: LedgerRow) -> None:
        """Replay one ledger row (the next in order) and keep what the record needs of it."""
        if row.seq != self._last_seq + 1:
            raise ValueError(f"ledger rows are fed in order: row {row.seq} after row {self._last_seq}")
        event = _event_of(row)
        if self._table is None:
            self._table = _first_table(event)
        table = self._table
        wanted = self._is_wanted(table)
        if wanted and not self._window.steps:
            self._window.open_alerts = [a.as_dict(True) for a in table.open_alerts()]
        step = _Step(row, event, [])
        if wanted and isinstance(event, self._stakes) and self.options.copy is Copy.SURVEILLANCE:
            step.count = _count(table)
        if wanted and _is_box_decision(event, self._stakes):
            step.turn = _turn(table, event)
        in_round = table.round
        if row.kind == EVENT:
            try:
                step.effects = table.apply(event)
            except IllegalAction as exc:
                raise ReplayRefused(
                    f"journal row {row.seq} ({event.type}) was accepted when it was recorded, but this build's "
                    f"engine refuses it on replay ({exc.code}: {exc.message}); run the build that recorded the "
                    "journal, and keep the file") from None
            self._closed.track(row.seq, step.effects)
        self._last_seq, self._last_mac = row.seq, row.mac
        if self._target is not None:
            return  # (only the closed cards are followed past the round: `done`)
        if isinstance(event, ev.Shuffle) and row.kind == EVENT:
            self._shuffle = row
        window = self._window
        if window.first_seq is None:
            window.first_seq = row.seq
        if wanted:
            window.steps.append(step)
            if len(window.steps) > MAX_WINDOW_ROWS:  # bounded: the earliest rows' alerts are kept, the rows counted
                early = window.steps.pop(0)
                window.left_out += 1
                window.left_out_mac = early.row.mac
                window.early_alerts += [(early.row.seq, e) for e in early.effects
                                        if type(e) in (AlertRaised, AlertCleared)]
        if in_round is None and table.round is not None and window.started_seq is None:
            window.started_seq = row.seq
            window.started_at = row.received_at
            window.shuffle = self._shuffle
        if isinstance(event, ev.VoidRound) and in_round is None and row.kind == EVENT:
            # The bets placed for the next round went back: they are no stake of the round dealt after.
            for earlier in window.steps:
                if isinstance(earlier.event, self._stakes):
                    earlier.returned = True
        act = self._supervisor_act(row, event)
        if act is not None:
            self._last_supervisor = act
        for effect in step.effects:
            if type(effect) is RoundSettled:
                self._settled(effect, row, table)

    def record(self, kept: Mapping[int, KeptRecord], head: JournalHead) -> DisputeRecord:
        """The record, once every row up to ``head`` was fed or the book is `done`.

        ``kept``: the round records the journal keeps, by number (those of `wanted`). NoSuchRound,
        RoundNotSettled or RoundStillClosed say why no record can be made.
        """
        number = self.options.round_number
        target = self._target
        if target is None:
            table = self._table
            if table is not None and table.round is not None and table.round.number == number:
                raise RoundNotSettled(f"round {number} is not settled yet: a record is made once it is settled")
            played = table.rounds_played if table is not None else 0
            settled = f"rounds 1 to {played} are" if played > 1 else "round 1 is" if played == 1 else "no round is"
            raise NoSuchRound(f"the journal holds no round {number}: {settled} in it")
        if self._still_closed():
            raise RoundStillClosed(f"a card of round {number} is still face down at the table (the banker's kept "
                                   "card): make the record once the next round has turned it")
        o = self.options
        w = target.window
        first = w.steps[0].row
        last = target.settled
        previous_seq = first.seq - 1 if w.left_out else w.previous_seq
        counts_shown = o.copy is Copy.SURVEILLANCE and ShoeFigure.COUNT in target.figures
        if o.copy is Copy.SURVEILLANCE:
            counts = ("the table's own Hi-Lo count (running, and true per 52 cards left) just before each bet" if
                      counts_shown else f"no count: the game {target.game} has none (its pack is not a 52-card shoe's)")
        else:
            counts = "left out: the pit's copy has no count (surveillance's copy has it at each bet)"
        zone = o.time_zone_name or "UTC"
        return DisputeRecord(
            format=FORMAT,
            table=o.table,
            game=target.game,
            rules=target.rules,
            round=number,
            shoe_id=target.record.get("shoe_id"),
            shuffled=self._moment(w.shuffle.received_at) if w.shuffle is not None else None,
            started=self._moment(w.started_at) if w.started_at is not None else None,
            settled=self._moment(last.received_at),
            void=bool(target.record.get("void")),
            cards=self._cards(w),
            boxes=self._boxes(w, target.record, counts_shown),
            acts=self._acts(w),
            settlement=_settlement(target, kept.get(number)),
            dealer=DealerOnDuty(target.dealer, self._moment(target.dealer_since) if target.dealer_since else None),
            supervisors=Supervisors(
                note=("There is no supervisor sign-in: these are the supervisors' keys that acted on the table during "
                      "the round's rows, and the last one that acted before them"),
                during=[a for a in (self._supervisor_act(s.row, s.event) for s in w.steps) if a is not None],
                last_before=w.supervisor_before),
            alerts=_alerts(w, self._moment),
            counts=counts,
            rows=[_source(s.row) for s in w.steps],
            verification=Verification(
                verified=True, key_id=head.key_id, first_seq=first.seq, last_seq=last.seq,
                previous_seq=previous_seq, previous_mac=w.left_out_mac if w.left_out else w.previous_mac,
                head_seq=head.seq, head_mac=head.mac,
                note=head.note or (
                    f"Every row of the journal, 1 to {head.seq}, was verified with the table's key (id {head.key_id}) "
                    f"as this record was made; row {first.seq}'s MAC covers row {previous_seq}'s MAC, each row's "
                    f"the one before, and the chain runs on to the head"),
                replayed_from=self.started_from, rows_left_out=w.left_out),
            camera=Camera(
                reference=o.camera, recorder_offset_s=o.recorder_offset_s, time_zone=zone,
                note=("" if o.time_zone_name else "no time zone is configured for the table: local times are UTC; ")
                + (f"the recorder's clock reads {o.recorder_offset_s:+g} s from the table's" if o.recorder_offset_s
                   else "the recorder's clock is taken to agree with the table's")),
            exported=Exported(by=o.exported_by, at=self._moment(o.exported_at), copy=o.copy.value),
            recall=[self._recall_round(s, kept.get(s.number)) for s in self._recall],
            imported=dict(self._table.imported) if self._table is not None and self._table.imported else None,
        )

    # ------------------------------------------------------------------ while feeding
    def _is_wanted(self, table: Table) -> bool:
        """Is the row about to be applied one of the disputed round's (its bets come before it is dealt)?"""
        number = table.round.number if table.round is not None else table.rounds_played + 1
        return number == self.options.round_number

    def _supervisor_act(self, row: LedgerRow, event: Event) -> SupervisorAct | None:
        actor = event.actor
        if actor is None or actor.partition(":")[0] not in _SUPERVISOR_ROLES:
            return None
        return SupervisorAct(actor, row.seq, event.type, self._moment(row.received_at), row.kind != EVENT)

    def _settled(self, effect: RoundSettled, row: LedgerRow, table: Table) -> None:
        record = json.loads(json.dumps(effect.result))  # as the journal keeps it: JSON
        settled = _Settled(effect.round.number, self._window, record, row, table.dealer_on_duty, table.dealer_since,
                           table.rules.game, table.rules.name, frozenset(table.game.shoe_figures))
        if settled.number == self.options.round_number:
            self._target = settled
        else:
            self._recall.append(settled)
        self._window = _Window(row.seq, row.mac, self._last_supervisor)

    def _still_closed(self) -> bool:
        target = self._target
        return target is not None and any(self._closed.is_closed(s.row.seq) for s in target.window.steps)

    # ------------------------------------------------------------------ the record's parts
    def _moment(self, at: str | datetime) -> Moment:
        t = datetime.fromisoformat(at) if isinstance(at, str) else at
        if t.tzinfo is None:
            t = t.replace(tzinfo=timezone.utc)
        local = t.astimezone(self.options.time_zone)
        recorder = local + timedelta(seconds=self.options.recorder_offset_s)
        return Moment(utc=t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z"), local=local.isoformat(),
                      recorder=recorder.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3])

    def _cards(self, w: _Window) -> list[CardLine]:
        out = []
        for s in w.steps:
            if not isinstance(s.event, ev.CardDrawn) or s.row.kind != EVENT:
                continue
            placed = next((e for e in s.effects if type(e) is CardPlaced), None)
            out.append(CardLine(
                seq=s.row.seq, shoe_id=s.row.shoe_id, position=s.row.position if s.row.position is not None
                else s.event.position, card=s.event.card.code, to=placed.to if placed is not None else "",
                box=placed.box if placed is not None else None, hand=placed.hand if placed is not None else None,
                face_down=placed.face_down if placed is not None else False, at=self._moment(s.row.received_at)))
        return out

    def _boxes(self, w: _Window, record: dict[str, Any], counts_shown: bool) -> list[BoxLine]:
        stakes: dict[int, list[StakeLine]] = {}
        decisions: dict[int, list[DecisionLine]] = {}
        for s in w.steps:
            row = s.row
            e: Any = s.event  # a stake or a decision of any game: its fields are read by name (box, player, amount)
            refused = f"{row.code}: {row.message}" if row.kind != EVENT else None
            if type(e) in self._stakes:
                amount = _amount(e.amount) if isinstance(getattr(e, "amount", None), Decimal) else None
                count = s.count if counts_shown else None
                stakes.setdefault(e.box, []).append(StakeLine(
                    seq=row.seq, type=e.type, box=e.box, player=e.player, amount=amount, actor=e.actor,
                    at=self._moment(row.received_at), refused=refused, returned=s.returned,
                    running_count=count[0] if count is not None else None,
                    true_count=count[1] if count is not None else None))
            elif _is_box_decision(e, self._stakes):
                box = e.box if e.box is not None else s.turn[0]
                amount = _amount(e.amount) if isinstance(getattr(e, "amount", None), Decimal) else None
                line = DecisionLine(seq=row.seq, type=e.type, box=box, hand=s.turn[1] if box == s.turn[0] else None,
                                    amount=amount, actor=e.actor, at=self._moment(row.received_at), refused=refused)
                decisions.setdefault(box if box is not None else 0, []).append(line)
        hands: dict[int, list[dict[str, Any]]] = {}
        for h in record.get("hands", []):
            if isinstance(h, dict) and isinstance(h.get("box"), int):
                hands.setdefault(h["box"], []).append(h)
        insurance: dict[int, list[dict[str, Any]]] = {}
        for i in record.get("insurance", []) or []:
            if isinstance(i, dict) and isinstance(i.get("box"), int):
                insurance.setdefault(i["box"], []).append(i)
        numbers = sorted(set(stakes) | set(decisions) | set(hands) | set(insurance))
        return [BoxLine(n, stakes.get(n, []), decisions.get(n, []), hands.get(n, []), insurance.get(n, []))
                for n in numbers]

    def _acts(self, w: _Window) -> list[ActLine]:
        out = []
        for s in w.steps:
            if isinstance(s.event, (ev.CardDrawn, *self._stakes)) or _is_box_decision(s.event, self._stakes):
                continue
            refused = f"{s.row.code}: {s.row.message}" if s.row.kind != EVENT else None
            out.append(ActLine(s.row.seq, s.event.type, s.event.actor, self._moment(s.row.received_at), refused))
        return out

    def _recall_round(self, s: _Settled, kept: KeptRecord | None) -> RecallRound:
        r = s.record
        w = s.window
        return RecallRound(
            number=s.number, shoe_id=r.get("shoe_id"), first_seq=w.first_seq if w.first_seq is not None
            else s.settled.seq, last_seq=s.settled.seq,
            started=self._moment(w.started_at) if w.started_at is not None else None,
            settled=self._moment(s.settled.received_at), dealer_on_duty=s.dealer,
            dealer_cards=list((r.get("dealer") or {}).get("cards", [])) if isinstance(r.get("dealer"), dict) else [],
            hands=[h for h in r.get("hands", []) if isinstance(h, dict)], net=str(r.get("net", "0")),
            void=bool(r.get("void")), agrees=None if kept is None else not _differences(s, kept))


# ---------------------------------------------------------------------------- helpers
def _event_of(row: LedgerRow) -> Event:
    try:
        return parse_event(json.loads(row.body), recorded=True)
    except (BadEvent, ValueError, RecursionError) as exc:
        raise UnreadableRow(f"ledger row {row.seq} cannot be read by this release ({str(exc)[:200]}): run the release "
                            "that wrote it", table="ledger", row=row.seq) from None


def _source(row: LedgerRow) -> SourceRow:
    return SourceRow(row.seq, row.kind, row.received_at, row.body, row.shoe_id, row.position, row.code, row.message,
                     row.mac)


def _first_table(event: Event) -> Table:
    """The table as the live one was built: with the rules of the journal's first row (the rules it started with)."""
    if isinstance(event, SetRules):
        try:
            return Table(build_rules(event.profile, event.options))
        except RuleError:
            pass  # (the row is applied next, and the engine says what is wrong with it)
    return Table(build_rules())


def _count(table: Table) -> tuple[int, float] | None:
    """The table's Hi-Lo running and true count now, as the dashboard shows it (None: no shoe, or a game with none)."""
    shoe = table.shoe
    if shoe is None or ShoeFigure.COUNT not in table.game.shoe_figures:
        return None
    left = shoe.remaining_by_rank()
    cards = sum(left.values())
    running = -sum(HI_LO.get(rank, 0) * n for rank, n in left.items())  # Hi-Lo is balanced: minus what is left
    true = running / (cards / 52) if cards else 0.0
    return running, round(true, 1)


def _turn(table: Table, event: Event) -> tuple[int | None, int | None]:
    """The box and hand in turn as the table saw it just before ``event`` (a decision that names no box is theirs)."""
    turn = table.game.view(table, True).get("turn")
    if isinstance(turn, dict) and isinstance(turn.get("box"), int):
        hand = turn.get("hand")
        return turn["box"], hand if isinstance(hand, int) else None
    return None, None


def _amount(amount: Decimal) -> str:
    return format(amount.normalize(), "f") if amount == amount.to_integral_value() else format(amount, "f")


def _settlement(target: _Settled, kept: KeptRecord | None) -> Settlement:
    differences = _differences(target, kept) if kept is not None else [
        Difference("(record)", "none kept", "the round settled at row " + str(target.settled.seq))]
    return Settlement(engine=target.record, recorded=kept.record if kept is not None else None,
                      recorded_mac=kept.mac if kept is not None else None, agrees=not differences,
                      differences=differences)


def _differences(s: _Settled, kept: KeptRecord) -> list[Difference]:
    out = []
    if kept.seq != s.settled.seq:
        out.append(Difference("(settled at row)", str(kept.seq), str(s.settled.seq)))
    _diff(kept.record, s.record, "", out)
    return out


_ABSENT = object()


def _diff(recorded: object, engine: object, path: str, out: list[Difference]) -> None:
    """Every place the two JSON values differ, named by its path (``hands[0].net``)."""
    if isinstance(recorded, dict) and isinstance(engine, dict):
        for key in list(dict.fromkeys([*recorded, *engine])):
            _diff(recorded.get(key, _ABSENT), engine.get(key, _ABSENT), f"{path}.{key}" if path else str(key), out)
    elif isinstance(recorded, list) and isinstance(engine, list):
        for i in range(max(len(recorded), len(engine))):
            _diff(recorded[i] if i < len(recorded) else _ABSENT, engine[i] if i < len(engine) else _ABSENT,
                  f"{path}[{i}]", out)
    elif recorded != engine or type(recorded) is not type(engine):
        out.append(Difference(path or "(record)", _shown(recorded), _shown(engine)))


def _shown(value: object) -> str:
    return "(absent)" if value is _ABSENT else json.dumps(value, sort_keys=True)


def _alerts(w: _Window, moment: Callable[[str], Moment]) -> list[AlertLine]:
    lines: dict[int, dict[str, Any]] = {}
    for a in w.open_alerts:
        lines[int(str(a["id"]))] = {"alert": a, "raised_seq": None, "cleared_seq": None}
    effects = [*w.early_alerts, *((s.row.seq, e) for s in w.steps for e in s.effects)]
    for seq, effect in effects:
        if type(effect) is AlertRaised:
            a = effect.alert.as_dict(True)
            line = lines.setdefault(effect.alert.id, {"raised_seq": seq, "cleared_seq": None})
            line["alert"] = a
        elif type(effect) is AlertCleared and effect.alert_id in lines:
            lines[effect.alert_id]["cleared_seq"] = seq
    out = []
    for number, line in lines.items():
        a = line["alert"]
        out.append(AlertLine(id=number, kind=str(a["kind"]), level=str(a["level"]), message=str(a["message"]),
                             raised=moment(a["raised_at"]) if isinstance(a["raised_at"], str) else None,
                             raised_seq=line["raised_seq"], cleared_seq=line["cleared_seq"],
                             acknowledged_by=a["acknowledged_by"] if isinstance(a["acknowledged_by"], str) else None,
                             count=int(str(a["count"]))))
    return out


def build_dispute(rows: Iterable[LedgerRow], kept: Mapping[int, KeptRecord], head: JournalHead,
                  options: DisputeOptions) -> DisputeRecord:
    """The record of round ``options.round_number`` from the journal's rows (from its first, in order) and the round
    records it keeps: a convenience over `DisputeBook` for rows already in hand."""
    book = DisputeBook(options)
    for row in rows:
        if row.seq > head.seq or book.done:
            break
        book.feed(row)
    return book.record(kept, head)
