"""Unix socket addresses of any length (the control channel lives wherever its folder is).

A socket address holds at most 107 bytes, and a folder under a deep TMPDIR (a test
run, a CI runner) is easily longer. Linux lets a socket be named through the folder's
descriptor instead: ``/proc/self/fd/N/name`` is short whatever the folder's path.
"""

from __future__ import annotations

import os
import socket
from contextlib import contextmanager
from typing import Iterator

_MAX = 100  # sun_path is 108 bytes with its NUL; keep a margin


@contextmanager
def short_address(path: str) -> Iterator[str]:
    """An address for `path` that fits a socket's name (the path itself when it does)."""
    if len(os.fsencode(path)) <= _MAX:
        yield path
        return
    folder = os.open(os.path.dirname(path) or ".", os.O_PATH | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{folder}/{os.path.basename(path)}"
    finally:
        os.close(folder)


def bind(sock: socket.socket, path: str) -> None:
    """Bind a Unix socket at `path`, however long."""
    with short_address(path) as address:
        sock.bind(address)


def connect(sock: socket.socket, path: str) -> None:
    """Connect a Unix socket to `path`, however long."""
    with short_address(path) as address:
        sock.connect(address)
