"""What the table service loads before it is ready: only what it needs (issue 22: at most 60 MB).

`benchmarks/rss.py` prints the RSS at READY and what each package costs; these tests keep the
trims it led to: the floor's MQTT client only with `[fleet]` on; no `pydantic.v1`, which
FastAPI imports only to ask whether a model is a v1 model (none of ours is); no prometheus-client
(the service writes /metrics itself); the fleet's wire models only where they are used; the dispute
record's Jinja and WeasyPrint only once a record is asked for.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.deadlines import scaled
from tests.support.harness import free_port

# The service in a child, with mock pins and no shoe: on READY it prints every module loaded and stops.
PROBE = """
import asyncio, gc, json, sys
from tablectl import run
from tablectl.config import load_settings

def main() -> None:
    settings = load_settings(sys.argv[1])
    getattr(run, "prepare_process", lambda: None)()  # (what `tablectl run` does first)
    stop = asyncio.Event()

    def ready(service):
        print(json.dumps({"modules": sorted(n for n, m in sys.modules.items() if m is not None),
                          "frozen": gc.get_freeze_count()}), flush=True)
        stop.set()

    asyncio.run(run.serve(settings, on_ready=ready, stop=stop, announce=False))

main()
"""


def _at_ready(tmp_path: Path, extra: str = "") -> dict[str, Any]:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n[shoe]\nport = "{tmp_path / "no-shoe"}"\n'
                   f'[api]\nport = {free_port()}\n[gpio]\npin_factory = "mock"\n{extra}')
    out = subprocess.run([sys.executable, "-c", PROBE, str(cfg)], capture_output=True, text=True, timeout=scaled(120))
    assert out.returncode == 0, out.stderr
    at_ready: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
    return at_ready


def _loaded_at_ready(tmp_path: Path, extra: str = "") -> set[str]:
    return set(_at_ready(tmp_path, extra)["modules"])


def test_the_service_loads_no_broker_client_nor_pydantic_v1(tmp_path: Path) -> None:
    loaded = _loaded_at_ready(tmp_path)
    assert "fastapi" in loaded and "uvicorn" in loaded  # (it did start its API)
    tops = {name.split(".")[0] for name in loaded}
    assert not tops & {"aiomqtt", "paho"}, "the MQTT client is loaded with [fleet] off"
    assert "pydantic.v1" not in loaded
    assert "prometheus_client" not in tops  # /metrics is written by tablectl.metrics itself
    assert "tablectl.fleet.wire" not in loaded  # (its models are the floor's; the config needs two patterns)
    assert not tops & {"jinja2", "weasyprint"}  # the dispute record's page and PDF: on the first one asked for
    # Nor what only a person asks for, now and then (a disputed round's record; the shift's figures, the dealers'
    # and players' evidence), nor the parts of the games that no one asks for at a table: their simulators, virtual
    # dealers and exact analysers (the registry loads a part on first use; issue 36: 60 MB a whole shift).
    assert not loaded & {"controller.dispute", "tablectl.dispute", "markupsafe", "tablectl.figures",
                         "controller.protection.advantage", "controller.protection.dealers", "controller.replay"}
    assert "games.blackjack.game" in loaded
    assert not {name for name in loaded if name.startswith("games.") and name.endswith((".simulate", ".dealer"))}


def test_the_table_loads_the_engine_of_its_own_game_only(tmp_path: Path) -> None:
    """The registry knows every installed game by its folder and profiles (data), and loads a game's engine, its
    events and rules' model, and the API's models of its views, when the rules name it: 2.9 MB of the service's RSS
    at READY was the other games' (issue 36; benchmarks/rss.py)."""
    loaded = _loaded_at_ready(tmp_path)  # (the default rules: blackjack's ru-standard)
    assert {"games.blackjack.game", "games.blackjack.events", "games.blackjack.view"} <= loaded
    others = {name for name in loaded if name.startswith("games.") and name.split(".")[1] != "blackjack"}
    # Another game's folder and its profiles, and baccarat's public scoreboard (the route a blackjack table answers
    # 404 not_this_game): never its engine, events, rules or views.
    assert others <= {"games.baccarat", "games.baccarat.profiles", "games.baccarat.scoreboard", "games.club_21",
                      "games.club_21_36"}, sorted(others)


def test_the_broker_client_is_loaded_when_the_table_publishes(tmp_path: Path) -> None:
    loaded = _loaded_at_ready(tmp_path, f'[fleet]\nenabled = true\n[fleet.broker]\nurl = "mqtt://127.0.0.1:{free_port()}"\n')
    assert "aiomqtt" in loaded



def test_what_the_table_made_to_start_is_out_of_the_collectors_sight_at_ready(tmp_path: Path) -> None:
    """Its ~90,000 objects were walked by every full collection: most of the CPU the service spent stopping
    (interpreter finalization collects several times; benchmarks/soak.py prints it), and a pause of the
    writer at each full collection during the shift."""
    assert _at_ready(tmp_path)["frozen"] > 50_000
