"""`tablectl broker access` (the broker's access rules) and `tablectl broker cert` (a client's certificate).

The floor's broker (deploy/mosquitto/tablectl.conf) knows each client by its certificate's CN and lets it do what
the dynamic-security file names (broker_access.py). `access` writes that file for the floor's tables, N workers
and the readers; `cert` makes a client's key and certificate with the floor's CA (Debian's `openssl`), e.g. for a
worker: `tablectl broker cert --ca-cert ca.crt --ca-key ca.key --workers 3 --out-dir DIR`. docs/floor.md,
"The broker".
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tablectl.fleet import TABLE_ID

from .broker_access import MAX_WORKERS, READERS, access_text, worker

CN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"  # a client's CN as the broker takes it for a user name and client id


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register `access` and `cert`."""
    sub = p.add_subparsers(dest="broker_command", metavar="SUBCOMMAND")
    sub.required = True
    a = sub.add_parser("access", help="write the broker's access rules (Mosquitto's dynamic-security file)",
                       description="Write the floor broker's dynamic-security file: the floor, its workers, the "
                                   "readers and every table, each with its rights and nothing else.")
    a.add_argument("--out", required=True, help="the file to write (e.g. /etc/mosquitto/tablectl/access.json); "
                                                "replaced whole, atomically")
    a.add_argument("--config", help="the floor's config: its tables (keys_dir's TABLE_ID.key and known_tables), "
                                    "topic_prefix and shared_group")
    a.add_argument("--table", action="append", default=[], metavar="ID", help="a table (repeat; beside --config's)")
    a.add_argument("--workers", type=int, default=0, metavar="N",
                   help=f"workers tablectl-floor-1 .. -N may join the shared group (0..{MAX_WORKERS}; name more "
                        "than run now, and a worker added later needs only its certificate)")
    a.add_argument("--group", help="the workers' shared group (default: --config's shared_group, else \"floor\")")
    a.add_argument("--prefix", help="the tables' topic prefix (default: --config's topic_prefix, else tablectl)")
    c = sub.add_parser("cert", help="make a client's key and certificate with the floor's CA (openssl)",
                       description="Make NAME.key (mode 0600) and NAME.crt, signed by the floor's CA, CN = NAME, "
                                   "for each client named; an existing file is never replaced.")
    c.add_argument("--ca-cert", required=True, help="the floor's CA certificate")
    c.add_argument("--ca-key", required=True, help="the floor's CA key")
    c.add_argument("--out-dir", required=True, help="where NAME.key and NAME.crt go")
    c.add_argument("--name", action="append", default=[], metavar="CN",
                   help="a client: a table's id, tablectl-floor-N, tablectl-pit, ... (repeat)")
    c.add_argument("--workers", type=int, default=0, metavar="N",
                   help="the workers tablectl-floor-1 .. -N (those without a certificate in --out-dir)")
    c.add_argument("--days", type=int, default=825, help="validity in days (default 825)")


def run(args: argparse.Namespace) -> int:
    """Exit 0 done, 2 a setting or file that cannot be used (one line on stderr, never a traceback)."""
    try:
        if args.broker_command == "access":
            return _access(args)
        return _cert(args)
    except (ValueError, OSError) as exc:
        print(f"tablectl broker {args.broker_command}: {exc}", file=sys.stderr)
        return 2


def _access(args: argparse.Namespace) -> int:
    tables = set(args.table)
    group, prefix = args.group, args.prefix
    if args.config:
        from . import FloorError
        from .settings import load_floor_settings

        try:
            f = load_floor_settings(args.config).floor
        except FloorError as exc:
            raise ValueError(str(exc)) from None
        tables |= set(f.known_tables)
        if f.keys_dir.is_dir():
            tables |= {k.stem for k in f.keys_dir.glob("*.key") if re.match(TABLE_ID, k.stem)}
        group = group or f.shared_group
        prefix = prefix or f.topic_prefix
    group = group or "floor"
    text = access_text(tables, workers=args.workers, group=group, prefix=prefix or "tablectl")
    _write_atomically(Path(args.out), text)
    workers = f"{args.workers} workers of shared group {group}" if args.workers else "no worker"
    print(f"{args.out}: {len(tables)} tables, {workers}, readers {', '.join(READERS)}; restart the broker to "
          "apply it", file=sys.stderr)
    return 0


def _write_atomically(path: Path, text: str) -> None:
    """The whole file or the old one: a broker starting meanwhile never reads half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)  # no secret in it (no passwords: certificates authenticate); the broker must read it
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _cert(args: argparse.Namespace) -> int:
    if not 0 <= args.workers <= MAX_WORKERS:
        raise ValueError(f"--workers: from 0 to {MAX_WORKERS}")
    if not 1 <= args.days <= 3650:
        raise ValueError("--days: from 1 to 3650")
    out = Path(args.out_dir)
    names = list(args.name) + [w for n in range(1, args.workers + 1)
                               if not (out / f"{(w := worker(n))}.crt").exists()]
    if not names:
        raise ValueError("name a client (--name CN) or the workers (--workers N)")
    for name in names:
        if not re.match(CN, name):
            raise ValueError(f"--name {name!r}: letters, digits, _, . and -")
    for path in (args.ca_cert, args.ca_key):
        if not os.access(path, os.R_OK):
            raise ValueError(f"{path}: cannot be read")
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        key, crt = out / f"{name}.key", out / f"{name}.crt"
        if key.exists() or crt.exists():
            raise ValueError(f"{key} or {crt} exists: never replaced (remove it first to make a new one)")
        with tempfile.TemporaryDirectory() as work:
            csr = Path(work) / "client.csr"
            old = os.umask(0o077)  # the key is created 0600, never readable by others for an instant
            try:
                _openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                         "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={name}")
            finally:
                os.umask(old)
            ext = Path(work) / "client.ext"
            ext.write_text("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                           "extendedKeyUsage=clientAuth\n")
            _openssl("x509", "-req", "-in", str(csr), "-CA", args.ca_cert, "-CAkey", args.ca_key, "-CAcreateserial",
                     "-CAserial", str(Path(work) / "ca.srl"), "-days", str(args.days), "-extfile", str(ext),
                     "-out", str(crt))
        print(f"{crt}, {key}: CN={name}", file=sys.stderr)
    return 0


def _openssl(*argv: str) -> None:
    try:
        done = subprocess.run(["openssl", *argv], capture_output=True, text=True, timeout=60, check=False)
    except FileNotFoundError:
        raise ValueError("openssl is not installed (apt-get install openssl)") from None
    if done.returncode != 0:
        raise ValueError(f"openssl {argv[0]}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}")
