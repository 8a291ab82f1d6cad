"""The journal tools: `tablectl journal export|verify|keygen|init|rules|backup|import` and `tablectl status`.

Every tool that reads a journal opens it read-only (SQLite ``mode=ro``): it
never changes a byte of the file it inspects, and never writes an output file
over the journal or the files beside it. `init` makes a journal only where
nothing is, its first row the config's rules; `rules` writes one row, the config's rules, through the
engine's own check and the journal's writer lock (the service stopped: one writer); `backup` reads the journal through SQLite's online backup. With the table's key (``--key``, by
default the key beside the journal, ``key_beside``) the journal is verified before anything is
read from it; `status` and `export` without one say it is unverified, `verify` needs it.
A missing key is never answered with a new one: a journal verifies only with the key that signed it.
"""

from __future__ import annotations

import argparse
import hmac
import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from controller.authority import ReplayRefused, check_round_records, export_session, replay_journal
from controller.journal import (History, HistoryReader, JournalError, JournalKey, JournalKeyError, JournalNotFound,
                                JournalReader, JournalTampered, StorageError, UnreadableRow, Verified, archives,
                                key_beside, sidecars)
from controller.replay_cli import format_rounds
from controller.view import table_view

from .exits import EXIT_CANNOT, EXIT_NOT_VERIFIED, EXIT_OK, EXIT_REFUSED


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register `journal export`, `verify`, `keygen`, `init` and `backup`."""
    sub = p.add_subparsers(dest="journal_command", metavar="SUBCOMMAND")
    sub.required = True
    export = sub.add_parser("export", help="write the journal as a session file (what `tablectl replay` reads)")
    export.add_argument("--db", required=True, help="journal file")
    export.add_argument("--key", help="the table's key file (default: the key beside the journal, JOURNAL.key, "
                                      "if there is one)")
    export.add_argument("--since", help="start at the first shuffle at or after this ISO-8601 time")
    export.add_argument("--out", help="output file (default: standard output)")
    export.set_defaults(_run=run_export)
    verify = sub.add_parser("verify", help="check every row of a journal against the table's key")
    verify.add_argument("--db", required=True, help="journal file")
    verify.add_argument("--key", help="the key that signed the journal (default: the key beside it, JOURNAL.key)")
    verify.add_argument("--head", metavar="SEQ:MAC", type=_head,
                        help="a head recorded earlier (from /api/table or the log): the journal must still hold it")
    verify.add_argument("--replay", action="store_true",
                        help="replay every row through this release's engine too (the round records are otherwise "
                             "checked by their MAC'd tallies, and the rows after the newest one replayed)")
    verify.add_argument("--json", action="store_true", help="print JSON")
    verify.set_defaults(_run=run_verify)
    keygen = sub.add_parser("keygen", help="make a new key file for a new table's journal")
    keygen.add_argument("--key", required=True, help="where to write it (never over an existing file)")
    keygen.set_defaults(_run=run_keygen)
    init = sub.add_parser("init", help="make a new table's journal (and its key, if there is none); "
                                       "a journal that exists and verifies is left as it is")
    init.add_argument("--config", help="the table's config: its [journal] path and key_file, and its rules")
    init.add_argument("--db", help="journal file (without --config)")
    init.add_argument("--key", help="key file (without --config; default: the journal's path with .key appended)")
    init.add_argument("--rules", default="ru-standard", help="rule profile of the first row (without --config)")
    init.set_defaults(_run=run_init)
    rules = sub.add_parser("rules", help="change the table's rules to the config's [table] profile and options, "
                                         "between rounds: one journalled row (the service stopped)")
    rules.add_argument("--config", required=True, help="the table's config: its [journal] and its [table] rules")
    rules.add_argument("--by", help="who changes them, journalled as technician:NAME (default: the login name)")
    rules.set_defaults(_run=run_rules)
    backup = sub.add_parser("backup", help="copy the journal into a folder (SQLite's online backup, safe while the "
                                           "service writes), then verify the copy with the key")
    backup.add_argument("--to", required=True, metavar="DIR", help="folder for the copy (a USB stick, a share)")
    backup.add_argument("--config", help="the table's config: its [journal] path and key_file")
    backup.add_argument("--db", help="journal file (without --config)")
    backup.add_argument("--key", help="key file (without --config; default: the journal's path with .key appended)")
    backup.add_argument("--keep", type=int, default=0, metavar="N",
                        help="keep the newest N copies of this journal in DIR, remove older ones (default: keep all)")
    backup.set_defaults(_run=run_backup)
    imp = sub.add_parser("import", help="make a keyed journal from a session file or a recorded shoe sequence, "
                                        "marked imported (docs/session-format.md, \"Importing\")")
    imp.add_argument("source", metavar="FILE", help="a session file (JSON Lines, as journal export writes) or a "
                                                   "recorded shoe sequence (its first line {\"recorded\": \"shoes\", ...})")
    imp.add_argument("--db", required=True, help="the new journal (never over an existing file)")
    imp.add_argument("--key", help="its key file (default: beside it, DB.key; made when missing)")
    imp.add_argument("--said", metavar="TEXT", help="where the file came from, in the journal's import row "
                                                   "(e.g. 'table 7, 2026-12-01, Acme recorder export')")
    imp.add_argument("--rules", metavar="PROFILE", help="the rule profile, over the file's own")
    imp.set_defaults(_run=run_import)


def run(args: argparse.Namespace) -> int:
    """Run the chosen journal tool."""
    return int(args._run(args))


def _load_key(path: str | Path, tool: str, db: str | Path | None = None) -> JournalKey:
    """The key file at `path`; a mode wider than 0600 is said on stderr (the key is still used).

    A missing one is said with where the journal's own key is kept, never with a new key (which
    verifies no row written before it).
    """
    path = Path(path)
    if db is not None and not path.exists():
        raise JournalKeyError(missing_key(Path(db), path))
    return JournalKey.load(path, warn=lambda message: print(f"tablectl {tool}: warning: {message}", file=sys.stderr))


def missing_key(db: Path, key: Path) -> str:
    """What to do when the key for journal `db` is not at `key`: find the key that signed it."""
    return (f"no key for the journal {db}: {key} is missing; a journal is verified only with the key that signed "
            "it: the table's (/etc/tablectl/journal.key on the table) or the floor's copy (TABLE_ID.key in its "
            "keys_dir); give it with --key FILE")


def key_for(db: str, key: str | None, tool: str) -> JournalKey | None:
    """The key file ``key`` (JournalKeyError when it is missing or unusable), else the key beside the journal
    if there is one, else None."""
    if key is not None:
        return _load_key(key, tool, db)
    beside = key_beside(Path(db))
    return _load_key(beside, tool, db) if beside.exists() or beside.is_symlink() else None


def history_reader(db: str | Path, key: JournalKey | None) -> JournalReader:
    """The reader of the journal at ``db`` for a tool that reads its history: with archives (issue 42), a
    `HistoryReader`, whose reads by row, time and round go on into them; else the file's own reader."""
    return HistoryReader(db, key) if archives(Path(db)) else JournalReader(db, key)


def open_verified(db: str, key: str | None, tool: str) -> JournalReader:
    """The journal at ``db``, verified with its key (the one beside it unless ``key``: with archives, every archive,
    each link and the MANIFEST too); unverified, said so."""
    reader = history_reader(db, key_for(db, key, tool))
    try:
        if reader.key is not None:
            reader.verify()
        else:
            print(f"tablectl {tool}: no key for {db}: its rows are NOT verified (give --key FILE)", file=sys.stderr)
            if reader.head()[0] == 0:
                raise reader.empty()
    except BaseException:
        reader.close()
        raise
    return reader


def tool_status(exc: Exception) -> int:
    """A journal tool's exit status for what stopped it (docs/service.md, exit statuses)."""
    if isinstance(exc, JournalError) and not isinstance(exc, (JournalNotFound, JournalKeyError, StorageError)):
        return EXIT_REFUSED
    return EXIT_CANNOT


def run_export(args: argparse.Namespace) -> int:
    """Export the journal's accepted events as JSON Lines."""
    try:
        since = parse_time(args.since) if args.since else None
        if args.out:
            refuse_overwriting_journal(Path(args.out), Path(args.db))
        with open_verified(args.db, args.key, "journal export") as reader:
            source: JournalReader | History = reader
            if archives(Path(args.db)):  # (the whole history, read a file at a time: issue 42)
                source = History(args.db, reader.key)
                if reader.key is not None:
                    source.verify()
            lines = (json.dumps(line, separators=(",", ":")) + "\n" for line in export_session(source, since))
            if args.out:  # (streamed to a file beside it, renamed when whole: never half an export)
                partial = Path(f"{args.out}.{os.getpid()}.partial")
                try:
                    with open(partial, "w", encoding="utf-8") as out:
                        out.writelines(lines)
                    os.replace(partial, args.out)
                finally:
                    partial.unlink(missing_ok=True)
            else:
                sys.stdout.writelines(lines)
    except (JournalError, ValueError, OSError) as exc:
        print(f"tablectl journal export: {exc}", file=sys.stderr)
        return tool_status(exc)
    return 0


def refuse_overwriting_journal(out: Path, db: Path) -> None:
    """ValueError when ``out`` is the journal ``db``, a file SQLite keeps beside it, or its key: never written over."""
    for protected in (db, *sidecars(db), key_beside(db)):
        if out.resolve() == protected.resolve() or (out.exists() and protected.exists()
                                                    and os.path.samefile(out, protected)):
            raise ValueError(f"--out {out} is the journal (or a file of it): refusing to write over it")


def run_verify(args: argparse.Namespace) -> int:
    """Verify a journal: 0 and the row count and head MAC, 1 naming the first row that fails, 2 if it cannot check.

    Every table is checked: the ledger's chain, each round record, snapshot and outbox mark against
    the ledger row it is bound to (none beyond the last row), and that every round the ledger settles
    has its record: by the tallies the writer kept with its states and a replay of the rows after the
    newest of them, or (``--replay``, or a journal with no tallies) by a replay of the whole ledger.
    """
    key = args.key if args.key is not None else key_beside(Path(args.db))  # as `status` and `export` find it
    try:
        reader = JournalReader(args.db, _load_key(key, "journal verify", args.db))
    except JournalError as exc:
        print(f"tablectl journal verify: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    try:
        if archives(Path(args.db)):  # (its history: every archive, each link between them, then the live file)
            def each(segment: JournalReader, found: Verified) -> None:
                _bad_snapshots(segment, found)
                check_round_records(segment, whole=args.replay)

            history = History(args.db, reader.key)
            try:
                result = history.verify(each)
            except (UnreadableRow, ReplayRefused) as exc:
                print(f"tablectl journal verify: the round records cannot be checked: {exc}", file=sys.stderr)
                return EXIT_CANNOT
            for note in history.notes:  # (not a fault of the history: said, and the status stays 0)
                print(f"tablectl journal verify: note: {note}", file=sys.stderr)
            if args.head is not None:
                _check_head(reader, *args.head)
        else:
            result = _verified(reader, args.head)
        try:
            if not archives(Path(args.db)):
                check_round_records(reader, whole=args.replay)  # every round the ledger settles has its record
        except (UnreadableRow, ReplayRefused) as exc:
            print(f"tablectl journal verify: every MAC verifies, but the round records cannot be checked: {exc}",
                  file=sys.stderr)
            return EXIT_CANNOT
    except JournalTampered as exc:
        if args.json:
            print(json.dumps({"ok": False, "table": exc.table, "row": exc.row, "message": str(exc)}))
        else:
            print(f"NOT VERIFIED: {exc}")
        return EXIT_NOT_VERIFIED
    except StorageError as exc:  # the disk, not the journal: nothing is said of its rows
        print(f"tablectl journal verify: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    except JournalError as exc:
        print(json.dumps({"ok": False, "message": str(exc)}) if args.json else f"NOT VERIFIED: {exc}")
        return EXIT_NOT_VERIFIED
    finally:
        reader.close()
    doc = {"ok": True, "rows": result.rows, "head_seq": result.head_seq, "head_mac": result.head_mac,
           "rounds": result.rounds}
    if args.json:
        print(json.dumps(doc))
    else:
        print(f"verified: {result.rows} rows, {result.rounds} round records; head row {result.head_seq} "
              f"MAC {result.head_mac}")
    return EXIT_OK


def _verified(reader: JournalReader, head: tuple[int, str] | None = None) -> Verified:
    """Every MAC, every snapshot (one that does not verify is NOT VERIFIED here), and `head` if given."""
    result = reader.verify()
    _bad_snapshots(reader, result)
    if head is not None:
        _check_head(reader, *head)
    return result


def _bad_snapshots(reader: JournalReader, result: Verified) -> None:
    if result.bad_snapshots:  # (the service ignores such a snapshot; surveillance is told)
        seq = result.bad_snapshots[0]
        raise JournalTampered(f"journal {reader.path}: the snapshot after row {seq} does not verify: it was "
                              "altered or forged; keep the file for investigation", table="snapshots", row=seq)


def _head(text: str) -> tuple[int, str]:
    seq, _, mac = text.partition(":")
    if not seq.isdigit() or len(mac) != 64 or any(c not in "0123456789abcdef" for c in mac):
        raise argparse.ArgumentTypeError(f"{text[:80]!r} is not SEQ:MAC (a row number, a colon, 64 hex digits)")
    return int(seq), mac


def _check_head(reader: JournalReader, seq: int, mac: str) -> None:
    """The row `seq` must be there with MAC `mac`: a head taken earlier proves no row was cut since."""
    rows = reader.ledger_rows(seq - 1, 1)
    if not rows or rows[0].seq != seq or not hmac.compare_digest(rows[0].mac, mac):
        found = f"its last row is {reader.head()[0]}" if not rows else f"row {seq} has MAC {rows[0].mac}"
        raise JournalTampered(f"journal {reader.path} does not hold the head recorded earlier (row {seq}, MAC "
                              f"{mac}): {found}; rows were cut from its tail, or it is another journal",
                              table="ledger", row=seq)


def run_keygen(args: argparse.Namespace) -> int:
    """Write a new key file (mode 0600)."""
    try:
        key = JournalKey.generate(args.key)
    except JournalError as exc:
        print(f"tablectl journal keygen: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    print(f"wrote {args.key} (key id {key.key_id}); keep it readable by the service alone, and a copy in the safe")
    return 0


def _target(args: argparse.Namespace) -> tuple[Path, Path, Any, str]:
    """(journal, key file, its rules, the table's name) from --config (its [table] profile and options), or from
    --db/--key/--rules (a profile as it is)."""
    from controller.rules import build_rules

    if args.config:
        if args.db or args.key:
            raise ValueError("give --config, or --db (and --key), not both")
        from tablectl.config import load_settings  # (pydantic-settings: only for the tools that read a config)

        settings = load_settings(args.config)
        return (settings.journal.path, settings.journal.key_path, settings.table.rules(), settings.table.name)
    if not args.db:
        raise ValueError("give --config FILE (the table's config) or --db JOURNAL")
    db = Path(args.db)
    key = Path(args.key) if args.key else key_beside(db)
    return db, key, build_rules(getattr(args, "rules", "ru-standard")), db.stem


def rules_in_force(reader: JournalReader) -> Any:
    """The rules the journal's table plays now: its last accepted rules row (the first row is one)."""
    from controller.events import SetRules
    from controller.rules import build_rules

    last: SetRules | None = None
    for entry in reader.entries():
        if isinstance(entry.event, SetRules):
            last = entry.event
    if last is None:
        raise reader.empty()
    return build_rules(last.profile, last.options)


def _owned_like_its_folder(path: Path) -> str:
    """Run as root, a file made for the service goes to the owner of the journal's folder (the service's user)."""
    if os.geteuid() != 0:
        return ""
    folder = path.parent.stat()
    if folder.st_uid == 0:
        return ""
    os.chown(path, folder.st_uid, folder.st_gid)
    return f" (owned by uid {folder.st_uid}, as its folder)"


def run_init(args: argparse.Namespace) -> int:
    """A new table's journal, with its first row (the rules), and its key if it has none; 0 also when one verifies.

    Never over anything: a journal (or a WAL of one) already there is verified and left as it
    is; a journal without its key is refused. Exit 0 (made, or there and verified), 2 (cannot:
    arguments, config, the key file, storage), 3 (the journal there is refused).
    """
    from controller.authority import TableAuthority
    from controller.rules import RuleError

    from controller.journal import journal_exists

    try:
        db, key_path, rules, _ = _target(args)
        if journal_exists(db):
            with open_verified(str(db), str(key_path), "journal init") as reader:
                seq, mac = reader.head()
                have = rules_in_force(reader) if args.config else rules
            print(f"journal {db} exists and verifies ({seq} rows, head MAC {mac}): nothing done")
            from tablectl.config import RULES_COMMAND
            from controller.rules import differences

            found = differences(have, rules)
            if found:  # (run and run --check refuse such a config: said here already)
                print(f"tablectl journal init: its rules are not the config's: {_differences(found)}; "
                      f"`{RULES_COMMAND}` changes the table's rules between rounds (journalled)", file=sys.stderr)
            return 0
        made_key = not (key_path.exists() or key_path.is_symlink())
        if made_key:
            key = JournalKey.generate(key_path)
            print(f"made the key {key_path}{_owned_like_its_folder(key_path)} (key id {key.key_id}): keep a copy "
                  "in the safe, and give the floor and surveillance theirs")
        else:
            key = _load_key(key_path, "journal init", db)
        authority = TableAuthority.open(db, key, rules, now=datetime.now(timezone.utc))
        seq, mac = authority.journal.head()
        authority.journal.close()
        owner = _owned_like_its_folder(db)
        print(f"made the journal {db}{owner}: {seq} row (the rules: {rules.name}{_options_said(rules)}), "
              f"head MAC {mac}")
    except (JournalError, RuleError, ValueError, OSError) as exc:
        print(f"tablectl journal init: {exc}", file=sys.stderr)
        return tool_status(exc) if isinstance(exc, JournalError) else EXIT_CANNOT
    return 0


def _differences(found: list[tuple[str, Any, Any]]) -> str:
    return "; ".join(f"{what} {have} in the journal, {want} in the config" for what, have, want in found)


def _options_said(rules: Any) -> str:
    """The options a config set apart from its profile's own, for the line `init` prints."""
    from controller.rules import build_rules, differences

    changed = [f"{what} {want}" for what, _, want in differences(build_rules(rules.name), rules)]
    return f"; {', '.join(changed)}" if changed else ""


def run_rules(args: argparse.Namespace) -> int:
    """The config's [table] rules made the table's: one SetRules row, through the engine's check, journalled.

    The service must be stopped (the journal's writer lock: one writer). The engine takes new rules only
    between rounds with no bet down and no alert waiting (`Table.check_rules`); refused, the attempt is
    journalled as every refused action is. Exit 0 (changed, or the journal's rules are the config's already),
    1 (refused by the table now: the reason said), 2 (cannot: config, key, no journal, the service running,
    storage), 3 (the journal is refused).
    """
    import getpass

    from controller.authority import TableAuthority
    from controller.engine import IllegalAction
    from controller.events import SetRules
    from controller.journal import journal_exists
    from controller.rules import RuleError, differences

    from tablectl.config import ConfigError, load_settings
    from tablectl.journal_lock import JournalBusy, writer_lock

    tool = "tablectl journal rules"
    try:
        settings = load_settings(args.config)
        want, db = settings.table.rules(), settings.journal.path
        if not journal_exists(db):
            raise ValueError(f"no journal at {db}: a new table's journal is made with its config's rules by "
                             "`tablectl journal init --config FILE`")
        key = _load_key(settings.journal.key_path, "journal rules", db)
        by = args.by or getpass.getuser()
        with writer_lock(db, required=True):
            now = datetime.now(timezone.utc)
            authority = TableAuthority.open(db, key, want, now=now, create=False)
            try:
                found = differences(authority.table.rules, want)
                if not found:
                    print(f"the journal's rules are the config's already ({want.name}): nothing done")
                    return 0
                event = SetRules(profile=want.name, options=want.options(), actor=f"technician:{by}")
                try:
                    seq, _ = authority.submit(event, now)
                except IllegalAction as exc:
                    print(f"{tool}: refused ({exc.refusal.code}): {exc.refusal.message}; the attempt is journalled. "
                          "Rules change between rounds with no bet down and no alert waiting: finish or void the "
                          "round, then run this again", file=sys.stderr)
                    return EXIT_NOT_VERIFIED  # (1: refused, as a verify that fails: a person acts, then again)
                head = authority.journal.head()
            finally:
                authority.journal.close()
        print(f"the table's rules are the config's from the next round: {_differences(found)} (row {seq}, by "
              f"technician:{by}; head {head[0]} {head[1]})")
        return 0
    except JournalBusy as exc:  # (the service is running)
        print(f"{tool}: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    except JournalError as exc:
        print(f"{tool}: {exc}", file=sys.stderr)
        return tool_status(exc)
    except (ConfigError, RuleError, ValueError, OSError) as exc:
        print(f"{tool}: {exc}", file=sys.stderr)
        return EXIT_CANNOT


def run_backup(args: argparse.Namespace) -> int:
    """Copy the journal into --to DIR with SQLite's online backup, then verify the copy with the key.

    Consistent while the service writes (the copy is one read transaction's view). The copy is
    written under a temporary name and gets its final one, ``NAME-YYYYMMDDTHHMMSSZ.sqlite``,
    only once it verifies. Exit 0 (copied and verified), 1 (the copy does NOT verify: the
    journal itself does not; it is removed, the journal left as it is), 2 (cannot: no journal,
    the key, DIR missing or not writable, storage, arguments).
    """
    import re
    import sqlite3

    try:
        db, key_path, _, name = _target(args)
        if args.keep < 0:
            raise ValueError("--keep N: N is 0 (keep every copy) or more")
        to = Path(args.to)
        if not to.is_dir():  # never made here: an unmounted stick's mount point is a folder on the SD card
            raise ValueError(f"--to {to} is not a folder: is the stick or share mounted there?")
        key = _load_key(key_path, "journal backup", db)
        name = re.sub(r"[^A-Za-z0-9_-]", "_", name) or "journal"
        final = to / f"{name}-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}.sqlite"
        partial = final.with_name(f"{final.name}.{os.getpid()}.partial")  # (each run its own: two never share one)
        for p in (partial, *sidecars(partial)):
            p.unlink(missing_ok=True)
        with JournalReader(db, key) as source:
            try:
                copy = sqlite3.connect(partial)
                try:
                    source.db.backup(copy)
                finally:
                    copy.close()
            except sqlite3.Error as exc:
                raise StorageError(f"cannot copy {db} to {partial}: {exc}") from None
        try:
            with open(partial, "rb") as f:
                os.fsync(f.fileno())
            with JournalReader(partial, key) as reader:
                result = _verified(reader)
                check_round_records(reader)
            os.link(partial, final)  # verified: it takes its name (never over a file: one of the same second is refused)
        except (JournalTampered, UnreadableRow, ReplayRefused) as exc:
            print(f"NOT VERIFIED: the copy of {db} does not verify, so neither does the journal (tablectl journal "
                  f"verify --db {db} --key {key_path}): {exc}; the copy is removed")
            return EXIT_NOT_VERIFIED
        finally:
            for p in (partial, *sidecars(partial)):
                p.unlink(missing_ok=True)
        _sync_folder(to)
        removed = _prune(to, name, args.keep) if args.keep else []
        try:
            copied = _copy_archives(db, to / f"{name}.archive", key)
        except (JournalTampered, UnreadableRow) as exc:
            print(f"NOT VERIFIED: an archive of {db} does not verify (tablectl journal verify --db {db} --key "
                  f"{key_path}): {exc}; its copy is removed")
            return EXIT_NOT_VERIFIED
    except (JournalError, ValueError, OSError) as exc:
        print(f"tablectl journal backup: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    print(f"backed up {db} to {final}: verified, {result.rows} rows, {result.rounds} round records, head row "
          f"{result.head_seq} MAC {result.head_mac}" + (f"; removed {len(removed)} older copies" if removed else "")
          + (f"; {copied} new archives copied to {to / (name + '.archive')}" if copied else ""))
    return 0


def _copy_archives(db: Path, to: Path, key: JournalKey) -> int:
    """Copy each archive of the journal not copied yet into `to` (issue 42): an archive never changes, so it is
    copied once, fsynced and verified under a temporary name, then named; never pruned. Returns how many."""
    import shutil

    done = 0
    for archive in archives(db):
        target = to / archive.name
        if target.exists():
            continue
        to.mkdir(exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
        try:
            shutil.copyfile(archive, partial)
            with open(partial, "rb") as f:
                os.fsync(f.fileno())
            with JournalReader(partial, key, archived=True) as reader:
                reader.verify()
            os.link(partial, target)
        finally:
            for p in (partial, *sidecars(partial)):
                p.unlink(missing_ok=True)
        _sync_folder(to)
        done += 1
    return done


def _sync_folder(folder: Path) -> None:
    """The new name in the folder reaches the disk too (the copy's bytes were synced before)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _prune(folder: Path, name: str, keep: int) -> list[Path]:
    """Remove all but the newest `keep` copies named NAME-<time>.sqlite (the times sort as they read)."""
    import re

    pattern = re.compile(re.escape(name) + r"-\d{8}T\d{6}Z\.sqlite")
    copies = sorted(p for p in folder.iterdir() if pattern.fullmatch(p.name))
    old = copies[:-keep]
    for p in old:
        p.unlink()
    return old


def run_import(args: argparse.Namespace) -> int:
    """A session file or a recorded shoe sequence as a new keyed journal, marked imported: exit 0, or 2 with the
    line that stopped it (nothing is left behind)."""
    from controller.rules import RuleError

    from .journal_import import ImportError_, describe, import_file

    db = Path(args.db)
    key = Path(args.key) if args.key else key_beside(db)
    try:
        made = import_file(Path(args.source), db, key, said=args.said, now=datetime.now(timezone.utc),
                           profile=args.rules)
    except (ImportError_, JournalError, RuleError, ValueError, OSError) as exc:
        print(f"tablectl journal import: {args.source}: {exc}", file=sys.stderr)
        return EXIT_CANNOT
    print(describe(made))
    return EXIT_OK


def imported_from(reader: JournalReader) -> dict[str, Any] | None:
    """Where an imported journal came from (its `imported` row: source, format, sha256, at, and the row), or None
    for a table's own journal. The row is the journal's second (after the rules) or, at the latest, before its
    first shuffle."""
    from controller.events import Imported, Shuffle

    for entry in reader.entries():
        if isinstance(entry.event, Imported):
            e = entry.event
            return {"source": e.source, "format": e.format, "sha256": e.sha256,
                    "at": e.at.isoformat() if e.at else None, "row": entry.seq}
        if isinstance(entry.event, Shuffle) or entry.seq > 10:
            return None
    return None


def imported_line(provenance: dict[str, Any] | None) -> str | None:
    """The line every tool prints first for an imported journal (None for a table's own)."""
    if provenance is None:
        return None
    return (f"IMPORTED: not a live table's record: imported by `tablectl journal import` at {provenance['at']} from "
            f"{provenance['source']} ({provenance['format']}, sha256 {provenance['sha256']}; row {provenance['row']})")


def parse_time(text: str, option: str = "--since") -> datetime:
    """An option's ISO-8601 time (UTC when it names no zone); ValueError says what is wrong."""
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{option} {text!r} is not an ISO-8601 time (e.g. 2026-11-30T20:00:00Z)") from None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


# ---------------------------------------------------------------- tablectl status

def configure_status_parser(p: argparse.ArgumentParser) -> None:
    """Register `status`."""
    p.add_argument("--db", required=True, help="journal file")
    p.add_argument("--key", help="the table's key file (default: the key beside the journal, JOURNAL.key, "
                                 "if there is one)")
    p.add_argument("--json", action="store_true", help="print JSON")


def run_status(args: argparse.Namespace) -> int:
    """Print the table's state as the journal leaves it, without the service (read-only)."""
    try:
        with open_verified(args.db, args.key, "status") as reader:
            table = replay_journal(reader)
    except JournalError as exc:
        print(f"tablectl status: {exc}", file=sys.stderr)
        return tool_status(exc)
    view = table_view(table, reveal_closed=True)
    if args.json:
        print(json.dumps(view))
    else:
        shoe = view["shoe"] or {}
        print(f"phase {view['phase']}  rules {view['rules']}  rounds {view['rounds_played']}  "
              f"shoe {shoe.get('id')} dealt {shoe.get('dealt')}/{shoe.get('size')}")
        for alert in view["alerts"]:
            print(f"alert {alert['id']} [{alert['kind']}] {alert['message']}")
        if view["last_round"]:
            print(format_rounds({"rounds": [view["last_round"]], "phase": view["phase"], "alerts": []}))
    return 0
