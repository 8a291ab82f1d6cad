"""A single deck runs out in the middle of a round: the simulated dealers load a new shoe and play on.

Issue 21: `tablectl fleet-sim --rules us-holecard` hung for ever in round 5. The one deck ran out
mid-round (the table's `shoe_empty` alert: "load a new shoe and the round goes on with its cards"),
and the simulated dealer neither loaded a shoe nor voided the round. Both dealers (the fleet's
in-process one and the virtual dealer over the API) now load a new shoe, as a croupier does.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from tests.support.deadlines import scaled
from tests.support.harness import DEALER_KEY, Table

from simulators.virtual_dealer import VirtualDealer
from tablectl.fleet_sim import SimTable, SimTableConfig

ROUNDS = 10


def _ran_out(journal: Path) -> bool:
    """The journal shows a deck dealt to its last card and another shoe after it."""
    db = sqlite3.connect(journal)
    try:
        last, shoes = db.execute("SELECT MAX(position), COUNT(DISTINCT shoe_id) FROM ledger").fetchone()
    finally:
        db.close()
    return last == 52 and shoes >= 2


def test_the_fleet_sim_dealer_loads_a_new_shoe_when_one_deck_runs_out(tmp_path: Path) -> None:
    sim = SimTable(SimTableConfig(2, tmp_path, "mqtt://127.0.0.1:9", "tablectl", 1, "us-holecard", None,
                                  fleet=False))
    result = asyncio.run(asyncio.wait_for(sim.run(ROUNDS, 0.0, asyncio.Event()), scaled(120)))
    assert result["rounds"] == ROUNDS
    assert _ran_out(tmp_path / "table-002" / "journal.sqlite")  # the case really happened


@pytest.mark.long
def test_the_virtual_dealer_loads_a_new_shoe_when_one_deck_runs_out(tmp_path: Path) -> None:
    with Table(tmp_path, seed=1, profile="us-holecard", decks=1) as table:
        dealer = VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=1, max_boxes=7)  # seven boxes: a round can outrun the cut card
        dealer.run(ROUNDS, timeout=scaled(120))
        assert _ran_out(table.journal)
