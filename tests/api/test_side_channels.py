"""The face-down card by its side channels (issue 21): no MAC chained over it reaches a role below supervisor.

Every ledger row's MAC is chained over the rows before it, so from the row that holds a face-down
card (the dealer's hole card, a club game's closed card) on, each MAC is a function of that card.
Whoever holds a copy of the table's key (the floor keeps one per table) and is given such a MAC
tries the 52 cards against it and has the card. The tests below play a round to the point where
cards lie face down, then scan every GET route, the metrics and the event stream, as a viewer and
as a dealer, for any MAC of those rows, and try the 52 cards against the head the API hands out
below supervisor, as the attacker would. The supervisor's answers are the control.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from controller.cards import ALL_CARDS
from controller.journal import JournalKey, JournalReader, LedgerRow, row_mac
from tests.support.client import call, deal, sse_events
from tests.support.club import ClubCroupier, closed_cards, get_routes
from tests.support.harness import DEALER_KEY, FLOOR_KEY, SUPERVISOR_KEY, VIEWER_KEY, Table


def _ledger(t: Table) -> tuple[bytes, list[LedgerRow]]:
    key = JournalKey.load(Path(str(t.journal) + ".key"))
    reader = JournalReader(t.journal, key)
    try:
        return key.secret, reader.ledger_rows(0, 100_000)
    finally:
        reader.close()


def _secret_macs(rows: list[LedgerRow], first_secret: int) -> set[str]:
    """Every MAC chained over the face-down card: the MACs of its row and of every row after it."""
    return {r.mac for r in rows if r.seq >= first_secret}


def _crack(secret: bytes, rows: list[LedgerRow], first_secret: int, head: dict) -> str | None:
    """The attack: the table's key, the rows as the floor gets them (the card masked), and a head MAC.

    Tries each of the 52 cards in the first face-down row and chains the MACs on to the head;
    returns the card whose chain ends at the head's MAC, or None when there is nothing to match.
    """
    if not head.get("mac"):
        return None
    by_seq = {r.seq: r for r in rows}
    for card in ALL_CARDS:
        body = json.loads(by_seq[first_secret].body)
        body["card"] = card.code
        mac = by_seq[first_secret - 1].mac
        for seq in range(first_secret, head["seq"] + 1):
            row = by_seq[seq]
            if seq == first_secret:
                row = dataclasses.replace(row, body=json.dumps(body, separators=(",", ":"), sort_keys=True))
            mac = row_mac(secret, mac, row)
        if mac == head["mac"]:
            return card.code
    return None


def _scan(t: Table, macs: set[str], first_secret: int, start: int) -> list[str]:
    """Where a viewer, a dealer or the floor is handed one of `macs`: every GET route, /metrics, the stream."""
    found = []
    routes = get_routes(t.api) + ["/favicon.ico"]
    last = call(t.api, "GET", "/api/table", SUPERVISOR_KEY).json()["last_seq"]
    for key in (VIEWER_KEY, DEALER_KEY, FLOOR_KEY):
        for url in routes:
            r = call(t.api, "GET", url, key)
            assert r.status_code < 500, url
            found += [f"{url} ({key})" for mac in macs if mac in r.text]
    # The floor's key reads the ledger (and holds the table's journal key): the whole of it, as published.
    ledger = call(t.api, "GET", "/api/ledger?limit=500", FLOOR_KEY)
    assert ledger.status_code == 200 and ledger.text.count("\n") == last
    found += [f"/api/ledger ({FLOOR_KEY})" for mac in macs if mac in ledger.text]
    for key in (VIEWER_KEY, DEALER_KEY):  # the floor's key may not read the stream (403)
        events = sse_events(t.api, key, start, want=last - start)
        found += [f"/api/events ({key})" for mac in macs if mac in json.dumps(events)]
    return found


@pytest.fixture(scope="module")
def hole_down(tmp_path_factory):
    """A us-holecard round whose hole card is face down; yields (table, hole card, seq before the round)."""
    with Table(tmp_path_factory.mktemp("mac-hole"), seed=4, profile="us-holecard", decks=1) as t:
        start = call(t.api, "GET", "/api/table", VIEWER_KEY).json()["last_seq"]
        assert call(t.api, "POST", "/api/actions", DEALER_KEY,
                    json={"type": "bet", "box": 1, "amount": 10}).status_code == 200
        hole = deal(t.api, t.shoe, VIEWER_KEY, 4)[-1]  # box, dealer up, box, the hole card
        table = call(t.api, "GET", "/api/table", SUPERVISOR_KEY).json()
        assert table["phase"] in ("players", "insurance"), f"seed 4 should leave the hole card down: {table['phase']}"
        yield t, hole, start


def test_the_head_mac_is_withheld_below_supervisor_while_the_hole_card_is_down(hole_down):
    t, hole, start = hole_down
    secret, rows = _ledger(t)
    first = next(r.seq for r in rows if r.seq > start and json.loads(r.body).get("card") == hole)
    for key in (VIEWER_KEY, DEALER_KEY):
        head = call(t.api, "GET", "/api/table", key).json()["head"]
        assert head["seq"] == rows[-1].seq and head["mac"] is None, head
        assert _crack(secret, rows, first, head) is None
    # The control: the supervisor's head is the journal's, and the attack does find the card from it.
    head = call(t.api, "GET", "/api/table", SUPERVISOR_KEY).json()["head"]
    assert head == {"seq": rows[-1].seq, "mac": rows[-1].mac}
    assert _crack(secret, rows, first, head) == hole


def test_no_route_metric_or_event_below_supervisor_holds_a_mac_chained_over_the_hole_card(hole_down):
    t, hole, start = hole_down
    _, rows = _ledger(t)
    first = next(r.seq for r in rows if r.seq > start and json.loads(r.body).get("card") == hole)
    assert not _scan(t, _secret_macs(rows, first), first, start)


def test_the_head_mac_is_back_once_the_hole_card_is_turned(hole_down):
    t, _, _ = hole_down
    for _ in range(40):  # stand every box: the dealer turns the hole card and plays out
        view = call(t.api, "GET", "/api/table", SUPERVISOR_KEY).json()
        if view["round"] is None:
            break
        if "stand" in view["legal_actions"]:
            assert call(t.api, "POST", "/api/actions", DEALER_KEY, json={"type": "stand"}).status_code == 200
        elif view["phase"] == "insurance":
            assert call(t.api, "POST", "/api/actions", DEALER_KEY, json={"type": "close_insurance"}).status_code == 200
        else:
            deal(t.api, t.shoe, VIEWER_KEY, 1)
    _, rows = _ledger(t)
    assert call(t.api, "GET", "/api/table", VIEWER_KEY).json()["head"] == {"seq": rows[-1].seq, "mac": rows[-1].mac}


def test_club_closed_cards_withhold_the_head_mac_on_every_path(tmp_path):
    """club-21: three closed cards fell in 2.2 s the same way; now no MAC over them leaves below supervisor."""
    with Table(tmp_path, seed=7, profile="club-21", decks=2) as t:
        croupier = ClubCroupier(t)
        start, view = croupier.deal_until_players({1: 10, 2: 10})
        assert view["phase"] == "players", "seed 7 should leave closed cards in play"
        closed = closed_cards(croupier.view(), croupier.view(VIEWER_KEY))
        secret, rows = _ledger(t)
        first = min(r.seq for r in rows if r.seq > start and json.loads(r.body).get("card") in closed)
        for key in (VIEWER_KEY, DEALER_KEY):
            head = call(t.api, "GET", "/api/table", key).json()["head"]
            assert head["mac"] is None and _crack(secret, rows, first, head) is None
        assert not _scan(t, _secret_macs(rows, first), first, start)
        head = call(t.api, "GET", "/api/table", SUPERVISOR_KEY).json()["head"]
        assert head["mac"] == rows[-1].mac and _crack(secret, rows, first, head) in closed
