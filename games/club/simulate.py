"""Many club rounds (document 003's `club-21`) through the authoritative engine, with stated strategies.

As for blackjack (`games.blackjack.simulate`), the events are those a real table sees (the shoe's
``shuffle`` with its ``card_count``, the bottom card, bets, cards, ``stand``, ``banker_stand``,
``double``/``fold`` on a spent pack), so the edge measured is the engine's own settlement. The
boxes play a players' rule and the banker the banker's rule of :mod:`simulators.club_strategy`;
the figures hold for those rules only.

The house's edge is its expected gain per round as a share of the stakes put down at the
start of the round (every box's bet, before any double): ``-mean(players' net / stakes)``. A
voided round (the pack ran out during the deal) counts as a round with nothing won or lost.
Rounds are played in chunks seeded from (seed, chunk number); the chunks' sums are added in
chunk order, so a seed gives the same figures whatever ``workers``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable

from controller import events as ev
from controller.cards import ALL_CARDS, PACK_RANKS, Card
from controller.engine import Phase, Table
from controller.legality import Action
from controller.money import to_cents
from controller.round import Round
from simulators.club_strategy import (SIGHTED_PLAYERS, BankerRule, OptimalBanker, PlayersRule, banker_rule_for,
                                     parse_banker_rule, parse_players_rule)
from simulators.simulate_cli import checked_workers, engine_figures
from simulators.simulation import ShuffledAsDealt, play_chunks

from games.club_21_36.events import CloseBank, Dark, OpenBank
from .events import BankerStand, Fold
from .actions import ClubAction

CHUNK_ROUNDS = 20_000


@dataclass
class ClubChunk:
    """The sums of one chunk of club rounds, added up in chunk order."""

    rounds: int = 0
    total: float = 0.0  # sum over rounds of the players' net per unit staked
    total_sq: float = 0.0
    hands: int = 0
    staked_cents: int = 0  # the stakes put down at the start of the rounds
    net_cents: int = 0  # the players' net over the rounds (the house's is its negative)
    voids: int = 0
    pack_outs: int = 0
    shuffles: int = 0

    def count(self, settled: Round, staked: int, record: Callable[[dict[str, Any]], None] | None) -> None:
        """Add a settled round (``staked`` cents put down at its start) to the sums; ``record`` sees its record."""
        net = settled.net()
        self.rounds += 1
        self.net_cents += net
        self.staked_cents += staked
        self.hands += sum(len(box.hands) for box in settled.boxes)
        self.voids += bool(getattr(settled, "voided", False))
        self.pack_outs += bool(getattr(settled, "pack_out", False))  # a round of duels has no spent pack
        x = net / staked
        self.total += x
        self.total_sq += x * x
        if record is not None:
            record(settled.record)


@dataclass
class ClubResult:
    """What `tablectl simulate --rules club-21` prints."""

    rules: str
    players: str
    banker_stands_at: int | None  # None: the optimal banker stands at no fixed total
    rounds: int
    house_edge_pct: float
    stderr_pct: float
    rounds_per_second: float
    hands: int
    staked_cents: int
    net_cents: int
    voids: int
    pack_outs: int
    shuffles: int
    workers: int = 1
    banker: str = "options"  # the banker's rule: ``options`` (stands at banker_stands_at) or ``optimal...``
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "rules": self.rules,
            "players": self.players,
            "banker_stands_at": self.banker_stands_at,
            "banker": self.banker,
            "rounds": self.rounds,
            "house_edge_pct": round(self.house_edge_pct, 4),
            "stderr_pct": round(self.stderr_pct, 4),
            "rounds_per_second": round(self.rounds_per_second, 1),
            "hands": self.hands,
            "staked": self.staked_cents / 100,
            "players_net": self.net_cents / 100,
            "voids": self.voids,
            "pack_outs": self.pack_outs,
            "shuffles": self.shuffles,
            "workers": self.workers,
        }


class ClubShoe(ShuffledAsDealt):
    """The table's packs (``decks`` of 52 or 36 cards), shuffled one card at a time as they are dealt."""

    def __init__(self, pack: int, decks: int, rng: random.Random) -> None:
        ranks = PACK_RANKS[pack]
        super().__init__([c for c in ALL_CARDS if c.rank in ranks] * decks, rng)
        self.count = 0
        self.out: list[Card] = []  # cards left on the table when the pack was last shuffled

    def shuffle(self, on_table: list[Card] | None = None) -> ev.Shuffle:
        """Gather the cards back, but those still ``on_table`` (a pack spent in a round of club-21-36):
        the shoe's ``shuffle`` event, with the count of the cards loaded."""
        self.next = 0
        self.count += 1
        self.cards += self.out  # the cards held back last time are gathered now
        self.out = []
        for card in on_table or []:
            self.cards.remove(card)
            self.out.append(card)
        return ev.Shuffle(shoe_id=f"club-sim-{self.count}", card_count=len(self.cards))


def play_club_chunk(rules: Any, rounds: int, seed: str, boxes: int = 1, players: PlayersRule = SIGHTED_PLAYERS,
                    banker: BankerRule | OptimalBanker | None = None, unit: Decimal | None = None,
                    record: Callable[[dict[str, Any]], None] | None = None) -> ClubChunk:
    """Play ``rounds`` club rounds on a fresh table and shoe seeded by ``seed``.

    The simulation stands where the players and the croupier stand: each box's rule reads that
    box's own cards (a sighted rule) or only their number (a blind one), the banker's rule his
    own total, or, for the optimal banker, what he sees of the table (``banker.sight_of``: never a
    closed card). ``record`` sees each settled round's record.
    """
    banker = banker or banker_rule_for(rules)
    banker_draws = _banker_draws(rules, banker, players)
    rng = random.Random(seed)
    table = Table(rules, shoes_watched=0)  # no protection watch: the simulated shoe is fair by construction
    shoe = ClubShoe(rules.pack, rules.decks, rng)
    apply = table.apply
    stake = unit if unit is not None else rules.table_min
    bets = [ev.PlaceBet(box=b, amount=stake) for b in range(1, boxes + 1)]
    staked = to_cents(stake) * boxes  # type: ignore[operator]  # a stake is whole cents (to_cents: None for a fraction)
    stand, banker_stand = ev.Stand(), BankerStand()
    cards = {c.index: ev.CardDrawn(card=c) for c in shoe.cards}
    waiting, players_phase, dealer_phase, pack_out = (Phase.WAITING_FOR_SHUFFLE, Phase.PLAYERS, Phase.DEALER,
                                                      Phase.PACK_OUT)
    HIT, BANKER_STAND = Action.HIT, ClubAction.BANKER_STAND
    sighted = players.sighted
    out = ClubChunk()

    def draw() -> None:
        apply(cards[shoe.draw().index])

    while out.rounds < rounds:
        if table.phase is waiting:
            apply(shoe.shuffle())
            out.shuffles += 1
            continue
        before = table.previous  # the round on show; the next settled one replaces it
        if table.round is None and not table.pending:
            for bet in bets:
                apply(bet)
        while table.round is not None or table.previous is None or table.previous is before:
            phase = table.phase
            r = table.round
            if phase is waiting:  # an ace at the bottom: shuffle and cut again, the bets stay
                apply(shoe.shuffle())
                out.shuffles += 1
            elif r is None:
                draw()  # the bottom card, or the first card of the deal
            elif phase is players_phase:
                hand = r.hand
                if players.draws(len(hand.cards), hand.total if sighted else None):
                    if table.shoe is not None and not table.shoe.spent:  # (a card to hit with: the legal HIT)
                        draw()
                    else:  # the pack is spent: the box that wants a card doubles or folds (the run-out begins)
                        doubles = players.doubles_on_spent_pack(len(hand.cards), hand.drew,  # type: ignore[attr-defined]  # a club hand
                                                                hand.total if sighted else None)
                        number = r.boxes[r.box_i].number
                        apply(ev.Double(box=number) if doubles else Fold(box=number))
                else:
                    apply(stand)
            elif phase is dealer_phase:
                legal = table.legal_actions()
                if HIT in legal and (BANKER_STAND not in legal or banker_draws(table)):
                    draw()
                else:
                    apply(banker_stand)
            elif phase is pack_out:
                for box in r.boxes:
                    open_hands = box.open_hands()  # type: ignore[attr-defined]  # a club round's boxes are ClubBox
                    if box.choice is None and open_hands:  # type: ignore[attr-defined]  # (the same)
                        hand = open_hands[0]
                        doubles = players.doubles_on_spent_pack(len(hand.cards), hand.drew,
                                                                hand.total if sighted else None)
                        apply(ev.Double(box=box.number) if doubles else Fold(box=box.number))
                        break
            else:
                draw()  # the deal (the contra window too: the banker never calls contra)
        settled = table.previous
        assert settled is not None
        out.count(settled, staked, record)
    return out


def _banker_draws(rules: Any, banker: BankerRule | OptimalBanker, played: PlayersRule) -> Callable[[Table], bool]:
    """The banker's choice in his turn, where he has one: by his fixed rule, or his best play."""
    if isinstance(banker, BankerRule):
        rule = banker
        return lambda table: rule.draws(table.round.dealer.total)  # type: ignore[union-attr]  # in his turn
    from games.club_21.banker import decide, sight_of, terms_of

    terms = terms_of(rules)
    model = banker.players or played
    memory = banker.memory

    def draws(table: Table) -> bool:
        sight = sight_of(table, memory)
        return sight is not None and decide(sight, terms, model).draw

    return draws


def play_club2136_chunk(rules: Any, rounds: int, seed: str, boxes: int = 1, players: PlayersRule = SIGHTED_PLAYERS,
                      banker: BankerRule | None = None, unit: Decimal | None = None,
                      record: Callable[[dict[str, Any]], None] | None = None) -> ClubChunk:
    """Play ``rounds`` rounds of duels (club-21-36) on a fresh table and shoe seeded by ``seed``.

    The bank is opened at ten times the bank minimum (within the limits) and closed as soon as
    it may be; a stake is the table minimum, or the whole bank when it holds less (va-banque).
    A sighted box draws below its rule's total and never goes dark; a blind one goes dark and
    draws to its number of cards. A pack spent in a round is replaced by the pack less what is
    on the table, as the engine expects.
    """
    banker = banker or banker_rule_for(rules)
    rng = random.Random(seed)
    table = Table(rules, shoes_watched=0)  # no protection watch: the simulated shoe is fair by construction
    game = table.game
    shoe = ClubShoe(rules.pack, rules.decks, rng)
    apply = table.apply
    stake_cents = to_cents(unit if unit is not None else rules.table_min)
    stand, banker_stand, close_bank = ev.Stand(), BankerStand(), CloseBank()
    opening = min(rules.bank_max_cents, max(rules.bank_min_cents, 10 * rules.bank_min_cents))
    open_bank = OpenBank(amount=Decimal(opening) / 100)
    cards = {c.index: ev.CardDrawn(card=c) for c in shoe.cards}
    waiting, players_phase, dealer_phase = Phase.WAITING_FOR_SHUFFLE, Phase.PLAYERS, Phase.DEALER
    HIT, BANKER_STAND = Action.HIT, ClubAction.BANKER_STAND
    sighted = players.sighted
    bank = table.game_state
    out = ClubChunk()

    def draw() -> None:
        apply(cards[shoe.draw().index])
        shoe_ = table.shoe
        if table.round is not None and shoe_ is not None and shoe_.spent:
            apply(shoe.shuffle(game.cards_in_play(table)))  # the round goes on with a new pack
            out.shuffles += 1

    while out.rounds < rounds:
        if table.round is None:
            if not bank.open:
                apply(open_bank)
                continue
            if bank.may_close(rules) and not table.pending:
                apply(close_bank)
                continue
            if table.phase is waiting:
                apply(shoe.shuffle())
                out.shuffles += 1
                continue
        before = table.previous
        staked = 0
        if table.round is None and not table.pending:
            for box in range(1, boxes + 1):
                amount = min(stake_cents, bank.balance)
                apply(ev.PlaceBet(box=box, amount=Decimal(amount) / 100))
                staked += amount
        while table.round is not None or table.previous is None or table.previous is before:
            phase = table.phase
            r = table.round
            if phase is waiting:
                apply(shoe.shuffle())  # an ace at the bottom voids the round: shuffle and start again
                out.shuffles += 1
            elif r is None:
                draw()
            elif phase is players_phase:
                hand = r.boxes[r.box_i].hands[0]
                legal = table.legal_actions()
                if HIT not in legal:
                    draw()  # the bottom card of a pack shuffled in during the round
                elif players.draws(len(hand.cards), hand.total if sighted else None):
                    if not sighted and ClubAction.DARK in legal:
                        apply(Dark())
                    draw()
                else:
                    apply(stand)
            elif phase is dealer_phase:
                legal = table.legal_actions()
                if HIT in legal and (banker.draws(r.dealer.total) or BANKER_STAND not in legal):
                    draw()
                elif BANKER_STAND in legal:
                    apply(banker_stand)
                else:
                    draw()  # the bottom card of a new pack comes before his next card
            else:
                draw()
        settled = table.previous
        assert settled is not None
        # A bank too small for the table minimum takes a smaller stake: count what was staked.
        out.count(settled, staked or sum(h.stake for b in settled.boxes for h in b.hands), record)
    return out


def _chunk_job(job: tuple[Any, int, str, int, PlayersRule, BankerRule | OptimalBanker]) -> ClubChunk:
    rules, rounds, seed, boxes, players, banker = job
    if rules.game == "club-21-36":
        assert isinstance(banker, BankerRule)  # (simulate_club refuses the optimal banker there)
        return play_club2136_chunk(rules, rounds, seed, boxes, players, banker)
    return play_club_chunk(rules, rounds, seed, boxes, players, banker)


def club_chunk_seed(seed: int, index: int) -> str:
    """The seed of chunk ``index`` of a club simulation seeded ``seed``."""
    return f"tablectl-simulate-club:{seed}:{index}"


def simulate_club(rules: Any, rounds: int, seed: int, boxes: int = 1, players: PlayersRule = SIGHTED_PLAYERS,
                  workers: int = 1, progress: Callable[[int], None] | None = None,
                  chunk_rounds: int = CHUNK_ROUNDS, clock: Callable[[], float] = time.perf_counter,
                  optimal: OptimalBanker | None = None) -> ClubResult:
    """Play ``rounds`` club rounds on ``boxes`` boxes at the table minimum; the house edge with its standard error.

    The banker plays the fixed rule the table's options give, or, with ``optimal`` (club-21 only), his
    best play from what he sees. ``clock`` (passed in) times the run for the rounds-per-second figure only.
    """
    if rounds < 1 or boxes < 1 or workers < 1:
        raise ValueError("rounds, boxes and workers must be at least 1")
    if optimal is not None and rules.game != "club-21":
        raise ValueError(f"the optimal banker is club-21's (the banker of {rules.game} is bound to his totals)")
    fixed = banker_rule_for(rules)
    banker: BankerRule | OptimalBanker = fixed if optimal is None else optimal
    sizes = [min(chunk_rounds, rounds - start) for start in range(0, rounds, chunk_rounds)]
    jobs = [(rules, size, club_chunk_seed(seed, i), boxes, players, banker) for i, size in enumerate(sizes)]
    workers = max(1, min(workers, len(jobs)))
    started = clock()
    chunks = play_chunks(_chunk_job, jobs, workers, progress)
    elapsed = clock() - started
    played = sum(c.rounds for c in chunks)
    mean = math.fsum(c.total for c in chunks) / played
    var = max(math.fsum(c.total_sq for c in chunks) / played - mean * mean, 0.0)
    return ClubResult(
        rules=rules.name,
        players=players.name,
        banker_stands_at=fixed.stands_at if optimal is None else None,
        rounds=played,
        house_edge_pct=-100.0 * mean,
        stderr_pct=100.0 * math.sqrt(var / played),
        rounds_per_second=played / elapsed if elapsed > 0 else float("inf"),
        hands=sum(c.hands for c in chunks),
        staked_cents=sum(c.staked_cents for c in chunks),
        net_cents=sum(c.net_cents for c in chunks),
        voids=sum(c.voids for c in chunks),
        pack_outs=sum(c.pack_outs for c in chunks),
        shuffles=sum(c.shuffles for c in chunks),
        workers=workers,
        banker="options" if optimal is None else optimal.name(players),
    )


class ClubSimulation:
    """`tablectl simulate` for a club game's profile (the registry's ``simulate`` part): the boxes play the stated
    players' rule (``--players``), the banker his options' rule or, where the game lets him choose (club-21),
    his best play (``--banker optimal``); the house edge for those rules."""

    def __init__(self, optimal_banker: bool, spent_packs: bool) -> None:
        self.optimal_banker = optimal_banker  # the banker chooses his draws (club-21): --banker optimal is his
        self.spent_packs = spent_packs  # the pack runs out while the boxes play (club-21): counted in the text

    def run(self, args: argparse.Namespace, rules: Any) -> int:
        """Play the rounds and print the figures (exit 2: a rule this game does not take)."""
        try:
            players = SIGHTED_PLAYERS if args.players is None else parse_players_rule(args.players)
        except ValueError as exc:
            print(f"tablectl simulate: --players: {exc}", file=sys.stderr)
            return 2
        try:
            optimal = None if args.banker is None else parse_banker_rule(args.banker)
        except ValueError as exc:
            print(f"tablectl simulate: --banker: {exc}", file=sys.stderr)
            return 2
        if optimal is not None and not self.optimal_banker:
            print(f"tablectl simulate: --banker optimal is for club-21 (the banker of {rules.game} is bound to his "
                  f"totals)", file=sys.stderr)
            return 2
        workers = checked_workers(args, rules)
        if workers is None:
            return 2
        result = simulate_club(rules, args.rounds, args.seed, boxes=args.boxes, players=players, workers=workers,
                               optimal=optimal)
        d = dict(result.as_dict())
        engine = engine_figures(args, d)
        if args.json:
            print(json.dumps(d))
        else:
            banker = (f"stands at {d['banker_stands_at']}" if d["banker_stands_at"] is not None
                      else f"plays {d['banker']}")
            print(f"{rules.name}: {d['rounds']} rounds, players {d['players']}, banker {banker}: house edge "
                  f"{d['house_edge_pct']:.3f}% ± {d['stderr_pct']:.3f}% (1 s.e.), {d['voids']} void, "
                  + (f"{d['pack_outs']} spent-pack rounds, " if self.spent_packs else f"{d['shuffles']} packs, ")
                  + f"{d['rounds_per_second']:.0f} rounds/s "
                  f"on {d['workers']} worker(s){engine}. These figures hold for these strategies only.")
        return 0

