"""What a game is to the table: the one small interface `controller.engine.Table` delegates to.

Every game played on the table shares the cards and the shoe, the boxes and their bets,
the journal, attention and alerts; that machinery is the `Table`'s. A game is what differs:
how a round starts from the bets placed, where each card that arrives goes, the game's own
decisions (its events, each a check and a handler), what may be decided now, who takes the
next card, the round's record, snapshot and view. A game object holds no table state: every
method takes the table, so one instance serves every table (the registry's: `controller.registry`).

A game changes the table only from inside `Table.apply` (its handlers and `place`), and only
through `TableOps`: the whole of what a game may read and do at the table, typed, so the type
checker refuses a game that reaches further. Its checks change nothing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Generic, Mapping, Protocol, TypeVar, cast

from .cards import Card
from .errors import EngineError
from .legality import GameAction, Refusal
from .round import VoidReason

if TYPE_CHECKING:  # the engine imports the games, never the other way round at run time
    from datetime import datetime

    from pydantic import BaseModel

    from . import events as ev
    from .alerts import Alert, AlertKind
    from .effects import Effect
    from .events import CardDrawn
    from .hand import BoxInPlay
    from .phase import Phase
    from .round import Round
    from .rule_parts import Rules
    from .shoe import ShoeTracker

MAIN = "main"
"""The name of a box's one spot in a game that has one (blackjack, the club games): a bet that names no spot is on
the game's first spot (`Game.spots`)."""

Bets = dict[str, dict[str, int]]
"""One box's bets for the next round: player -> spot -> cents, in the order the players came."""


@dataclass(frozen=True, slots=True)
class Spot:
    """A place on a box a bet may go (blackjack's one main bet; baccarat's player, banker and tie; a side bet).

    ``limits`` gives the least and greatest stake on it, in cents, from the table's rules; None: the table's
    own limits (``table_min``, ``table_max``).
    """

    name: str
    label: str
    limits: Callable[[Rules], tuple[int, int]] | None = None


MAIN_SPOT = Spot(MAIN, "Bet")


def on_spot(bets: Bets, spot: str = MAIN) -> dict[str, int]:
    """Each player's stake on one spot of a box, in the order they came (a player with nothing there is left out)."""
    return {player: spots[spot] for player, spots in bets.items() if spot in spots}


class TableOps(Protocol):
    """What a game may read and do at the table: the seam between `Table` and its games, whole.

    `Table` has all of it (the type checker proves that where the engine hands itself to a game).
    A game that needs more asks for it here, in the open, instead of reaching into the table.
    """

    # What the game reads, and the few fields its own rounds move on.
    rules: Rules
    phase: Phase
    round: Round | None
    previous: Round | None
    shoe: ShoeTracker | None
    pending: dict[int, Bets]
    reservations: dict[int, tuple[str | None, datetime | None]]
    game_state: Any
    burn_left: int
    rounds_played: int
    resume_phase: Phase | None
    right_to_cut: str | None

    def emit(self, effect: Effect) -> None:
        """Add an effect of the input being applied."""

    def set_phase(self, phase: Phase) -> None:
        """Move the table to `phase`."""

    def raise_alert(self, kind: AlertKind, message: str, at: datetime | None, secret: str | None = None) -> Alert:
        """Put an alert on the board."""

    def hold(self, card: Card, why: str, at: datetime | None) -> None:
        """Keep a card nobody may take now (held, never lost; the table in attention)."""

    def finish_round(self, r: Round) -> None:
        """The round is settled: on show, the table moves on."""

    def lapsed(self, reserved: tuple[str | None, datetime | None], at: datetime | None) -> bool:
        """A box's reservation has run out by `at`."""

    def take_pending(self, make: Callable[[int, Bets, str | None], BoxInPlay] | None = None) -> list[BoxInPlay]:
        """The bets placed, as the boxes of a new round (``make`` builds each: by default a box of its main spot's
        stakes)."""

    # The shared events a game plays its own way still go through the table's own rule.
    def check_shuffle(self, e: ev.Shuffle) -> Refusal | None:
        """The table's refusal of a shuffle, if any."""

    def on_shuffle(self, e: ev.Shuffle) -> None:
        """The table takes the new shoe."""

    def check_rules(self, e: ev.SetRules) -> Refusal | None:
        """The table's refusal of new rules, if any."""

    def on_rules(self, e: ev.SetRules) -> None:
        """The table takes the new rules."""

    def bet_refusal(self, e: ev.PlaceBet, spot: str, least: int, most: int) -> Refusal | None:
        """The table's refusal of a bet on ``spot`` of its box, if any: bets closed, no such box, not whole chips, a
        box reserved or full, or the spot's stake outside [``least``, ``most``] cents (the one place these are)."""

    def on_bet(self, e: ev.PlaceBet) -> None:
        """The table takes the bet (on the spot the game says it names)."""


Check = Callable[["TableOps", Any], "Refusal | None"]
Handler = Callable[["TableOps", Any], None]
Dispatch = Mapping[type, "tuple[Check | None, Handler]"]


class ShoeFigure(str, Enum):
    """A figure of the shoe the pit reads beside the table; each game says which it has (`Game.shoe_figures`).

    The view lists them in this order (``shoe_figures``), so the API, the dashboard and the
    terminal show a figure only where the game has it and never ask which game is played.
    """

    DEALT = "dealt"
    """Cards dealt of the shoe's (the pack's) size."""
    LEFT = "left"
    """Cards left in the pack (a club pack is dealt down to its bottom card)."""
    BURNED = "burned"
    """Cards burned: dealt to nobody (blackjack's burn after the cut)."""
    BOTTOM_CARD = "bottom_card"
    """The pack's bottom card, shown face up under it (the club games)."""
    PENETRATION = "penetration"
    """How deep into the shoe the dealing has gone, against where the cut card lies."""
    CUT_CARD = "cut_card"
    """Where the rules place the cut card, or where it came out."""
    RIGHT_TO_CUT = "right_to_cut"
    """Who cuts the next shoe."""
    COUNT = "count"
    """The Hi-Lo running and true count of what is left (a 52-card shoe's figure)."""
    RANKS_LEFT = "ranks_left"
    """Cards of each rank left in the shoe."""


RoundT = TypeVar("RoundT", bound="Round")
RulesT = TypeVar("RulesT", bound="Rules")


class Game(ABC, Generic[RoundT, RulesT]):
    """One family of games (blackjack, the club games): the round, behind the table's shared machinery.

    ``RoundT`` and ``RulesT`` are the game's own round and rules: the table holds any game's, and
    `in_play` and `rules_of` are the one place that says a table playing this game holds this game's.
    """

    name: ClassVar[str]
    """The ``game`` option's value that chooses this game (the registry's key)."""

    rules_model: ClassVar[type[BaseModel]]
    """The game's options model (``RulesT``): what `controller.rules` validates a profile of this game with."""

    def in_play(self, t: TableOps) -> RoundT:
        """The round in play, as this game's round (a handler or `place` in a round has one)."""
        r = t.round
        if r is None:  # a bug, never an input: the checks let no round decision through between rounds
            raise EngineError(f"{self.name}: no round in play")
        return r  # type: ignore[return-value]  # the table plays this game, so its round is this game's (no cast(): a call a card)

    def round_of(self, t: TableOps) -> RoundT | None:
        """The round on the table, if any, as this game's round."""
        return cast("RoundT | None", t.round)

    def previous_of(self, t: TableOps) -> RoundT:
        """The last settled round, on show, as this game's round (asked for only when there is one)."""
        r = t.previous
        if r is None:  # a bug: the caller has checked
            raise EngineError(f"{self.name}: no settled round on show")
        return cast(RoundT, r)

    def loaded_shoe(self, t: TableOps) -> ShoeTracker:
        """The shoe in play (the table holds a card that comes before any shoe: `Table._no_card_expected`)."""
        shoe = t.shoe
        if shoe is None:  # a bug, never an input
            raise EngineError(f"{self.name}: a card between rounds without a shoe")
        return shoe

    def rules_of(self, t: TableOps) -> RulesT:
        """The table's rules, as this game's (the table builds its game from its rules' ``game``)."""
        # Not cast(RulesT, ...): in the pure engine that is a call more, and this runs several times a card.
        return t.rules  # type: ignore[return-value]  # the game's rules, by the registry's choice of game

    dealer_title: ClassVar[str]
    """Who deals and plays against the boxes, as the felt and the terminal name him ("Dealer", "Banker")."""

    view_kind: ClassVar[str] = "generic"
    """How a reader draws the game's felt (``view_kind`` in the view): the dashboard loads the renderer of this
    kind from the game's folder (its ``static`` part), never asking which game is played (the club games share
    one). A game that ships no renderer keeps "generic": the dashboard draws what every game's view has."""

    shoe_figures: ClassVar[frozenset[ShoeFigure]]
    """The shoe figures this game has: the only place that says which the pit is shown."""

    def __init__(self) -> None:
        # Built once per game: the game's events (and the shared ones it plays its own way).
        self.dispatch: Dispatch = self.events()

    # ------------------------------------------------------------------ the game's events
    @abstractmethod
    def events(self) -> Dispatch:
        """Event type -> (check or None, handler) for the game's own events, merged over the table's."""

    spots: ClassVar[tuple[Spot, ...]] = (MAIN_SPOT,)
    """Where a bet may go on a box, the main spot first (a bet naming no spot is on it)."""

    def spot_of(self, e: ev.PlaceBet) -> Spot | None:
        """The spot a bet names (its ``spot``, else the game's main), or None when the game has no such spot."""
        name = e.spot
        if name is None:
            return self.spots[0]
        return next((s for s in self.spots if s.name == name), None)

    def check_bet(self, t: TableOps, e: ev.PlaceBet) -> Refusal | None:
        """Why a bet is refused now: a spot the game has not, else the table's rule for the spot's limits."""
        spot = self.spot_of(e)
        if spot is None:
            return Refusal("no_such_spot", f"{self.name} takes bets on {', '.join(s.name for s in self.spots)}, "
                                           f"not on {e.spot!r}")
        rules = t.rules
        least, most = spot.limits(rules) if spot.limits is not None else (rules.table_min_cents, rules.table_max_cents)
        return t.bet_refusal(e, spot.name, least, most)

    blocked_by_attention: ClassVar[frozenset[type]] = frozenset()
    """The game's decisions, refused while the table needs the supervisor."""

    card_destinations: ClassVar[tuple[str, ...]] = ("box", "dealer")
    """Where the game places a card (`controller.effects.CardPlaced.to`), besides the table's own ``held`` and
    ``discard``: the table's metrics count the cards by these."""

    supervisor_events: ClassVar[frozenset[type]] = frozenset()
    """The game's own events only a supervisor may send (a club game's withdraw, club-21-36's bank); the table's
    own are `controller.events.SUPERVISOR_EVENTS`. Every other event a person sends needs a dealer's key."""

    surveillance_events: ClassVar[frozenset[type]] = frozenset()
    """The game's own events whose content is surveillance's (baccarat's exact odds per spot): below supervisor the
    live event stream carries their type and time only (`controller.registry.surveillance_events`)."""

    collect_events: ClassVar[frozenset[type]] = frozenset()
    """The game's own events that collect the commission kept in a box (a round record's hands marked
    ``commission_owed``): each has ``box`` and ``player`` (None: every player of the box); the shift's figures count
    what it collects as paid (`controller.registry.collect_events`)."""

    stake_events: ClassVar[frozenset[type]] = frozenset()
    """The game's own events that stake a box before its round, besides the table's bet and reservation
    (club-21-36's deal-in): the dispute record lists them with the bets."""

    def incident(self, table: TableOps, event: ev.Event) -> str | None:
        """What a replay lists, in words, for one of the game's own acts just applied that no round records (the
        pit opening club-21-36's bank); None: nothing to list."""
        return None

    # ------------------------------------------------------------------ cards
    @abstractmethod
    def place(self, table: TableOps, card: Card, e: CardDrawn) -> None:
        """Put a card the shoe dealt where it goes now (never refused: a card nobody may take is held)."""

    @abstractmethod
    def face_down_next(self, table: TableOps) -> str | None:
        """To whom the next card would go face down ('the dealer', 'box 3'), or None: an alert about
        a face-down card must not name it."""

    @abstractmethod
    def next_card(self, table: TableOps) -> str | None:
        """Who takes the next card now ('box N', 'dealer', ...), or None when no card is expected."""

    @abstractmethod
    def hidden_cards(self, table: TableOps) -> list[Card]:
        """The cards on the table now that every role below supervisor must not see."""

    def dealer_card_closed(self, table: TableOps) -> bool:
        """A card of the dealer's (the banker's) is face down now."""
        return False

    def reveal_all(self, table: TableOps, r: Round) -> None:
        """A round is over: it keeps no secret (turn every card still face down)."""

    def cards_in_play(self, table: TableOps) -> list[Card]:
        """The cards still on the table that a pack shuffled in now does not hold (none: a new shoe is whole)."""
        return []

    def pack_size(self, table: TableOps) -> int:
        """How many cards a pack shuffled in now holds (what the shoe should report loading)."""
        return table.rules.shoe_size - len(self.cards_in_play(table))

    # ------------------------------------------------------------------ decisions
    @abstractmethod
    def legal_actions(self, table: TableOps) -> list[GameAction]:
        """The decisions that may be taken now, as `Table.apply` would accept them."""

    @abstractmethod
    def void(self, table: TableOps, reason: VoidReason = VoidReason.SUPERVISOR) -> None:
        """Void the round in play (the supervisor's, for a misdeal, or the game's own ``reason``): settle it
        as void, keep why (``Round.void_reason``) and finish it."""

    # ------------------------------------------------------------------ views and snapshots
    @abstractmethod
    def view(self, table: TableOps, reveal: bool) -> dict[str, Any]:
        """The round's part of `controller.view.table_view`; ``reveal`` is the supervisor's view.

        It has ``boxes`` (a list the table adds the next round's bets to), ``dealer``, ``turn`` (or None),
        ``legal_actions`` and ``settled`` (the settled round on show, or None), and any keys of the game's own.
        """

    @abstractmethod
    def dump_round(self, r: Round) -> dict[str, Any]:
        """A round (in play or settled) as plain JSON-ready data."""

    @abstractmethod
    def load_round(self, table: TableOps, data: Any) -> Round:
        """A round from `dump_round` data for this table's rules, validated strictly (SnapshotError names
        what is wrong)."""

    def new_state(self) -> Any:
        """What the game keeps between rounds on a new table (None when nothing): `Table.game_state`."""
        return None

    def dump_state(self, table: TableOps) -> Any:
        """What the game keeps between rounds (None when nothing), as plain data."""
        return None

    def load_state(self, table: TableOps, data: Any) -> None:
        """Restore what `dump_state` wrote (SnapshotError names what is wrong)."""
        if data is not None:
            from .errors import SnapshotError
            raise SnapshotError(f"malformed table snapshot: game_state: {self.name} keeps no state between rounds")


class PlayingTable(TableOps, Protocol):
    """A table with its game: what reads the table's secrets and state without being the engine (the closed cards,
    the snapshot) asks of it. `Table` is one; naming this instead keeps those modules below the engine."""

    @property
    def game(self) -> Game[Any, Any]:
        """The game the table plays now (its rules' ``game``)."""

