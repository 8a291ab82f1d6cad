"""Explicit snapshots: `Table.snapshot()` is plain JSON data and `Table.from_snapshot` restores any state.

The property: cut a random plausible session (every profile, the world's events and times
included) at a random point; restoring the snapshot taken there (through JSON text) and
replaying the tail gives the same round records, the same view, the same legal actions and
the same final snapshot as replaying the whole session from the start. Malformed snapshots
are refused with SnapshotError, a ValueError.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller import events as ev
from games.blackjack.events import CloseInsurance
from controller.effects import RoundSettled
from controller.cards import parse_card
from controller.engine import Phase, SnapshotError, Table
from controller.errors import EngineError
from controller.rules import build_rules
from controller.snapshot import FORMAT
from controller.view import table_view
from tests.support.engine_dsl import play
from tests.support.sessions import CASES, SEEDS, SESSION_SETTINGS, WORDS, diff, profiles, run_words

JSON_TYPES = (str, int, bool, type(None))


def _plain(value: Any, path: str = "snapshot") -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            assert type(k) is str, f"{path}: key {k!r} is not a string"
            _plain(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _plain(v, f"{path}[{i}]")
    else:
        assert type(value) in JSON_TYPES or type(value) is float, f"{path}: {type(value).__name__} {value!r}"


def _run(table: Table, events: list[ev.Event]) -> list[dict[str, Any]]:
    records = []
    for event in events:
        for effect in table.apply(event):
            if type(effect) is RoundSettled:
                records.append(effect.result)
    return records


def _through_json(data: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(data))


@profiles
@SESSION_SETTINGS
@given(seed=SEEDS, words=WORDS, cut=st.floats(0, 1))
def test_restore_anywhere_then_replay_the_tail(profile: str, seed: int, words: list[int], cut: float) -> None:
    """Snapshot at a random point, restore from JSON text, replay the rest: nothing differs."""
    s = run_words(profile, seed, words, world=True)
    events = s.accepted
    at = int(cut * len(events))
    whole = Table(build_rules(*CASES[profile]))
    head_records = _run(whole, events[:at])
    data = whole.snapshot()
    _plain(data)
    restored = Table.from_snapshot(_through_json(data))
    assert restored.snapshot() == data, diff(data, restored.snapshot())
    assert table_view(restored, reveal_closed=True) == table_view(whole, reveal_closed=True)
    assert restored.legal_actions() == whole.legal_actions()
    tail_whole = _run(whole, events[at:])
    tail_restored = _run(restored, events[at:])
    assert tail_restored == tail_whole
    assert head_records + tail_whole == s.rounds
    assert table_view(restored) == table_view(whole)
    assert restored.legal_actions() == whole.legal_actions()
    assert restored.snapshot() == whole.snapshot(), diff(whole.snapshot(), restored.snapshot())


def _snapshot_mid_round() -> dict[str, Any]:
    r = play("bet 1 10 ann", "bet 1 5 bob", "bet 2 10", "cards 8S 9D AH 8C 7H", "ins 2 5")
    assert r.error is None and r.table.phase is Phase.INSURANCE
    return r.table.snapshot()


def test_a_snapshot_is_plain_data_with_a_format_number() -> None:
    data = _snapshot_mid_round()
    _plain(data)
    assert data["format"] == FORMAT
    assert data["round"]["boxes"][0]["bets"] == [{"player": "ann", "amount": "10"}, {"player": "bob", "amount": "5"}]
    assert data["round"]["boxes"][1]["insurance"] == "5"


def test_restored_table_plays_on() -> None:
    table = Table.from_snapshot(_snapshot_mid_round())
    table.apply(CloseInsurance())
    assert [a.value for a in table.legal_actions()] == ["stand", "hit", "double", "split"]
    assert table.round is not None and table.round.boxes[0].hands[0].box is table.round.boxes[0]


def test_no_pickle_hooks_remain() -> None:
    """Snapshots are explicit: the engine's classes define no pickle hooks of their own
    (a slotted dataclass's generated __getstate__ is the standard library's, not ours)."""
    from controller.cards import Card
    from controller.hand import BoxInPlay, Hand
    from controller.round import Round
    from controller.shoe import ShoeTracker
    for cls in (Table, Card, Round, Hand, BoxInPlay, ShoeTracker):
        for hook in ("__reduce__", "__getstate__", "__setstate__", "__reduce_ex__"):
            defined = vars(cls).get(hook)
            assert getattr(defined, "__module__", "").split(".")[0] != "controller", f"{cls.__name__}.{hook}"


def _broken(change: Any) -> dict[str, Any]:
    data = _snapshot_mid_round()
    change(data)
    return data


def _set(path: list[Any], value: Any) -> Any:
    def change(data: dict[str, Any]) -> None:
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def _delete(path: list[Any]) -> Any:
    def change(data: dict[str, Any]) -> None:
        node = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return change


@pytest.mark.parametrize("change, words", [
    pytest.param(_set(["format"], FORMAT + 1), f"format {FORMAT + 1}", id="wrong-format-number"),
    pytest.param(_set(["format"], True), "format True", id="format-true-is-not-1"),
    pytest.param(_delete(["format"]), "format None", id="no-format"),
    pytest.param(_set(["rounds_played"], "1"), "rounds_played", id="string-for-int"),
    pytest.param(_set(["locked"], 1), "locked", id="int-for-bool"),
    pytest.param(_set(["round", "dealer", 0], "ZZ"), "not a card", id="unknown-card"),
    pytest.param(_set(["round", "boxes", 0, "hands", 0, "cards", 1], "1S"), "not a card", id="unknown-card-in-hand"),
    pytest.param(_delete(["shoe"]), "shoe", id="missing-shoe-key"),
    pytest.param(_delete(["round", "boxes", 0, "hands", 0, "stake"]), "stake", id="missing-stake"),
    pytest.param(_set(["surprise"], 1), "surprise", id="unknown-key"),
    pytest.param(_set(["phase"], "napping"), "phase", id="unknown-phase"),
    pytest.param(_set(["round", "boxes", 0, "bets", 0, "amount"], "10.005"), "whole cents", id="fraction-of-a-cent"),
    pytest.param(_set(["round", "plan", 0], 7), "deal plan", id="plan-names-no-box"),
    pytest.param(_set(["round", "hand_i"], 5), "hand in turn", id="no-such-hand"),
    pytest.param(_set(["round"], None), "round", id="in-round-phase-without-round"),
    pytest.param(_set(["shoe", "dealt"], 1), "add up", id="shoe-counts-do-not-add-up"),
    pytest.param(_set(["rules", "options", "decks"], 99), "rules", id="bad-rule-option"),
    pytest.param(_set(["next_alert_id"], 0), "next_alert_id", id="alert-ids"),
])
def test_malformed_snapshot_is_refused(change: Any, words: str) -> None:
    with pytest.raises(SnapshotError, match=words.split()[0]) as info:
        Table.from_snapshot(_broken(change))
    assert isinstance(info.value, ValueError) and isinstance(info.value, EngineError)
    if " " in words:
        assert words.split(" ", 1)[1] in str(info.value)


@pytest.mark.parametrize("data", [None, [], "snapshot", 1])
def test_a_snapshot_is_an_object(data: Any) -> None:
    with pytest.raises(SnapshotError, match="JSON object"):
        Table.from_snapshot(data)


@profiles
def test_every_kind_of_state_round_trips(profile: str) -> None:
    """Deterministic sweep: after every step of many random sessions the snapshot restores to
    itself, and the sweep meets every phase and every part of the state the snapshot carries."""
    import random

    from tests.support.sessions import Chooser, Session

    seen: set[str] = set()
    for seed in range(40):
        s = Session(profile, seed, Chooser(rng=random.Random(seed)), world=True)
        for _ in range(80):
            s.run(1)
            t = s.table
            data = t.snapshot()
            assert Table.from_snapshot(_through_json(data)).snapshot() == data
            seen.add(t.phase.value)
            seen.update(name for name, present in [
                ("held", t.held), ("pending", t.pending), ("reservations", t.reservations),
                ("alerts", t.alerts), ("burn_left", t.burn_left), ("previous", t.previous),
                ("repeats", t.shoe and t.shoe.repeats), ("right_to_cut", t.right_to_cut),
                ("split", t.round and any(len(b.hands) > 1 for b in t.round.boxes)),
                ("insured", t.round and any(b.insurance is not None for b in t.round.boxes)),
                ("options", t.rules.options() != build_rules(*CASES[profile]).options()),
                ("bottom_card", t.shoe and t.shoe.bottom),
                ("contra_taken", t.round and getattr(t.round, "contra", False)),
            ] if present)
    rules = build_rules(*CASES[profile])
    game = rules.game
    wanted = {p.value for p in Phase} - {"settled", "contra", "pack_out"}  # settled is only passed through
    if game == "blackjack":
        if rules.surrender.value != "before_first_hit":
            wanted.discard("surrender")
        wanted |= {"held", "pending", "reservations", "alerts", "burn_left", "previous", "right_to_cut",
                   "split", "insured", "options"}
    else:
        wanted -= {"surrender", "insurance"}
        wanted |= {"held", "pending", "reservations", "alerts", "previous", "options", "bottom_card"}
        if rules.game == "club-21" and rules.contra:
            wanted |= {"contra", "pack_out", "split", "contra_taken"}
    assert wanted <= seen, wanted - seen


# ---------------------------------------------------------------------------- the club tables
# club-21-36 mid-round: box 1 passed 21 (the banker kept his 7D), box 2 drew dark and stands; the banker
# draws against it. Then the rest of the round: the banker 7-K-6 = 17 stops; box 2's dark 8-9 is a tie.
DUELS_HEAD = ("open_bank 1000", "bet 1 10", "bet 2 20", "cards 9S 8H 7D", "card 6C", "card TS", "card 9D",
              "dark", "card 9H", "stand", "card KS")
DUELS_TAIL = [ev.CardDrawn(card=parse_card("6S"))]


def test_a_club36_table_mid_duel_round_trips_and_plays_on() -> None:
    """A club-21-36 snapshot is plain data: the bank (in ``game_state``), each box's duel with the banker's
    hand (the card he kept moved on), the dark box; restored through JSON it plays on to the same record."""
    r = play(*DUELS_HEAD, profile="club-21-36")
    assert r.error is None and r.table.phase is Phase.DEALER
    data = r.table.snapshot()
    _plain(data)
    assert data["game_state"] == {"open": True, "opened_with": "1000", "balance": "1010", "rounds": 0, "duels": 1}
    assert data["round"]["boxes"][1]["kept"] is True and data["round"]["banker_of"] == 1
    restored = Table.from_snapshot(_through_json(data))
    assert restored.snapshot() == data, diff(data, restored.snapshot())
    for reveal in (False, True):
        assert table_view(restored, reveal_closed=reveal) == table_view(r.table, reveal_closed=reveal)
    assert _run(restored, DUELS_TAIL) == _run(r.table, DUELS_TAIL)
    rec = _run(Table.from_snapshot(_through_json(data)), DUELS_TAIL)[0]
    assert [(h["outcome"], h["bank_after"]) for h in rec["hands"]] == [("bust", "1010"), ("win", "990")]
    assert restored.snapshot() == r.table.snapshot()


def test_a_club36_bank_that_ended_keeps_how_in_the_snapshot() -> None:
    """A bank the supervisor closed stays "closed" (not "emptied") through a snapshot; an older snapshot without
    ``ended`` loads, its bank never ended."""
    four = ("bet 1 10", "cards TS 7D", "card 6C", "card 9D", "stand", "card TC",
            "bet 1 10", "cards TH 7H", "card 9H", "stand", "card TD",
            "bet 1 10", "cards 8S 8D", "card AH", "stand", "card 9C",
            "bet 1 10", "cards 8H 8C", "card AS", "stand", "card 9S")
    r = play("open_bank 1000", *four, "close_bank", profile="club-21-36")
    data = r.table.snapshot()
    assert data["game_state"]["ended"] == "closed"
    assert table_view(Table.from_snapshot(_through_json(data)))["bank"]["state"] == "closed"
    del data["game_state"]["ended"]
    assert table_view(Table.from_snapshot(_through_json(data)))["bank"]["state"] == "none"


def test_a_club36_stake_cut_to_the_bank_round_trips() -> None:
    """A stake the bank no longer covered at its duel keeps what was placed through a snapshot (the record's
    ``stake_cut_from``); a round with no cut keeps its snapshot as it was."""
    r = play("open_bank 100", "bet 1 60", "bet 2 80", "cards AS 9H 7D", "card 6C", "card TS", profile="club-21-36")
    data = r.table.snapshot()
    assert data["round"]["cut_from"] == {"2": "80"}
    restored = Table.from_snapshot(_through_json(data))
    assert restored.snapshot() == data and table_view(restored)["bank"]["duel"]["cut_from"] == "80"
    assert "cut_from" not in play(*DUELS_HEAD, profile="club-21-36").table.snapshot()["round"]


@pytest.mark.parametrize("path, value, words", [
    pytest.param(["game_state", "balance"], "-5", "below zero", id="a-bank-below-zero"),
    pytest.param(["game_state", "open"], "yes", "game_state", id="bank-open-not-a-bool"),
    pytest.param(["game_state"], None, "game_state", id="no-bank"),
    pytest.param(["round", "banker_of"], 7, "banker_of", id="banker-of-no-box"),
])
def test_a_malformed_club36_snapshot_is_refused(path: list[Any], value: Any, words: str) -> None:
    data = play(*DUELS_HEAD, profile="club-21-36").table.snapshot()
    _set(path, value)(data)
    with pytest.raises(SnapshotError, match=words):
        Table.from_snapshot(data)


def test_no_pickle_hooks_in_the_club_games() -> None:
    """The club games' state classes are snapshotted explicitly too: no pickle hooks of their own."""
    from games.club.game import ClubBox, ClubHand
    from games.club_21.game import Club21Round
    from games.club_21_36.game import Bank, Club2136Round
    for cls in (ClubHand, ClubBox, Club21Round, Club2136Round, Bank):
        for hook in ("__reduce__", "__getstate__", "__setstate__", "__reduce_ex__"):
            defined = vars(cls).get(hook)
            assert getattr(defined, "__module__", "").split(".")[0] != "controller", f"{cls.__name__}.{hook}"
