"""`tablectl floor --config FILE` (the floor service) and `tablectl floor export --table ID`."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys

from . import ExportError, FloorError

log = logging.getLogger(__name__)

REFUSED = 4  # exit status: the broker refused one of the floor's subscriptions (its access rules), docs/floor.md


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register floor's arguments (and its `export` subcommand)."""
    p.add_argument("--config", help="floor TOML config (deploy/floor.example.toml)")
    p.add_argument("--worker", type=int, metavar="N",
                   help="with [floor] shared_group: run as worker N (MQTT client id CLIENT_ID-N, API on [api] port "
                        "+ N - 1) beside the group's other workers (docs/floor.md, \"Several workers\")")
    p.add_argument("--leave", action="store_true",
                   help="retire this worker from its shared group for good: store the rows queued for it, then end "
                        "its session at the broker (it would go on receiving its share)")
    sub = p.add_subparsers(dest="floor_command", metavar="SUBCOMMAND")
    exp = sub.add_parser("export", help="write one table's session file from the floor's store",
                         description="Write one table's session file (for `tablectl replay`) from the floor's store.")
    exp.add_argument("--config", dest="export_config", help="floor TOML config (or give it before `export`)")
    exp.add_argument("--table", required=True, help="the table's id")
    exp.add_argument("--out", help="output file (default: stdout)")


def run(args: argparse.Namespace) -> int:
    """Serve the floor, or export a table; a bad config, store or table is a message and exit 2."""
    from tablectl.fleet import FleetError
    from tablectl.logs import setup_logging

    from .settings import load_floor_settings, worker_settings

    path = getattr(args, "export_config", None) or args.config
    if path is None:
        print("tablectl floor: --config FILE is needed", file=sys.stderr)
        return 2
    try:
        settings = load_floor_settings(path)
        if getattr(args, "worker", None) is not None and args.floor_command != "export":
            settings = worker_settings(settings, args.worker)
    except FloorError as exc:
        print(f"tablectl floor: {exc}", file=sys.stderr)
        return 2
    if args.floor_command == "export":
        return _export(settings, args)
    setup_logging(settings.floor.log_level)
    if args.leave and not settings.floor.shared_group:
        print("tablectl floor: --leave is for a worker of a shared group ([floor] shared_group)", file=sys.stderr)
        return 2
    try:
        from tablectl.fleet import broker

        broker.check(settings.broker)
        if args.leave:
            return _leave(settings)
        failure = asyncio.run(_serve(settings))
    except (FloorError, FleetError, OSError) as exc:
        print(f"tablectl floor: {exc}", file=sys.stderr)
        return 2
    if failure is not None:  # the broker refused a subscription: taking nothing, the floor stopped
        print(f"tablectl floor: {failure}", file=sys.stderr)
        return REFUSED
    return 0


def _export(settings, args: argparse.Namespace) -> int:  # noqa: ANN001 - FloorSettings, imported lazily
    from .export import export_text
    from .keys import load_keys
    from .store import open_store

    try:  # with the keys: a table's rows are exported only if they verified (docs/floor.md)
        store = open_store(settings.floor, load_keys(settings.floor.keys_dir), create=False)
        try:
            text = export_text(store, args.table)
        finally:
            store.close()
    except FloorError as exc:
        print(f"tablectl floor export: {exc}", file=sys.stderr)
        return 2
    if args.table not in store.keys:
        print(f"tablectl floor export: no key for table {args.table} in {settings.floor.keys_dir}: its rows are "
              "exported unverified", file=sys.stderr)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _leave(settings) -> int:  # noqa: ANN001 - FloorSettings
    from .service import FloorService

    floor = FloorService(settings)
    rows = asyncio.run(floor.leave())
    print(json.dumps({"left": settings.floor.shared_group, "client_id": settings.floor.client_id, "rows": rows}))
    return 0


async def _serve(settings) -> str | None:  # noqa: ANN001 - FloorSettings
    """Serve until SIGTERM or SIGINT (None), or until the floor cannot go on (why, for the exit status REFUSED)."""
    from tablectl.web.guard import ListenError, scheme, serving

    from .api import create_floor_app
    from .service import FloorService

    floor = FloorService(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        server, listening = serving(create_floor_app(floor), settings.api)
    except ListenError:
        floor.store.close()
        raise
    api = asyncio.create_task(server.serve(sockets=[listening]), name="floor-api")
    while not server.started:
        if api.done():
            floor.store.close()
            raise OSError(f"the floor API could not listen on {settings.api.host}:{settings.api.port}")
        await asyncio.sleep(0.01)
    runner = asyncio.create_task(floor.run(stop), name="floor")
    # Ready once subscribed, so nothing published from now on is missed; a broker down delays no one. A broker
    # that refuses a subscription is no outage: the floor would take nothing, so it never says it is ready.
    subscribed = asyncio.create_task(floor.subscribed.wait())
    failed = asyncio.create_task(floor.failed.wait())
    await asyncio.wait([subscribed, failed], timeout=5.0, return_when=asyncio.FIRST_COMPLETED)
    subscribed.cancel()
    if floor.failed.is_set():
        failed.cancel()
        server.should_exit = True
        stop.set()
        await asyncio.gather(runner, api, return_exceptions=True)
        return floor.failure
    if not floor.subscribed.is_set():
        log.warning("not subscribed yet (the broker is unreachable); serving the store meanwhile")
    log.info("floor %s: store %s, %d table keys, API http://%s:%d/", settings.floor.name,
             settings.floor.describe_store(), len(floor.keys), settings.api.host, settings.api.port)
    print(json.dumps({"ready": True, "api": f"{scheme(settings.api)}://{settings.api.host}:{settings.api.port}",
                      "store": settings.floor.describe_store()}), flush=True)
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait([stopping, failed], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        failed.cancel()
        server.should_exit = True
        stop.set()
        await asyncio.gather(runner, api, return_exceptions=True)
    return floor.failure


__all__ = ["configure_parser", "run", "ExportError"]
