"""`tablectl demo`: the whole table on this machine, nothing attached.

It starts the virtual shoe on a pseudo-terminal (a separate process, as a real
shoe on a cable), the table service with its journal and the API on
127.0.0.1, mock GPIO pins, and the virtual dealer, then draws the table in the
terminal as rounds play. It stops after N rounds or on Ctrl-C with a summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import shutil
import socket
import sys
import tempfile
import threading
import time
from decimal import Decimal
from pathlib import Path
from typing import Any


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register demo's arguments."""
    p.add_argument("--seed", type=int, default=1, help="seed of the shoe and the dealer (default 1)")
    p.add_argument("--rounds", type=int, default=30, help="rounds to play, 0 for until Ctrl-C (default 30)")
    p.add_argument("--pace", choices=("fast", "live"), default="live", help="table pace (default live)")
    p.add_argument("--port", type=int, default=0, help="API port on 127.0.0.1 (default: a free one)")
    p.add_argument("--db", help="keep the journal here (for `tablectl journal export` and `replay` afterwards)")
    p.add_argument("--rules", default="ru-standard", help="rule profile (default ru-standard)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(args: argparse.Namespace) -> int:
    """Run the demo; 0 when it played its rounds or was stopped by Ctrl-C."""
    from controller.rules import RuleError, build_rules

    try:
        rules = build_rules(args.rules)
    except RuleError as exc:
        print(f"tablectl demo: {exc}", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="tablectl-demo-"))
    try:
        return asyncio.run(_demo(args, rules.name, workdir))
    except KeyboardInterrupt:
        return 0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


async def _demo(args: argparse.Namespace, profile: str, workdir: Path) -> int:
    from simulators.shoe.process import SimProcess
    from simulators.virtual_dealer import PACES, VirtualDealer
    from tablectl.config import ApiKey, settings_from_dict
    from tablectl.run import serve, setup_logging

    decks = 1 if profile in ("us-holecard", "single-deck-enhc") else 6
    sim = SimProcess(workdir, "--seed", str(args.seed), "--decks", str(decks)).start()
    port = args.port or _free_port()
    dealer_key, supervisor_key = secrets.token_urlsafe(12), secrets.token_urlsafe(12)
    db = Path(args.db).resolve() if args.db else workdir / "journal.sqlite"
    settings = settings_from_dict({
        "table": {"name": "demo", "profile": profile},
        "shoe": {"port": sim.link},
        "journal": {"path": str(db)},
        "api": {"port": port, "open_reads_on_loopback": True, "keys": [
            {"name": "virtual-dealer", "role": "dealer", "sha256": ApiKey.hash(dealer_key)},
            {"name": "you", "role": "supervisor", "sha256": ApiKey.hash(supervisor_key)},
        ]},
        "gpio": {"pin_factory": "mock", "driver": "none"},
        "log_level": "WARNING",
    })
    setup_logging("WARNING")
    api = f"http://127.0.0.1:{port}"
    print(f"tablectl demo: table '{profile}', pit dashboard and API {api}/ (reads open on loopback; "
          f"supervisor key {supervisor_key}), journal {db}", flush=True)
    started = asyncio.Event()
    holder: dict[str, Any] = {}

    def on_ready(service: Any) -> None:
        holder["service"] = service
        started.set()

    server = asyncio.create_task(serve(settings, gpio=True, api=True, on_ready=on_ready, announce=False))
    await started.wait()
    service = holder["service"]
    first_round = service.table.rounds_played
    target = first_round + args.rounds if args.rounds else 10**9
    dealer = VirtualDealer(api, dealer_key, sim.control_path, seed=args.seed, pace=PACES[args.pace] / 3,
                           max_boxes=4)
    stop_dealer = threading.Event()
    result: dict[str, Any] = {}

    def play() -> None:
        try:
            result["table"] = dealer.run(target)
        except Exception as exc:  # reported in the summary, never a traceback
            result["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            stop_dealer.set()

    live = args.pace == "live" and sys.stdout.isatty()
    service.outputs.append(_Printer(live))
    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    try:
        while not stop_dealer.is_set():
            await asyncio.sleep(0.05)
    except asyncio.CancelledError:
        pass
    finally:
        summary = _summary(service, first_round)
        import os
        import signal
        os.kill(os.getpid(), signal.SIGTERM)  # the service's own clean stop path
        await server
        sim.stop()
    print(json.dumps(summary | ({"error": result["error"]} if "error" in result else {})))
    return 1 if "error" in result else 0


def _summary(service: Any, first_round: int) -> dict[str, Any]:
    journal = service.authority.journal
    played = service.table.rounds_played - first_round
    rounds = journal.rounds(0, max(played, 0)) if played > 0 else []
    hands = sum(len(r["hands"]) for r in rounds)
    players_net = sum((Decimal(r["net"]) for r in rounds), Decimal(0))
    return {
        "rounds": played,
        "hands": hands,
        "house_result": str(-players_net),
        "alerts": [a.kind.value for a in service.table.open_alerts()],
        "journal": str(journal.path),
    }


class _Printer:
    """An output that draws the table after every input (live) or prints each settled round (fast)."""

    def __init__(self, live: bool) -> None:
        self.live = live

    def handle(self, effects: list[Any], table: Any) -> None:
        from controller.effects import RoundSettled
        from controller.view import table_view

        from .terminal_view import draw

        if self.live:
            sys.stdout.write("\x1b[2J\x1b[H" + draw(table_view(table), table) + "\n")
            sys.stdout.flush()
            return
        for effect in effects:
            if isinstance(effect, RoundSettled):
                r = effect.result
                hands = ", ".join(f"box {h['box']} {' '.join(h['cards'])} {h['outcome']} {h['net']}"
                                  for h in r["hands"])
                print(f"round {r['number']}: dealer {' '.join(r['dealer']['cards'])} ({r['dealer']['total']}); "
                      f"{hands}; players {r['net']}", flush=True)
