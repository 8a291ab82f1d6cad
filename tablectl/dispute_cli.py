"""`tablectl dispute`: the record of a disputed round, from the table's journal (docs/dispute.md).

The journal is opened read-only and verified with its key as the record is made; the clock is read
here, at the edge, for the time of the export, and the time zone is looked up here too
(`controller.dispute` is given both). Exit statuses: 0 the record is written; 1 no record can be made
of that round (the journal holds no such round, it is not settled yet, or a card of it is still face
down at the table); 2 cannot (no journal at the path, no key or not its key, a bad argument or config,
the output cannot be written, no PDF can be made here); 3 the journal is refused (a row does not verify, damaged, not a journal,
a row this release cannot read).
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from controller.dispute import Copy, DisputeOptions, NoSuchRound, RoundNotSettled, RoundStillClosed
from controller.journal import (JournalError, JournalKey, JournalKeyError, JournalNotFound, JournalReader,
                                key_beside)

from .exits import EXIT_CANNOT
from .journal_cli import key_for, missing_key, refuse_overwriting_journal, tool_status
from .zones import zone_of

EXIT_NO_RECORD = 1  # no such round, not settled yet, or a card of it still face down


def configure_parser(p: argparse.ArgumentParser) -> None:
    """The `dispute` command's options."""
    p.add_argument("--db", help="the table's journal (or the [journal] path of --config)")
    p.add_argument("--key", help="the journal's key (default: --config's key_file, else the one beside it, DB.key)")
    p.add_argument("--round", type=int, required=True, metavar="N", help="the round's number (the dashboard's #N)")
    p.add_argument("--format", choices=("html", "pdf", "json"), default="html", help="the record's form (default html)")
    p.add_argument("--out", metavar="FILE", help="write it here (default: standard output; a PDF not to a terminal)")
    p.add_argument("--copy", choices=[c.value for c in Copy], default=Copy.PIT.value,
                   help="pit (default): no count; surveillance: the table's Hi-Lo count at each bet")
    p.add_argument("--config", metavar="FILE", help="the table's config: its name, time zone, [dispute] camera and "
                                                    "recorder offset, and its journal unless --db is given")
    p.add_argument("--tz", metavar="ZONE", help="local time zone, an IANA name such as Europe/Moscow (default: the "
                                                "config's [table] time_zone, else UTC)")
    p.add_argument("--camera", help="the camera or recorder covering the table (default: the config's [dispute] camera)")
    p.add_argument("--recorder-offset", type=float, metavar="SECONDS",
                   help="the recorder's clock minus the table's (default: the config's, else 0)")
    p.add_argument("--table", help="the table's name (default: the config's, else the journal file's name)")
    p.add_argument("--by", help="who exports the record (default: this OS user)")


def run(args: argparse.Namespace) -> int:
    """Make the record of round --round and write it; the exit status says what happened (module docstring)."""
    from tablectl.dispute import PdfUnavailable, make_record, render

    try:
        options, db, key = _options(args)
        if args.out:
            refuse_overwriting_journal(Path(args.out), db)
        elif args.format == "pdf" and sys.stdout.isatty():
            raise ValueError("a PDF is not written to a terminal: give --out FILE (or redirect the output)")
        # (a round of an earlier gaming day is made from its archive and linked on to the head: `make_record`)
        with JournalReader(db, _journal_key(db, key)) as reader:
            record = make_record(reader, options)
        data = render(record, args.format)
        if args.out:
            with open(args.out, "wb") as out:
                out.write(data)
        else:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
    except (NoSuchRound, RoundNotSettled, RoundStillClosed) as exc:
        print(f"tablectl dispute: {exc}", file=sys.stderr)
        return EXIT_NO_RECORD
    except JournalError as exc:
        print(f"tablectl dispute: {exc}", file=sys.stderr)
        return tool_status(exc)
    except (ValueError, OSError, PdfUnavailable) as exc:  # (a ConfigError is a ValueError)
        print(f"tablectl dispute: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    if record.imported is not None:
        print(f"tablectl dispute: IMPORTED: this journal is not a live table's record (imported at "
              f"{record.imported['at']} from {record.imported['source']}); the record says so", file=sys.stderr)
    if args.out:
        print(f"wrote the record of round {args.round} ({record.exported.copy} copy, {args.format}) to {args.out}: "
              f"rows {record.verification.first_seq} to {record.verification.last_seq}, verified to the head row "
              f"{record.verification.head_seq}; settlement {'agrees' if record.settlement.agrees else 'DIFFERS'}",
              file=sys.stderr)
    return 0


def _options(args: argparse.Namespace) -> tuple[DisputeOptions, Path, Path | None]:
    """The record's options from the arguments over the config's; and the journal and its key file."""
    table_name = zone_name = camera = None
    offset = 0.0
    db = Path(args.db) if args.db else None
    key = Path(args.key) if args.key else None
    if args.config:
        from tablectl.config import load_settings

        settings = load_settings(args.config)
        table_name = settings.table.name
        zone_name = settings.table.time_zone or None
        camera = settings.dispute.camera or None
        offset = settings.dispute.recorder_offset_s
        if db is None:
            db, key = settings.journal.path, key or settings.journal.key_path
    if db is None:
        raise ValueError("give --db JOURNAL (or --config FILE, the table's config)")
    if args.round < 1:
        raise ValueError("--round N: a round's number is 1 or more")
    zone_name = args.tz or zone_name
    zone = zone_of(zone_name) if zone_name else timezone.utc
    options = DisputeOptions(
        round_number=args.round,
        table=args.table or table_name or db.stem,
        exported_by=args.by or _os_user(),
        exported_at=datetime.now(timezone.utc),  # the one clock reading: the time of the export
        time_zone=zone,
        time_zone_name=zone_name,
        camera=args.camera if args.camera is not None else camera,
        recorder_offset_s=args.recorder_offset if args.recorder_offset is not None else offset,
        copy=Copy(args.copy),
    )
    return options, db, key


def _journal_key(db: Path, key: Path | None) -> JournalKey:
    """The journal's key, which a record needs (it is verified as it is made): never without one."""
    found = key_for(str(db), str(key) if key is not None else None, "dispute")
    if found is None:
        if not db.exists():
            raise JournalNotFound(f"no journal at {db}")
        raise JournalKeyError(missing_key(db, key_beside(db)))
    return found


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # (no login name and no passwd entry: a container's numeric user)
        return f"uid {os.getuid()}"
