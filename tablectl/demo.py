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
import signal
import socket
import sys
import tempfile
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register demo's arguments."""
    p.add_argument("--seed", type=int, default=1, help="seed of the shoe and the dealer (default 1)")
    p.add_argument("--rounds", type=int, default=None,
                   help="rounds to play, 0 for until Ctrl-C (default 30; with a bad --shuffle, until the shoe it "
                        "shuffled is dealt out and the next is shuffled in, so its alarm and notice are seen)")
    p.add_argument("--pace", choices=("fast", "live"), default="live", help="table pace (default live)")
    p.add_argument("--port", type=_port, default=0, help="API port on 127.0.0.1 (default: a free one)")
    p.add_argument("--db", help="keep the journal here (for `tablectl journal export` and `replay` afterwards)")
    p.add_argument("--rules", default="ru-standard", help="rule profile (default ru-standard)")
    p.add_argument("--shuffle", type=_shuffle, default="fair", metavar="SPEC",
                   help="how the virtual shoe shuffles from its second shoe on: fair (default), false-slug:N, "
                        "riffle:K, strip, zone (docs/protection.md: the table's protection alarms)")


def _shuffle(text: str) -> str:
    from simulators.shuffles import BadShuffle, parse_shuffle

    try:
        parse_shuffle(text)
    except BadShuffle as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is from 1 to 65535 (0 for a free one), got {text}")
    return value


def port_in_use(port: int) -> str:
    """The one line the demo says when its API's port is taken (never the service's `[api]` words: the demo's
    user wrote no config)."""
    return (f"tablectl demo: port {port} on 127.0.0.1 is in use (another program listens there): "
            f"give another with --port N, or leave --port out for a free one")


def _port_free(port: int) -> bool:
    """Whether the API could listen on `port` now (bound as the service binds it, then let go)."""
    from types import SimpleNamespace

    from .listening import ListenError, bind

    try:
        bind(SimpleNamespace(host="127.0.0.1", port=port), 1).close()
    except ListenError:
        return False
    return True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(args: argparse.Namespace) -> int:
    """Run the demo; 0 when it played its rounds or was stopped by Ctrl-C or SIGTERM."""
    from controller.journal import JournalError
    from controller.rules import RuleError, build_rules

    from .exits import EXIT_CONFIG, EXIT_LISTEN

    try:
        rules = build_rules(args.rules)
    except RuleError as exc:
        print(f"tablectl demo: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    # Before anything is started or printed: a URL and a key for a table that never starts mislead.
    if args.port and not _port_free(args.port):
        print(port_in_use(args.port), file=sys.stderr)
        return EXIT_LISTEN
    workdir = Path(tempfile.mkdtemp(prefix="tablectl-demo-"))
    try:
        return asyncio.run(_demo(args, rules.name, workdir, shoe_args(rules)))
    except KeyboardInterrupt:  # before the demo's own handlers are in place (while starting)
        return 0
    except (RuntimeError, OSError, JournalError) as exc:  # the virtual shoe or the service could not start
        print(f"tablectl demo: the table could not start: {exc}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def shoe_args(rules: Any) -> tuple[str, ...]:
    """The virtual shoe for these rules: their decks, a 36-card pack where they play one, and the cut card where
    the rules place it (ru-standard: 200 to 220 of 312 cards before it; the club games have none)."""
    args: tuple[str, ...] = ("--decks", str(rules.decks))
    pack = getattr(rules, "pack", 52)
    if pack != 52:
        args += ("--pack", str(rules.pack))  # the club-21-36 shoe (simulators, branch club-sim)
    zone = rules.cut_card_zone(rules.decks * pack)
    if zone:
        args += ("--cut-zone", f"{zone[0]}-{zone[1]}")
    return args


async def _demo(args: argparse.Namespace, profile: str, workdir: Path, pack: tuple[str, ...]) -> int:
    from simulators.shoe.process import SimProcess
    from simulators.virtual_dealer import PACES, DealerStopped, VirtualDealer
    from tablectl.config import ApiKey, settings_from_dict
    from tablectl.run import serve, setup_logging

    # The demo owns Ctrl-C, SIGTERM and a closed terminal from the start: the dealer stops first, then the
    # summary, then the service, and the virtual shoe last (in its own process group, so the terminal's Ctrl-C
    # never reaches it: a shoe gone before the service would read as an unplugged cable).
    loop = asyncio.get_running_loop()
    demo_stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, demo_stop.set)
    sim = SimProcess(workdir, "--seed", str(args.seed), *pack, "--shuffle", args.shuffle, own_group=True).start()
    try:
        port = args.port or _free_port()
        dealer_key, supervisor_key, pit_key = (secrets.token_urlsafe(12) for _ in range(3))
        kept = Path(args.db).resolve() if args.db else None
        db = kept or workdir / "journal.sqlite"  # without --db the journal goes with the demo
        settings = settings_from_dict({
            "table": {"name": "demo", "profile": profile, "demo_pace": args.pace},  # the dashboard says it is fast
            "shoe": {"port": sim.link},
            "journal": {"path": str(db)},
            "api": {"port": port, "open_reads_on_loopback": True, "keys": [
                {"name": "virtual-dealer", "role": "dealer", "sha256": ApiKey.hash(dealer_key)},
                {"name": "you", "role": "supervisor", "sha256": ApiKey.hash(supervisor_key)},
                # club-21-36's bank is the pit's to open and close: the virtual dealer does it with its own key.
                {"name": "virtual-pit", "role": "supervisor", "sha256": ApiKey.hash(pit_key)},
            ]},
            # The displays are drawn by the real driver path: engine -> display view -> chain -> terminal driver.
            "gpio": {"pin_factory": "mock", "driver": "terminal", "terminal": {"style": "segments", "columns": 2}},
            "log_level": "WARNING",
        })
        setup_logging("WARNING")
        api = f"http://127.0.0.1:{port}"
        header = [f"tablectl demo: table '{profile}', pit dashboard and API {api}/ (reads open on loopback; "
                  f"supervisor key {supervisor_key})" + (f", journal {kept}" if kept else "")]
        live = args.pace == "live" and sys.stdout.isatty()
        screen = _Screen(header, live)
        screen.start()
        from simulators.parts import dealer_moves

        pit = pit_key if dealer_moves(settings.table.rules().game).needs_supervisor else None
        return await _play(args, settings, api, dealer_key, sim, screen, kept, demo_stop, pit_key=pit,
                           serve=serve, dealer_class=VirtualDealer, stopped=DealerStopped, pace=PACES[args.pace])
    finally:
        sim.stop()


async def _play(args: argparse.Namespace, settings: Any, api: str, dealer_key: str, sim: Any, screen: "_Screen",
                kept: Path | None, demo_stop: asyncio.Event, *, serve: Any, dealer_class: Any,
                stopped: type[Exception], pace: float, pit_key: str | None = None) -> int:
    loop = asyncio.get_running_loop()
    started = asyncio.Event()
    service_stop = asyncio.Event()
    holder: dict[str, Any] = {}

    def on_ready(service: Any) -> None:
        holder["service"] = service
        started.set()

    server = asyncio.create_task(serve(settings, gpio=True, api=True, on_ready=on_ready, announce=False,
                                       stop=service_stop, terminal_stream=screen))
    # A stop asked for while the table starts (about a second) is carried out once it runs, with the summary.
    waiting = asyncio.create_task(started.wait())
    await asyncio.wait({waiting, server}, return_when=asyncio.FIRST_COMPLETED)
    if "service" not in holder:  # the service could not start
        from .exits import EXIT_LISTEN
        from .listening import ListenError

        waiting.cancel()
        error = server.exception() if not server.cancelled() else None
        if isinstance(error, ListenError):  # the port was taken between the demo's check and the service's bind
            print(port_in_use(settings.api.port), file=sys.stderr)
            return EXIT_LISTEN
        from .config import RulesDiffer

        if isinstance(error, RulesDiffer):  # --db names a journal of other rules than --rules
            print(f"tablectl demo: {error}", file=sys.stderr)
            return 2
        print(f"tablectl demo: the table could not start: {error}", file=sys.stderr)
        return 1
    service = holder["service"]
    first_round = service.table.rounds_played
    # A bad shuffle's findings come in the second shoe (a slug while it is dealt, a weak shuffle when the third is
    # shuffled in), wherever its cut card lies: by default the demo plays until then (issue 38: 30 rounds did not
    # always reach the slug).
    from simulators.shuffles import ShuffleKind, parse_shuffle

    through_bad_shoe = args.rounds is None and parse_shuffle(args.shuffle).kind is not ShuffleKind.FAIR
    rounds = 30 if args.rounds is None else args.rounds
    target = first_round + rounds if rounds and not through_bad_shoe else 10**9
    extra = {"supervisor_key": pit_key} if pit_key is not None else {}  # only a game with a bank needs the pit
    dealer = dealer_class(api, dealer_key, sim.control_path, seed=args.seed, pace=pace / 3, max_boxes=4, **extra)
    result: dict[str, Any] = {}

    def play() -> None:
        try:
            result["table"] = dealer.run(target)
        except stopped:
            pass
        except Exception as exc:  # reported in the summary, never a traceback
            result["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            loop.call_soon_threadsafe(demo_stop.set)

    printer = _Printer(screen, service.clock)
    service.add_output(printer)
    thread = threading.Thread(target=play, name="virtual-dealer", daemon=True)
    thread.start()
    ages = asyncio.create_task(_keep_ages_counting(printer, service, demo_stop)) if screen.live else None
    third = asyncio.create_task(_until_third_shoe(service, service.table.shoes_loaded + 3, demo_stop)) \
        if through_bad_shoe else None
    await demo_stop.wait()
    if third is not None:
        third.cancel()
    if ages is not None:
        ages.cancel()
    dealer.stop.set()  # wakes the dealer out of any wait; an HTTP call in flight answers at once
    await loop.run_in_executor(None, thread.join, 5.0)
    summary = _summary(service, first_round, kept)
    service_stop.set()
    await asyncio.gather(server, return_exceptions=True)
    screen.stop()
    if "error" in result:
        summary["error"] = result["error"]
    print(f"Played {summary['rounds']} rounds, {summary['hands']} hands: House {_signed(summary['house_result'])}"
          + (f"; journal kept in {kept}" if kept else ""), flush=True)
    print(json.dumps(summary), flush=True)
    return 1 if "error" in result else 0


async def _until_third_shoe(service: Any, shoes: int, stop: asyncio.Event) -> None:
    """Stop the demo once the shoe the virtual shoe shuffled badly (its second) is out and a third shoe is in
    (``shoes``: the table's shoes loaded by then)."""
    while not stop.is_set():
        await asyncio.sleep(0.05)
        if service.table.shoes_loaded >= shoes and service.table.round is None:
            stop.set()


async def _keep_ages_counting(printer: "_Printer", service: Any, stop: asyncio.Event) -> None:
    """Live, redraw each second while an alert is open: a table that waits for the pit gets no input
    that would redraw it, and the alert's age must keep counting."""
    while not stop.is_set():
        await asyncio.sleep(1.0)
        if service.table.open_alerts():
            printer.handle([], service.table)


def _signed(amount: str) -> str:
    return amount if amount.startswith("-") or amount == "0" else "+" + amount


def _summary(service: Any, first_round: int, kept: Path | None) -> dict[str, Any]:
    journal = service.authority.journal
    played = service.table.rounds_played - first_round
    if service.table.round is not None:
        played -= 1  # the round in play when the demo stopped is not settled
    rounds = journal.rounds(0, max(played, 0)) if played > 0 else []
    hands = sum(len(r["hands"]) for r in rounds)
    players_net = sum((Decimal(r["net"]) for r in rounds), Decimal(0))
    summary: dict[str, Any] = {
        "rounds": len(rounds),
        "hands": hands,
        "house_result": str(-players_net),
        "alerts": [a.kind.value for a in service.table.open_alerts()],
    }
    if kept is not None:  # only a file that is still there after the demo
        summary["journal"] = str(kept)
    return summary


class _Screen:
    """The demo's terminal: a header the redraw keeps, the table, and the displays as the driver draws them.

    Live (a terminal at live pace) it redraws in place after every change; piped it
    prints the header once and then one line per settled round. It is also the terminal
    display driver's stream: each ``write`` is one frame of the seven-segment displays.
    """

    def __init__(self, header: list[str], live: bool) -> None:
        self.header = header
        self.live = live
        self.table = ""
        self.displays = ""
        self._lock = threading.Lock()
        self._running = False

    def start(self) -> None:
        """Show the header (it stays on top of every redraw)."""
        self._running = True
        if self.live:
            self._redraw()
        else:
            print("\n".join(self.header), flush=True)

    def stop(self) -> None:
        """No more redraws (the summary follows below the last one)."""
        with self._lock:
            self._running = False

    def show_table(self, text: str) -> None:
        """The table's lines changed."""
        self.table = text
        if self.live:
            self._redraw()

    def line(self, text: str) -> None:
        """One line of the piped log (a settled round)."""
        if not self.live:
            with self._lock:
                print(text, flush=True)

    def write(self, frame: str) -> int:
        """The terminal driver's output: one frame of every display."""
        self.displays = frame.rstrip("\n")
        if self.live:
            self._redraw()
        return len(frame)

    def flush(self) -> None:
        """Part of the stream interface the driver uses; every write is drawn at once."""

    def _redraw(self) -> None:
        with self._lock:
            if not self._running:
                return
            parts = self.header + ["", self.table, "", self.displays]
            # Home and clear below, then the whole screen: the header is redrawn, never wiped.
            sys.stdout.write("\x1b[H\x1b[J" + "\n".join(parts) + "\n")
            sys.stdout.flush()


class _Printer:
    """An output that draws the table after every input (live) or prints each settled round and each raised
    alert (piped); the alerts' ages are counted on the service's clock."""

    def __init__(self, screen: _Screen, clock: Any) -> None:
        self.screen = screen
        self.clock = clock

    def handle(self, effects: list[Any], table: Any) -> None:
        """Draw, or log the rounds settled by this input."""
        from controller.effects import AlertRaised, RoundSettled
        from controller.view import table_view

        from .terminal_view import alert_line, draw, round_line

        now = self.clock()
        if self.screen.live:
            self.screen.show_table(draw(table_view(table), table, now))
            return
        for effect in effects:
            if isinstance(effect, RoundSettled):
                self.screen.line(round_line(effect.round, table.rules.game, table.game.dealer_title))
            elif isinstance(effect, AlertRaised):
                self.screen.line("alert: " + alert_line(effect.alert.as_dict(), now))
