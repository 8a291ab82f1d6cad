"""`tablectl run --config FILE`: the table service, as it runs under the table all shift."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import signal
import sys
from typing import Any, Callable, TextIO

from controller.journal import JournalError

from .config import ConfigError, Settings, load_settings, rules_differ
from .exits import EXIT_CONFIG, EXIT_INTERNAL, EXIT_OK, exit_status
from .journal_lock import JournalBusy, writer_lock
from .listening import ListenError, scheme
from .logs import one_line, setup_logging
from .service import TableService

log = logging.getLogger(__name__)

# The shoe's port thread needs the interpreter's lock the moment a card's bytes arrive; while
# another thread computes (an export, a table view in the API's pool), it waits up to the switch
# interval, 5 ms by default, for each hand-off. With a busy thread, 1 ms cut the card's latency
# from p50 70.6 / p99 112.3 ms to p50 14.4 / p99 23.6 ms on a quiet 2-core machine
# (`benchmarks/latency.py --busy --switch-ms 5` against `--busy`).
SWITCH_INTERVAL_SECONDS = 0.001


def prepare_process() -> None:
    """What the service's process sets before it imports the API (`tablectl run` only).

    FastAPI asks of every model a route names whether it is a pydantic.v1 model, importing
    pydantic.v1 to find out: 1.8 MB of the service's RSS for an answer that is always no (none of
    ours is; benchmarks/rss.py). Marked absent, that import fails at once, and FastAPI, written
    for a pydantic without v1, takes the failure for the same no. Only in the service's own
    process: a test process or the demo may hold pydantic.v1 for other reasons.
    """
    sys.modules.setdefault("pydantic.v1", None)  # type: ignore[arg-type]  # None: "not importable"


class TableContext(logging.Filter):
    """Puts the round and shoe in play on every log line (round=12 shoe=3FA2B1C0.1)."""

    def __init__(self, service: TableService) -> None:
        super().__init__()
        self.service = service

    def filter(self, record: logging.LogRecord) -> bool:
        table = self.service.table
        if table.round is not None and not hasattr(record, "round"):
            record.round = table.round.number
        if table.shoe is not None and not hasattr(record, "shoe"):
            record.shoe = table.shoe.shoe_id
        return True


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register run's arguments."""
    p.add_argument("--config", help="TOML config file (default: embedded defaults)")
    p.add_argument("--no-gpio", action="store_true", help="do not drive displays, bell and console")
    p.add_argument("--no-api", action="store_true", help="do not serve the HTTP API")
    p.add_argument("--check", action="store_true",
                   help="check the config, key, journal, pins, SPI, API port and shoe; make nothing, serve nothing")


def build_gpio(service: TableService, settings: Settings, loop: asyncio.AbstractEventLoop,
               terminal_stream: TextIO | None = None, pin_factory: Any = None) -> Any:
    """Displays, bell and console from the [gpio] wiring, plugged into the service.

    ``terminal_stream`` is where the terminal driver draws (default: stderr, the log);
    ``pin_factory`` the one made already (default: the wiring's). Raises GpioUnavailable.
    """
    from display.console import asyncio_action_sink
    from display.factory import build_outputs

    from .console_actions import handle_console_action
    from .outputs import BellOutput, DisplayOutput

    io = build_outputs(settings.gpio, on_action=asyncio_action_sink(loop, lambda a: handle_console_action(a, service)),
                       terminal_stream=terminal_stream, pin_factory=pin_factory)
    service.add_output(DisplayOutput(io.show, lambda: service.health.link_up,
                                     settled_seconds=settings.gpio.settled_seconds, call_later=loop.call_later))
    service.add_output(BellOutput(io.bell.ring))
    return io


async def serve(settings: Settings, *, gpio: bool = True, api: bool = True,
                on_ready: Callable[[TableService], None] | None = None,
                service: TableService | None = None, announce: bool = True,
                stop: asyncio.Event | None = None, terminal_stream: TextIO | None = None) -> JournalError | None:
    """Run the service (and its API) until SIGTERM or SIGINT, or until ``stop`` is set.

    A caller that passes ``stop`` owns the signals (the demo stops its dealer first). Returns
    the journal's failure if it stopped the table. The journal's writer lock is held throughout
    (tablectl.journal_lock: one writer), unless the caller made the service and holds the journal.
    """
    pin_factory = None
    if gpio and service is None:
        # The pin factory first: a Pi that cannot drive its pins (no lgpio, not a Pi) stops here,
        # before a journal is opened, let alone made.
        from display.factory import make_pin_factory

        pin_factory = make_pin_factory(settings.gpio.pin_factory)
    locked = writer_lock(settings.journal.path, required=False) if service is None else contextlib.nullcontext()
    try:
        with locked:
            return await _serve(settings, gpio=gpio, api=api, on_ready=on_ready, service=service, announce=announce,
                                stop=stop, terminal_stream=terminal_stream, pin_factory=pin_factory)
    except JournalBusy:
        if pin_factory is not None:
            pin_factory.close()
        raise


async def _serve(settings: Settings, *, gpio: bool, api: bool, on_ready: Callable[[TableService], None] | None,
                 service: TableService | None, announce: bool, stop: asyncio.Event | None,
                 terminal_stream: TextIO | None, pin_factory: Any) -> JournalError | None:
    loop = asyncio.get_running_loop()
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    service = service or TableService(settings)
    # The journal's rules are the table's: a config that names others would have the table play rules it does
    # not say, so it is refused, each difference named (a new table's journal was just made with the config's).
    differ = rules_differ(service.table.rules, settings)
    if differ is not None:
        service.authority.journal.close()
        if pin_factory is not None:
            pin_factory.close()
        raise differ
    # The head in the log lets a copy taken off the table show later whether rows were cut from the tail;
    # its MAC is withheld while a card is face down, as below supervisor in the API (controller.view.head_view).
    log.info("table %s: journal %s, %d events replayed, phase %s, journal head %s", settings.table.name,
             settings.journal.path, service.authority.replayed, service.table.phase.value, _logged_head(service))
    context = TableContext(service)
    for handler in logging.getLogger().handlers:
        handler.addFilter(context)
    try:
        io = build_gpio(service, settings, loop, terminal_stream, pin_factory) if gpio else None
    except Exception:
        service.authority.journal.close()
        raise
    # The exact edge of the next round, for surveillance, in a worker process ([table] exact_edge).
    edge = None
    from .parts import has_edge, has_spot_odds

    game = service.table.rules.game
    if settings.table.exact_edge and (has_edge(game) or has_spot_odds(game)):  # (a game whose folder gives one)
        from .edge import wire_edge

        edge = wire_edge(service, loop)
    if stop is None:
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
    tasks = []
    server = None
    if api:
        from .api import create_app
        from .metrics import wire_metrics
        from .web.guard import serving

        a = settings.api
        try:
            # The metrics are wired here, once: an output of the service, served by its API at /metrics.
            # timeout_graceful_shutdown: an open event stream must not hold the stop
            server, listening = serving(create_app(service, metrics=wire_metrics(service), edge=edge), a,
                                        timeout_graceful_shutdown=1)
        except ListenError:
            service.authority.journal.close()
            raise
        api_task = asyncio.create_task(server.serve(sockets=[listening]), name="api")
        tasks.append(api_task)
        while not server.started:  # announce ready only once the API really listens
            if api_task.done():
                service.authority.journal.close()
                raise ListenError(f"[api] host = {a.host!r}, port = {a.port}: the API could not start")
            await asyncio.sleep(0.01)
    notify = _sd_notify()
    watchdog = asyncio.create_task(_watchdog(notify), name="watchdog") if notify is not None else None

    def ready() -> None:
        settle_startup()
        if notify is not None:
            notify.ready()
        if announce:  # one JSON line on stdout: what a supervising process waits for
            url = f"{scheme(settings.api)}://{settings.api.host}:{settings.api.port}"
            print(json.dumps({"ready": True, "api": url if api else None,
                              "journal": str(settings.journal.path)}), flush=True)
        if on_ready is not None:
            on_ready(service)

    # The floor's publisher (off unless [fleet] enabled): stopped before the service closes the journal,
    # so its last outbox mark is recorded. Imported only for a table that publishes: the MQTT client
    # (aiomqtt, paho) is 4.6 MB of the service's RSS (benchmarks/rss.py).
    fleet_task = None
    if settings.fleet.enabled:
        from .fleet import publisher as fleet

        fleet_task = fleet.start(service, edge=edge)
    service_stop = stop
    stopper = None
    if fleet_task is not None:
        service_stop = asyncio.Event()

        async def stop_fleet_then_service() -> None:
            await stop.wait()
            await fleet.stop(fleet_task)
            service_stop.set()

        stopper = asyncio.create_task(stop_fleet_then_service(), name="fleet-stop")
    try:
        await service.run(service_stop, ready=ready)
    finally:
        if stopper is not None:
            stop.set()
            await asyncio.gather(stopper, return_exceptions=True)
        if notify is not None:
            notify.stopping()
        if watchdog is not None:
            watchdog.cancel()
            await asyncio.gather(watchdog, return_exceptions=True)
        if server is not None:
            server.should_exit = True
        await asyncio.gather(*tasks, return_exceptions=True)
        if io is not None:
            io.close()
        if edge is not None:
            edge.close()
        log.info("table %s stopped: journal head %s", settings.table.name, _logged_head(service))
        for handler in logging.getLogger().handlers:
            handler.removeFilter(context)
    return service.failure


def settle_startup() -> None:
    """What the table made to start (the modules, the app, its models, the engine's tables) lives as long as
    the process: its garbage collected once, and the rest moved out of the collector's sight (`gc.freeze`).

    A full collection walks every object the collector tracks; the ~90,000 made at start-up are never
    garbage, and walking them was most of the CPU the service spent stopping (interpreter finalization
    collects several times: 0.5 s natively, ten times that under arm64 emulation; benchmarks/soak.py)
    and of each full collection during the shift, which pauses the writer.
    """
    gc.collect()
    gc.freeze()


def _logged_head(service: TableService) -> str:
    """The journal's head for the log: ``N MAC``, or ``N`` and why the MAC is withheld (a card is face down)."""
    from controller.view import head_view

    head = head_view(service.head(), service.masked_seqs())
    mac = head["mac"] if head["mac"] is not None else "(MAC withheld while a card is face down)"
    return f"{head['seq']} {mac}"


def _sd_notify() -> Any:
    try:
        from . import sdnotify
    except ImportError:
        return None
    return sdnotify


async def _watchdog(notify: Any) -> None:
    period = notify.watchdog_period()
    if not period:
        return
    # Pinged from the loop itself: if the loop is stuck, the pings stop and systemd restarts us.
    while True:
        notify.watchdog()
        await asyncio.sleep(period / 2)


def check(settings: Settings, *, gpio: bool = True, api: bool = True) -> int:
    """`tablectl run --check`: every part the table needs, checked; nothing made, nothing served (tablectl.checks).

    What is fine goes to stdout, a line each; each fault to stderr, one line with what to do and its
    exit status. The status is the first fault's, 0 when there is none.
    """
    from .checks import run_checks

    status = EXIT_OK
    for finding in run_checks(settings, gpio=gpio, api=api,
                              warn=lambda message: print(f"tablectl run --check: warning: {message}", file=sys.stderr)):
        if not finding.ok:
            print(f"tablectl run --check: {finding.text} (exit {finding.status})", file=sys.stderr)
            status = status or finding.status
        elif finding.warning:
            print(f"tablectl run --check: warning: {finding.text}", file=sys.stderr)
        else:
            print(finding.text)
    return status


def run(args: argparse.Namespace) -> int:
    """Load the config and run; every way it can end has a clear message and a documented status."""
    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        print(f"tablectl run: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    setup_logging(settings.log_level)
    prepare_process()
    if args.check:
        print(f"config {args.config or '(embedded defaults)'}: valid")
        return check(settings, gpio=not args.no_gpio, api=not args.no_api)
    from display.factory import GpioUnavailable

    try:
        failure = asyncio.run(serve(settings, gpio=not args.no_gpio, api=not args.no_api))
    except (JournalError, ListenError, GpioUnavailable, ConfigError) as exc:
        log.error("%s", exc)
        print(f"tablectl run: {exc}", file=sys.stderr)
        return exit_status(exc)
    except Exception as exc:  # a bug: one line and the documented status, the traceback only at DEBUG
        log.debug("the table could not start", exc_info=True)
        print(f"tablectl run: internal error: {type(exc).__name__}: {one_line(str(exc))}; the table stopped "
              'rather than guess (log_level = "DEBUG" shows where; report it with the log)', file=sys.stderr)
        return EXIT_INTERNAL
    if failure is not None:
        print(f"tablectl run: {failure}", file=sys.stderr)
    return exit_status(failure)
