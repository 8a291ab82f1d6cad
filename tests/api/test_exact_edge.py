"""The exact edge of the next round on the live table (issue 27, part 2), through a real `tablectl run`.

After rounds are dealt by the virtual dealer, the supervisor's `GET /api/edge` gives the exact edge
the worker process computed from the cards left: the same figure as the analyser on those cards, for
the round about to be dealt. A viewer or dealer may not read it, and the table's view never carries it.
"""

from __future__ import annotations

import time

import pytest

from controller.rules import build_rules
from simulators.exact import analyse
from simulators.virtual_dealer import VirtualDealer
from tablectl.edge import counts_by_value
from tests.support.deadlines import scaled
from tests.support.client import call
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY, Table


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("edge"), seed=11) as t:
        yield t


def test_the_supervisor_reads_the_exact_edge_of_the_next_round(table) -> None:
    VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=3, max_boxes=3).run(6, timeout=scaled(120))
    # (the worker runs at nice 10, behind everything else on a loaded machine: a long bound, never a measure)
    deadline = time.monotonic() + scaled(120)
    while True:  # the worker answers in its own time: wait for the figure of the round about to be dealt
        view = call(table.api, "GET", "/api/table", SUPERVISOR_KEY).json()
        edge = call(table.api, "GET", "/api/edge", SUPERVISOR_KEY).json()
        if view["round"] is None and edge["available"] and edge["next_round"] == view["rounds_played"] + 1:
            break
        assert time.monotonic() < deadline, (edge, view["rounds_played"])
        time.sleep(0.2)
    remaining = view["shoe"]["remaining_by_rank"]
    counts = counts_by_value(remaining)
    assert edge["shoe"] == view["shoe"]["id"] and edge["cards_left"] == sum(counts) < 312
    exact = analyse(build_rules("ru-standard"), counts).ev
    assert edge["play"] == "basic"  # the table's own strategy, not the analyser's optimal play
    assert edge["player_edge_pct"] == pytest.approx(100 * exact, abs=1e-4)
    assert edge["house_edge_pct"] == pytest.approx(-100 * exact, abs=1e-4)
    assert edge["hi_lo_estimate_pct"] == pytest.approx(-0.36 + 0.57 * edge["true_count"], abs=1e-3)


def test_only_surveillance_sees_it(table) -> None:
    for key in (VIEWER_KEY, DEALER_KEY):
        assert call(table.api, "GET", "/api/edge", key).status_code == 403
        view = call(table.api, "GET", "/api/table", key).json()
        assert "edge" not in str(sorted(view))
