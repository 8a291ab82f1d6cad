"""Crash safety: SIGKILL the service at many instants of a session and start it again.

The virtual shoe is a separate process on a pty, as in life. At the end the
journal must hold every card the shoe released exactly once, in order, and the
settled rounds must equal those of an uninterrupted run with the same seeds.
"""

from __future__ import annotations

import random
import sqlite3
import threading

import pytest

from tests.support.deadlines import scaled, wait_until
from tests.support.harness import DEALER_KEY, Table, tablectl

from controller.replay import replay_lines
from simulators.virtual_dealer import VirtualDealer

ROUNDS = 40


def _play(table: Table, kills: int, seed: int) -> None:
    # A steady pace (about 20 ms an action) so the kills land all over the session, not after it.
    dealer = VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=seed, max_boxes=3,
                           pace=0.02 if kills else 0.0)
    done = threading.Event()
    error: list[BaseException] = []

    def drive() -> None:
        try:
            dealer.run(ROUNDS, timeout=scaled(600))  # 193 s at load 14 on 2 cores: a bound on a hang
        except BaseException as exc:  # reported to the test thread
            error.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=drive, daemon=True)
    thread.start()
    rng = random.Random(seed)
    for _ in range(kills):
        if done.wait(rng.uniform(0.2, 1.5)):
            break
        table.service.kill()  # at whatever instant the dealer and the shoe happen to be
        table.service.start()
    done.wait(scaled(660))
    assert not error, error
    assert done.is_set()


def _journal_cards(table: Table) -> list[tuple[str, int, str]]:
    db = sqlite3.connect(table.journal)
    rows = db.execute("SELECT shoe_id, position, body FROM ledger WHERE position IS NOT NULL ORDER BY seq").fetchall()
    db.close()
    import json
    return [(shoe, pos, json.loads(body).get("card")) for shoe, pos, body in rows]


def _rounds(table: Table) -> list[dict]:
    out = tablectl("journal", "export", "--db", str(table.journal))
    assert out.returncode == 0, out.stderr
    result = replay_lines(out.stdout.splitlines())
    assert result.error is None, result.error
    return [{k: v for k, v in r.items() if k != "shoe_id"} for r in result.rounds]


@pytest.mark.long
def test_sigkill_at_many_instants_loses_nothing_and_changes_nothing(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with Table(tmp_path / "a", seed=11, shoe_args=("--boot-id", "1")) as killed:
        _play(killed, kills=8, seed=5)
        # every card the shoe released is acknowledged, so journalled: a wait on that, not a pause
        wait_until(lambda: killed.shoe.request("status")["unacked"] == 0, 30, "the shoe's last cards acknowledged")
        cards = _journal_cards(killed)
        released = killed.shoe_log()
    # every card the shoe released is in the journal exactly once, in order
    assert [(c["shoe_id"], c["position"], c["card"]) for c in released] == cards
    assert len(set((s, p) for s, p, _ in cards)) == len(cards)
    with Table(tmp_path / "b", seed=11, shoe_args=("--boot-id", "1")) as calm:
        _play(calm, kills=0, seed=5)
    assert len(_rounds(killed)) >= ROUNDS
    assert _rounds(killed)[:ROUNDS] == _rounds(calm)[:ROUNDS]
    restarts = (tmp_path / "a" / "service.log").read_text().count("events replayed")
    assert restarts >= 5  # the service really was killed and restarted, many times
