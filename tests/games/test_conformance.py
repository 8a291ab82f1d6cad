"""Every registered game, and the test game of one folder, through the same checks (OpenSpiel's ``api_test`` idea).

A game is a parameter: the suite takes what it needs from the registry (the game's engine, its profiles: each seed its own) and
the game's own parts (its virtual dealer's moves, view models, displays, terminal line, dispute section, the
dashboard's renderer of its view kind), and never names a game. Each game plays a seeded one-deck shoe (every
card once, so a closed card's code can be looked for), driven by its own dealer's moves, with random events
thrown in (one step in five: a legal action, an action of the game's out of turn, a bet at any time). Checked:

1. an event the table refuses leaves its state exactly as it was (snapshot equal), and ``refusal()`` says so first;
2. snapshot then load is the identity, at every step;
3. the journal's replay equals the live table (state and every round's record);
4. a view below supervisor names a closed card less often than the supervisor's, by one per closed copy: no
   field, key or count tells it;
5. the API's models take the view and every round record (every key declared: an undeclared one is an error);
   the box displays build and render, the terminal lines render, the dispute record of a round renders (HTML),
   and the dashboard has a renderer for the game's view kind.

The test game (tests/games/high_card/) is registered for its cases by its one line, ``registered(ENTRY)``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from controller import events as ev
from controller import registry
from controller.authority import TableAuthority, export_session
from controller.cards import ALL_CARDS, Card
from controller.dispute import DisputeOptions
from controller.engine import IllegalAction, Table
from controller.event_codec import dump_event, event_types, parse_event
from controller.events import BadEvent
from controller.journal import JournalKey, JournalReader
from controller.phase import Phase
from controller.replay import replay_lines
from controller.rules import build_rules
from controller.view import table_view
from display.render import render_table
from simulators.parts import dealer_moves
from tablectl.api.dashboard import GENERIC_FELT, felt_folders
from tablectl.api.models import record_model, table_model
from tablectl.display_views import display_view
from tablectl.dispute import make_record, to_html
from tablectl.terminal_view import draw, round_line

from .high_card import ENTRY as HIGH_CARD

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=timezone.utc)
STEPS = 300
SEEDS = (0, 2)  # each seed plays the game's profile of its number (mod their count): blackjack's ru-standard, us-holecard
GAMES = [*registry.names(), HIGH_CARD.name]
API_KEYS = {"table": "conformance", "last_seq": 0, "head": {"seq": 0, "mac": None},
            "shoe_device": {"link_up": True}}  # what the API adds to the table's view


@pytest.fixture(params=GAMES)
def game(request: pytest.FixtureRequest) -> Iterator[str]:
    """A registered game's name; the test game registered for its own cases, by its one registry line."""
    name: str = request.param
    if name == HIGH_CARD.name:
        with registry.registered(HIGH_CARD):  # the test game's one registry line
            yield name
    else:
        yield name


def mentions(text: str, code: str) -> int:
    """How many times ``text`` names the card ``code`` (as a word of its own)."""
    return len(re.findall(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])", text))


@dataclass
class Run:
    """One game's seeded play: the table, the events it took, what it refused, the closed cards it checked."""

    game: str
    seed: int
    profile: str
    options: dict[str, Any]
    table: Table
    accepted: list[ev.Event] = field(default_factory=list)
    refused: int = 0
    closed_seen: int = 0
    views: list[dict[str, Any]] = field(default_factory=list)  # a few views below supervisor, for the readers


def play(game: str, seed: int, steps: int = STEPS) -> Run:
    """Play ``steps`` steps of ``game`` on a one-deck shoe seeded by ``seed``, checking properties 1, 2 and 4, and
    on (at most as many steps again) until a round is settled and the next not begun."""
    profiles = registry.profiles(game)
    profile = profiles[seed % len(profiles)]
    options = {"decks": 1}
    rules = build_rules(profile, options)
    run = Run(game, seed, profile, options, Table(rules))
    t = run.table
    dealer = dealer_moves(game).play(rules, seed, 0.2, 3)
    rng = random.Random(seed)
    shoe: list[Card] = []
    shoes = 0
    clock = T0
    own_types = sorted(set(event_types()) - {"card", "shuffle", "set_rules", "tick"})

    def send(e: ev.Event) -> bool:
        nonlocal clock
        clock += timedelta(seconds=rng.randint(1, 20))
        e.at = clock
        before = t.snapshot()
        refusal = t.refusal(e)
        assert t.snapshot() == before, f"refusal() changed the state ({dump_event(e)})"
        try:
            t.apply(e)
        except IllegalAction as exc:
            assert exc.refusal == refusal, f"apply() refused {dump_event(e)} with {exc.refusal}, refusal() {refusal}"
            assert t.snapshot() == before, f"{exc.code} on {dump_event(e)} changed the state"
            run.refused += 1
            return False
        assert refusal is None, f"refusal() said {refusal}, apply() took {dump_event(e)}"
        run.accepted.append(e)
        return True

    def shuffle() -> None:
        nonlocal shoe, shoes
        ranks = {c.rank for c in ALL_CARDS} if t.rules.pack == 52 else set("A6789TJQK")
        shoe = [c for c in ALL_CARDS if c.rank in ranks]
        in_play = t.game.cards_in_play(t) if t.round is not None else []
        for card in in_play:  # still on the table: not in the pack shuffled now
            shoe.remove(card)
        rng.shuffle(shoe)
        shoes += 1
        if not send(ev.Shuffle(shoe_id=f"{game}-{seed}-{shoes}", card_count=len(shoe))):
            shoe = []

    def event(data: dict[str, Any]) -> ev.Event | None:
        try:
            return parse_event(data)
        except BadEvent:
            return None

    for step in range(2 * steps):
        if step >= steps and t.round is None and t.previous is not None:
            break
        check_views(run)
        view = table_view(t, reveal_closed=False)
        if step % 20 == 0:
            run.views.append(view)
        if t.phase is Phase.ATTENTION:  # the supervisor: the held card out, the alerts seen
            if t.held:
                send(ev.DiscardCard())
            for a in t.open_alerts():
                if not a.acknowledged:
                    send(ev.AckAlert(alert_id=a.id))
            if t.phase is Phase.ATTENTION and t.round is not None:
                send(ev.VoidRound())
            continue
        if rng.random() < 0.2:  # a random event: often not legal where it stands
            choice = rng.random()
            if choice < 0.4 and view["legal_actions"]:
                e = event({"type": rng.choice(view["legal_actions"])})
            elif choice < 0.7:
                e = event({"type": rng.choice(own_types), "box": rng.randint(1, t.rules.boxes),
                           "amount": str(t.rules.table_min)})
            else:
                e = ev.PlaceBet(box=rng.randint(1, t.rules.boxes), amount=t.rules.table_min * rng.randint(1, 3))
            if e is not None and not isinstance(e, (ev.CardDrawn, ev.Shuffle, ev.SetRules)):
                send(e)
            continue
        move = dealer.move({**view, "last_seq": len(run.accepted)})
        if move.kind == "shuffle" or (move.kind == "deal" and not shoe):
            shuffle()
        elif move.kind == "deal":
            position = len(ALL_CARDS) - len(shoe)
            send(ev.CardDrawn(card=shoe.pop()))
            dealer.dealt(view, t.shoe.shoe_id if t.shoe else "", position)
        elif move.kind in ("act", "supervise") and move.event is not None:
            e = event(move.event)
            assert e is not None, f"the dealer's move is no event: {move.event}"
            send(e)
        else:  # the dealer waits: a card (a physical card is never refused)
            if shoe:
                send(ev.CardDrawn(card=shoe.pop()))
        assert Table.from_snapshot(t.snapshot()).snapshot() == t.snapshot(), "snapshot then load changed the table"
    return run


def check_views(run: Run) -> None:
    """Property 4: below supervisor, a closed card is named less often than in the supervisor's view, by one for
    every copy of it that is closed (the deck has one of each card: a face-up copy elsewhere is another shoe's)."""
    t = run.table
    closed = [c.code for c in t.game.hidden_cards(t)]
    if not closed:
        return
    run.closed_seen += 1
    below = json.dumps(table_view(t, reveal_closed=False))
    sup = json.dumps(table_view(t, reveal_closed=True))
    for code in set(closed):
        assert mentions(below, code) <= mentions(sup, code) - closed.count(code), (
            f"a view below supervisor names the closed card {code}")


@pytest.mark.parametrize("seed", SEEDS)
def test_random_play_keeps_every_property(game: str, seed: int) -> None:
    run = play(game, seed)
    t = run.table
    rounds = [e for e in run.accepted if isinstance(e, ev.CardDrawn)]
    assert t.rounds_played >= 3 and rounds, f"{game} played {t.rounds_played} rounds: the dealer's moves stalled"
    assert run.refused > 0, "no event was refused: the refusals went unchecked"
    # Property 3: the session of what the table took replays to the same table and the same rounds.
    lines = [json.dumps(dump_event(ev.SetRules(profile=run.profile, options=run.options)))]
    lines += [json.dumps(dump_event(e)) for e in run.accepted]
    replayed = replay_lines(lines)
    assert replayed.error is None, replayed.error
    assert replayed.table.snapshot() == t.snapshot()
    assert replayed.table.last_round == t.last_round


def test_the_readers_take_every_view_and_record(game: str, tmp_path: Path) -> None:
    run = play(game, 3)
    t = run.table
    assert t.previous is not None, f"{game} settled no round"
    # Property 5: the API's models (every key declared), the displays, the terminal, the dashboard's renderer.
    tables, records = TypeAdapter(table_model()), TypeAdapter(record_model())
    for view in [*run.views, table_view(t, reveal_closed=False), table_view(t, reveal_closed=True)]:
        tables.validate_python({**view, **API_KEYS})
        if view["last_round"] is not None:
            records.validate_python(view["last_round"])
    texts = render_table(display_view(t), 8)
    assert set(texts) == {*(f"box{n}" for n in range(1, t.rules.boxes + 1)), "dealer"}
    assert str(t.previous.number) in round_line(t.previous, game, t.game.dealer_title)
    assert t.game.dealer_title.lower() in draw(table_view(t), t, T0 + timedelta(hours=1)).lower()
    kind = t.game.view_kind
    folder = felt_folders()[kind]
    assert (folder / "felt.js").is_file() if folder is not None else GENERIC_FELT.is_file()
    # The same play through a journal: it exports a session that replays to the table, and a round's dispute
    # record is made from it, verified, and renders.
    key = JournalKey.generate(tmp_path / "k")
    live = TableAuthority.open(tmp_path / "j.sqlite", key, t.rules, now=T0)
    try:
        for e in run.accepted:
            live.submit(e, e.at or T0)
        assert live.table.snapshot() == t.snapshot()
        replayed = replay_lines([json.dumps(row) for row in export_session(live.journal)])
        assert replayed.error is None and replayed.table.snapshot() == t.snapshot()
    finally:
        live.journal.close()
    settled = t.previous.number
    reader = JournalReader(tmp_path / "j.sqlite", key)
    record = make_record(reader, DisputeOptions(round_number=settled, table="conformance", exported_by="test",
                                                exported_at=T0 + timedelta(days=1)))
    page = to_html(record)
    assert f"round <b>{settled}</b>" in page and "Boxes: bets, decisions, settlement" in page


def test_without_its_registry_line_the_test_game_is_not_a_game() -> None:
    from controller.rules import RuleError, load_rules

    assert not registry.is_game(HIGH_CARD.name)
    with pytest.raises(RuleError, match="'high-card' is not a game"):
        load_rules("high-card", {"game": "high-card"})
