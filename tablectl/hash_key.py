"""`tablectl hash-key`: the SHA-256 of an API key, in the form ``[[api.keys]]`` wants.

The config stores only the hash of each key. Read a key from standard input
(prompted without echo on a terminal), or make a new random one with ``--new``.
The TOML goes to standard output and a generated key to standard error, so
``tablectl hash-key --new --name pit1 --role supervisor >> /etc/tablectl/config.toml``
appends the entry and shows the key once, without writing it to the file.
"""

from __future__ import annotations

import argparse
import getpass
import json
import secrets
import sys

from tablectl.config import ApiKey, Role

ROLES = [r.value for r in Role]


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Arguments of `tablectl hash-key`."""
    p.add_argument("--new", action="store_true", help="generate a random key (printed once, to stderr)")
    p.add_argument("--name", help="holder of the key: print a whole [[api.keys]] entry")
    p.add_argument("--role", choices=ROLES, help="role of the key (with --name)")


def new_key() -> str:
    """A fresh random key (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def read_key() -> str:
    """The key from stdin: prompted without echo on a terminal, else the first line."""
    if sys.stdin.isatty():
        return getpass.getpass("API key: ")
    return sys.stdin.readline().rstrip("\r\n")


def run(args: argparse.Namespace) -> int:
    """Print the config lines for one key; exit 2 on an empty key or incomplete entry."""
    if (args.name is None) != (args.role is None):
        print("tablectl hash-key: give --name and --role together", file=sys.stderr)
        return 2
    key = new_key() if args.new else read_key()
    if not key.strip():
        print("tablectl hash-key: empty key", file=sys.stderr)
        return 2
    if args.new:
        print(f"new key (give it to its holder; it is stored nowhere): {key}", file=sys.stderr)
    digest = ApiKey.hash(key)
    if args.name is not None:
        print("[[api.keys]]")
        print(f"name = {json.dumps(args.name)}")
        print(f'role = "{args.role}"')
    print(f'sha256 = "{digest}"')
    return 0
