"""The rating slip measured by the table (issue 41, part 1): `controller.ratings.RatingBook` fed the engine's record.

A scripted sitting checks every figure by hand: time less the pause, rounds, hands, decisions, the two mistakes
and what each cost (the strategy's own expectations), average and largest bet, wagered, actual. Seeded shifts
of simulated players (`games.blackjack.advantage_players`, played through the real engine) check the claims
of the issue: a basic-strategy player's theo is wagered x the exact edge and their result agrees with it within
its sampling error; a player who makes mistakes gets a higher theo, and their real loss agrees with that theo
within its sampling error (and not with basic strategy's).
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest

from controller import events as ev
from controller.cards import parse_card
from controller.engine import Table
from controller.legality import Action
from controller.ratings import LEFT_AFTER, RatingBook, Session, feed
from controller.rules import build_rules
from games.blackjack.advantage_players import play_session, seat
from simulators.strategy import strategy_for
from tablectl.ratings import basic_edge, blackjack_cost

T = datetime(2026, 12, 7, 21, 0, tzinfo=timezone.utc)
RULES = build_rules("ru-standard")


def _book() -> RatingBook:
    return RatingBook(basic_edge(RULES), blackjack_cost(RULES))


def _round(submit: object, bet: int, cards: list[str], plays: list[str], player: str | None = "Ivan",
           box: int = 1) -> None:
    """One heads-up round on ``box`` (ru-standard deals box, dealer's up card, box; no hole card): ``cards``
    the box's two and the up card, ``plays`` the player's decisions, then the dealer's cards."""
    send = submit  # (typed loosely: a closure over the clock)
    send(ev.PlaceBet(box=box, amount=Decimal(bet), player=player))  # type: ignore[operator]
    for code in cards:
        send(ev.CardDrawn(card=parse_card(code)))  # type: ignore[operator]
    for play in plays:
        if play == "stand":
            send(ev.Stand())  # type: ignore[operator]
        else:
            send(ev.CardDrawn(card=parse_card(play)))  # type: ignore[operator]


def test_a_sitting_by_hand_time_rounds_bets_actual_and_each_mistakes_price() -> None:
    table, book = Table(RULES, shoes_watched=0), _book()
    clock = [T]

    def at(minutes: float) -> None:
        clock[0] = T + timedelta(minutes=minutes)

    def submit(e: ev.Event) -> None:
        clock[0] += timedelta(seconds=2)
        e.at = clock[0]
        feed(book, table, e)

    submit(ev.Shuffle())
    at(0)
    submit(ev.Seat(box=1, player="Ivan", card="C-1001"))
    seated_at = clock[0]
    at(1)
    # 11 against a 6: basic strategy doubles; Ivan stands (a mistake). The dealer busts: Ivan wins 10.
    _round(submit, 10, ["6S", "6D", "5C"], ["stand", "TD", "9H"])
    # 19 against a 9: stands, as basic strategy does. The dealer makes 19: a push.
    _round(submit, 20, ["TS", "9D", "9C"], ["stand", "TH"])
    at(10)
    submit(ev.Pause(box=1))
    at(20)
    submit(ev.Resume(box=1))
    # 16 against a 7: basic strategy hits; Ivan stands (a mistake). The dealer makes 17: Ivan loses 30.
    _round(submit, 30, ["TC", "7D", "6C"], ["stand", "TS"])
    at(30)
    submit(ev.Unseat(box=1, player="Ivan"))
    unseated_at = clock[0]

    [slip] = book.report()
    assert (slip.player, slip.box, slip.card, slip.named, slip.open) == ("Ivan", 1, "C-1001", True, False)
    assert slip.start == seated_at and slip.end == unseated_at
    assert slip.seconds == pytest.approx((unseated_at - seated_at).total_seconds() - 10 * 60)
    assert (slip.rounds, slip.hands, slip.decisions, slip.mistakes) == (3, 3, 3, 2)
    assert (slip.wagered, slip.largest_bet, slip.average_bet) == (6000, 3000, 2000)
    assert slip.actual == -1000 + 0 + 3000  # the house's side
    strategy = strategy_for(RULES)
    eleven, sixteen = strategy.evs("hard", 11, 6), strategy.evs("hard", 16, 7)
    price = 1000 * (eleven[Action.DOUBLE] - eleven[Action.STAND]) + 3000 * (sixteen[Action.HIT] - sixteen[Action.STAND])
    assert price > 0 and slip.mistake_cost == pytest.approx(price)
    edge = basic_edge(RULES)
    assert edge is not None and 0.001 < edge < 0.01
    assert slip.theo == pytest.approx(6000 * edge + price)
    assert slip.thumb_theo == pytest.approx(2000 * slip.hours * 60 * edge)


def test_anonymous_play_back_bets_and_a_player_who_leaves_without_an_unseat() -> None:
    table, book = Table(RULES, shoes_watched=0), _book()
    clock = [T]

    def submit(e: ev.Event) -> None:
        clock[0] += timedelta(seconds=2)
        e.at = clock[0]
        feed(book, table, e)

    submit(ev.Shuffle())
    _round(submit, 10, ["TS", "9D", "9C"], ["stand", "TH"], player=None, box=4)  # nobody seated, nobody named
    clock[0] += LEFT_AFTER + timedelta(minutes=1)
    _round(submit, 10, ["TS", "9D", "9C"], ["stand", "TH"], player=None, box=4)  # a new player on the box
    submit(ev.Seat(box=2, player="Olga"))
    submit(ev.PlaceBet(box=2, amount=Decimal(20)))  # Olga's chips, her name not said at the bet
    _round(submit, 10, ["TS", "9D", "9C"], ["stand", "TH"], player="Back Bettor", box=2)
    slips = {(s.player, s.start): s for s in book.report()}
    anonymous = [s for s in slips.values() if s.player == "Player on box 4"]
    assert len(anonymous) == 2 and all(s.rounds == 1 and not s.named and not s.seated for s in anonymous)
    assert not anonymous[0].open
    olga = next(s for s in slips.values() if s.player == "Olga")
    back = next(s for s in slips.values() if s.player == "Back Bettor")
    assert (olga.rounds, olga.wagered, back.rounds, back.wagered) == (1, 2000, 1, 1000)
    assert olga.hands == back.hands == 1  # each played the box's hand, their stake their share of it


def _shift(kind: str, rounds: int, seed: int) -> Session:
    """``rounds`` seeded rounds of one player of ``kind`` (`games.blackjack.advantage_players.PLAYERS`) on box 1."""
    rng = random.Random(seed)
    table, book = Table(RULES, shoes_watched=0), _book()
    clock = [T]

    def submit(e: ev.Event) -> list[object]:
        clock[0] += timedelta(seconds=3)
        e.at = clock[0]
        return list(feed(book, table, e))

    submit(ev.Seat(box=1, player="P"))
    session = seat(RULES, {1: kind}, rng, table=table, submit=submit)  # type: ignore[arg-type]
    session.seats[1].name = "P"
    play_session(session, rounds, rng)
    [slip] = book.report()
    assert slip.rounds == rounds
    return slip


def _loss_and_error(slip: Session, rounds: int) -> tuple[float, float]:
    """The house's result per unit wagered, and its standard error (flat bets: the sd of a round's result in
    bets, about 1.15 for blackjack, taken as 1.2 here to be safe)."""
    return slip.actual / slip.wagered, 1.2 / math.sqrt(rounds)


def test_a_basic_strategy_players_theo_is_wagered_times_the_exact_edge_and_their_result_agrees() -> None:
    rounds = 6000
    slip = _shift("flat", rounds, seed=41)
    edge = basic_edge(RULES)
    assert edge is not None
    assert slip.mistakes == 0 and slip.mistake_cost == 0
    assert slip.theo == pytest.approx(slip.wagered * edge)
    loss, se = _loss_and_error(slip, rounds)
    assert abs(loss - edge) < 3 * se, (loss, edge, se)


def test_a_player_who_makes_mistakes_gets_a_higher_theo_that_their_real_loss_agrees_with() -> None:
    rounds = 12_000
    slip = _shift("never-bust", rounds, seed=42)
    edge = basic_edge(RULES)
    assert edge is not None and slip.measured_edge is not None and slip.theo is not None
    assert slip.mistakes > rounds / 10
    assert slip.measured_edge > edge + 0.02  # never busting, doubling or splitting costs a few per cent
    loss, se = _loss_and_error(slip, rounds)
    assert abs(loss - slip.measured_edge) < 3 * se, (loss, slip.measured_edge, se)
    assert loss - edge > 3 * se  # basic strategy's theo would be wrong for them
