"""A small blocking client for the virtual shoe's control channel."""

from __future__ import annotations

import json
import socket
from typing import Any

from . import unix


class ShoeControl:
    """One connection to the control socket; each :meth:`request` waits for its answer."""

    def __init__(self, path: str, timeout: float = 5.0) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        unix.connect(self._sock, path)
        self._file = self._sock.makefile("rb")

    def request(self, cmd: str, **fields: Any) -> dict[str, Any]:
        """Send ``{"cmd": cmd, **fields}`` and return the decoded answer."""
        self._sock.sendall(json.dumps({"cmd": cmd, **fields}).encode() + b"\n")
        line = self._file.readline()
        if not line:
            raise ConnectionError("the shoe closed the control channel")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        """Close the connection."""
        self._file.close()
        self._sock.close()

    def __enter__(self) -> ShoeControl:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
