"""/metrics names and counters, and the export endpoint's file replaying to the same round.

In-process (tests.support.inprocess): a table with reads open on loopback, as the demo runs it, whose
rounds the virtual dealer's decisions play (`play_rounds`), its cards dealt by the virtual shoe.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path

import pytest

from controller.replay import replay_lines
from tests.support.harness import VIEWER_KEY
from tests.support.inprocess import InProcessTable, play_rounds

pytestmark = pytest.mark.anyio

NAMES = ("tablectl_rounds_total", "tablectl_hands_total", "tablectl_cards_total", "tablectl_alerts_total",
         "tablectl_alerts_open", "tablectl_journal_commit_seconds_bucket", "tablectl_card_to_display_seconds_bucket",
         "tablectl_link_frames_total", "tablectl_link_reconnects_total", "tablectl_link_up")


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    """A table with reads open on loopback (the demo's setting; conftest's `table` is the browser's, real)."""
    async with InProcessTable(tmp_path, seed=5, api_options={"open_reads_on_loopback": True}) as t:
        yield t


def _metric(text: str, name: str, labels: str = "") -> float:
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + ("{" + labels if labels else "")) and not line.startswith("#"):
            if labels or line.startswith(name + " ") or line.startswith(name + "{"):
                total += float(line.rsplit(" ", 1)[1])
    return total


async def test_metrics_are_named_and_move_after_rounds(table):
    before = (await table.api.get("/metrics")).text
    for name in NAMES:
        assert re.search(rf"^{name}[ {{]", before, re.MULTILINE), name
    await play_rounds(table, await _played(table) + 3, seed=1, max_boxes=3)
    after = (await table.api.get("/metrics")).text
    assert _metric(after, "tablectl_rounds_total") >= _metric(before, "tablectl_rounds_total") + 3
    assert _metric(after, "tablectl_hands_total") > _metric(before, "tablectl_hands_total")
    assert _metric(after, "tablectl_cards_total", 'to="box"') > _metric(before, "tablectl_cards_total", 'to="box"')
    assert _metric(after, "tablectl_card_to_display_seconds_count") > _metric(before, "tablectl_card_to_display_seconds_count")
    assert _metric(after, "tablectl_journal_commit_seconds_count") > _metric(before, "tablectl_journal_commit_seconds_count")
    assert _metric(after, "tablectl_link_frames_total", 'result="ok"') > 0
    assert _metric(after, "tablectl_link_up") == 1
    # low cardinality: no round numbers or shoe ids in labels
    assert not re.search(r'(round|shoe)="', after)


async def _played(table: InProcessTable) -> int:
    return int((await table.api.get("/api/table")).json()["rounds_played"])


async def test_export_of_a_round_and_its_shoe_replay_to_the_same_round(table):
    if await _played(table) < 3:
        await play_rounds(table, 3, seed=1, max_boxes=3)
    rounds = (await table.api.get("/api/rounds", params={"size": 3})).json()["rounds"]
    record = rounds[1]
    r = await table.api.get("/api/export", params={"round": record["number"]},
                            headers={"Authorization": f"Bearer {VIEWER_KEY}"})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/x-ndjson")
    assert f'round-{record["number"]}.jsonl' in r.headers["content-disposition"]
    lines = r.text.splitlines()
    assert '"type":"rules"' in lines[0] and '"type":"shuffle"' in lines[1]
    replayed = replay_lines(lines)
    assert replayed.error is None, replayed.error
    last = dict(replayed.rounds[-1])
    # the replay numbers rounds from the shuffle; everything else is the same round
    assert {k: v for k, v in last.items() if k != "number"} == {
        k: v for k, v in record.items() if k not in ("number", "settled_at", "dealer_title")}
    assert record["settled_at"]  # the API adds when it was settled
    shoe = await table.api.get("/api/export", params={"shoe": record["shoe_id"]})
    assert shoe.status_code == 200
    whole = replay_lines(shoe.text.splitlines())
    assert whole.error is None and len(whole.rounds) >= len(replayed.rounds)
    assert (await table.api.get("/api/export", params={"round": 999999})).status_code == 404
    assert (await table.api.get("/api/export")).status_code == 422
    assert (await table.api.get("/api/export", params={"shoe": "x"},
                                headers={"Authorization": "Bearer nope"})).status_code == 401


async def test_figures(table):
    await play_rounds(table, await _played(table) + 2, seed=3, max_boxes=3)  # rounds of its own: alone, any order
    f = (await table.api.get("/api/figures")).json()
    assert f["rounds"] >= 1 and f["rounds_per_hour"] > 0 and len(f["series"]) == 48
    assert sum(p["rounds"] for p in f["series"]) == f["rounds"]
    assert sum(b["rounds"] for b in f["boxes"]) >= f["rounds"] and f["players"]
    assert sum(Decimal(b["house"]) for b in f["boxes"]) == Decimal(f["house_result"])
