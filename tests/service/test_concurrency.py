"""One writer: many clients posting at once never get a 500 and never corrupt the journal.

Issue 11: two dealer tablets, a console and a supervisor post together while the shoe deals.
Each client gets its 200 or its 409 (or 422 for a malformed request), the journal verifies
against the table's key, replaying its export gives the API's rounds, and a restart accepts it.
"""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from controller.replay import replay_lines
from simulators.virtual_dealer import VirtualDealer
from tests.support.deadlines import scaled
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, Table, tablectl

ACTIONS = (
    lambda rng: {"type": "bet", "box": rng.randint(1, 7), "amount": rng.choice([10, 20, 50])},
    lambda rng: {"type": "stand"},
    lambda rng: {"type": "double"},
    lambda rng: {"type": "split"},
    lambda rng: {"type": "close_insurance"},
    lambda rng: {"type": "insurance", "box": rng.randint(1, 7), "amount": 5},
    lambda rng: {"type": "reserve", "box": rng.randint(1, 7), "player": f"p{rng.randint(1, 9)}"},
)


def _client(api: str, index: int, requests: int) -> list[int]:
    rng = random.Random(index)
    statuses = []
    headers = {"Authorization": f"Bearer {SUPERVISOR_KEY if index % 4 == 0 else DEALER_KEY}"}
    with httpx.Client(base_url=api, headers=headers, timeout=scaled(30)) as http:
        for _ in range(requests):
            if rng.random() < 0.3:
                statuses.append(http.get("/api/table").status_code)
            else:
                statuses.append(http.post("/api/actions", json=rng.choice(ACTIONS)(rng)).status_code)
    return statuses


@pytest.mark.parametrize("clients", [8, 16, 32])
def test_clients_posting_together_get_200_or_409_and_the_journal_stays_whole(tmp_path, clients):
    with Table(tmp_path, seed=clients) as table:
        dealer = VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=clients, max_boxes=3)
        played: dict[str, object] = {}
        worker = threading.Thread(target=lambda: played.update(t=dealer.run(15, timeout=scaled(240))), daemon=True)
        worker.start()  # the shoe deals all along
        with ThreadPoolExecutor(clients) as pool:
            results = list(pool.map(lambda i: _client(table.api, i, 30), range(clients)))
        worker.join(scaled(300))
        assert "t" in played, "the virtual dealer did not finish its rounds"
        statuses = [s for r in results for s in r]
        assert len(statuses) == clients * 30
        assert set(statuses) <= {200, 409, 422}, sorted(set(statuses))
        assert statuses.count(200) > 0 and statuses.count(409) > 0  # both verdicts were really given
        health = httpx.get(table.api + "/healthz", timeout=scaled(10)).json()
        assert health["journal"] and health["engine"]
        api_rounds = httpx.get(table.api + "/api/rounds", params={"size": 200},
                               headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10)).json()["rounds"]
        head = httpx.get(table.api + "/api/table", headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10)).json()["head"]
    key = str(table.journal.with_name("journal.sqlite.key"))
    verified = tablectl("journal", "verify", "--db", str(table.journal), "--key", key)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert f"head row {head['seq']} MAC {head['mac']}" in verified.stdout
    export = tablectl("journal", "export", "--db", str(table.journal))
    replayed = replay_lines(export.stdout.splitlines())
    assert replayed.error is None
    assert [{k: v for k, v in r.items()} for r in replayed.rounds] == \
        [{k: v for k, v in r.items() if k not in ("settled_at", "dealer_title")} for r in reversed(api_rounds)]
    table.service.start()  # a restart accepts the journal
    table.service.stop()
