"""The virtual shoe's event loop: pty, control socket, timers, all in one thread.

A ``selectors`` loop wakes every few milliseconds (or on input) and drives the
:class:`~simulators.shoe.core.ShoeCore` with the current monotonic time: frames
from the host in, frames out through the fault injector, cards released by
the auto-dealer or the control channel, and scheduled unplugs.
"""

from __future__ import annotations

import json
import logging
import os
import random
import selectors
import socket
import time
from dataclasses import dataclass
from typing import IO

from firmware_bridge.framing import FrameDecoder, encode_frame
from simulators.shoe.control import handle_line
from simulators.shoe.core import DealRefused, Released, ShoeConfig, ShoeCore
from simulators.shoe.faults import FaultInjector, FaultRates
from simulators.shoe.pty_link import PtyLink
from simulators.shoe import unix

log = logging.getLogger(__name__)

_TICK = 0.005


@dataclass(frozen=True, slots=True)
class SimOptions:
    """Everything the command line sets beyond the shoe itself."""

    link_path: str | None = None
    control_path: str | None = None
    auto_deal: float | None = None  # cards per second
    max_cards: int | None = None  # stop auto-dealing after this many
    log_path: str | None = None
    faults: FaultRates = FaultRates()
    fault_seed: int = 0
    disconnect_every: int | None = None
    unplug_seconds: float = 0.3
    wait_for_host: bool = False  # auto-deal only once a host has connected


class _Client:
    __slots__ = ("sock", "buf")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""


class ShoeSimulator:
    """A running virtual shoe; :meth:`run` blocks until stopped."""

    def __init__(self, config: ShoeConfig, options: SimOptions) -> None:
        self.options = options
        rng = random.Random(f"faults:{options.fault_seed}")
        now = time.monotonic()
        self.core = ShoeCore(config, random.Random(f"unreadable:{options.fault_seed}"), now)
        self.injector = FaultInjector(options.faults, rng)
        self.pty = PtyLink(options.link_path)
        self.control_path = options.control_path or (
            f"{options.link_path}.control" if options.link_path else f"/tmp/tablectl-shoe-{os.getpid()}.control"
        )
        self._decoder = FrameDecoder()
        self._sel = selectors.DefaultSelector()
        self._listener: socket.socket | None = None
        self._log: IO[str] | None = None
        self._stop = False
        self._released = 0
        self._since_unplug = 0
        self._replug_at: float | None = None
        self._next_deal = now
        self._host_seen = False

    # --- ControlTarget --------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while a host is synced on the current cable."""
        return self.pty.plugged and self.core.synced

    @property
    def device(self) -> str | None:
        """The current pty slave path."""
        return self.pty.device

    def deal(self) -> Released | DealRefused:
        """Release the next card, log it, and unplug if one is scheduled after it."""
        result = self.core.deal()
        if isinstance(result, Released):
            self._released += 1
            self._since_unplug += 1
            if self._log is not None:
                entry = {"shoe_id": result.shoe_id, "position": result.position, "card": result.card}
                if result.unreadable:
                    entry["unreadable"] = True
                self._log.write(json.dumps(entry) + "\n")
                self._log.flush()
            every = self.options.disconnect_every
            if every and self._since_unplug >= every and self.pty.plugged:
                self.unplug(self.options.unplug_seconds)
        return result

    def unplug(self, seconds: float) -> None:
        """Pull the cable now and plug it back in after ``seconds``."""
        self._since_unplug = 0
        if self.pty.plugged:
            assert self.pty.master is not None
            self._sel.unregister(self.pty.master)
            self.pty.unplug()
        self.core.link_reset()
        self._replug_at = time.monotonic() + seconds

    def request_stop(self) -> None:
        """Stop the loop at the next turn."""
        self._stop = True

    # --- lifecycle ----------------------------------------------------------------

    def open(self) -> dict[str, object]:
        """Plug in, listen on the control socket, load the first shoe; returns the ready info."""
        if self.options.log_path:
            self._log = open(self.options.log_path, "w", encoding="utf-8")
        self._plug()
        if os.path.exists(self.control_path):
            os.unlink(self.control_path)  # a stale socket from a killed run
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind(listener, self.control_path)
        listener.listen(8)
        listener.setblocking(False)
        self._sel.register(listener, selectors.EVENT_READ, "listen")
        self._listener = listener
        self.core.load()
        return {
            "device": self.pty.device,
            "link": self.options.link_path,
            "control": self.control_path,
            "boot_id": self.core.config.boot_id,
            "shoe_id": self.core.shoe_id,
        }

    def close(self) -> None:
        """Release everything (symlink, socket file, log)."""
        for key in list(self._sel.get_map().values()):
            if isinstance(key.data, _Client):
                key.data.sock.close()
        if self._listener is not None:
            self._listener.close()
            try:
                os.unlink(self.control_path)
            except OSError:
                pass
        if self.pty.master is not None and self.pty.master in self._sel.get_map():
            self._sel.unregister(self.pty.master)
        self.pty.close()
        self._sel.close()
        if self._log is not None:
            self._log.close()

    def run(self) -> None:
        """Serve until a quit command or :meth:`request_stop`."""
        while not self._stop:
            for key, _ in self._sel.select(_TICK):
                if key.data == "pty":
                    self._read_pty()
                elif key.data == "listen":
                    self._accept()
                else:
                    self._read_client(key.data)
            now = time.monotonic()
            if self._replug_at is not None and now >= self._replug_at:
                self._replug_at = None
                self._plug()
            self._auto_deal(now)
            self._send(now)

    # --- internals ---------------------------------------------------------------

    def _plug(self) -> None:
        self.pty.plug()
        self._decoder.reset()
        assert self.pty.master is not None
        self._sel.register(self.pty.master, selectors.EVENT_READ, "pty")

    def _read_pty(self) -> None:
        data = self.pty.read()
        now = time.monotonic()
        for body in self._decoder.feed(data):
            if not self.injector.drop_incoming():
                self.core.on_body(body, now)

    def _send(self, now: float) -> None:
        bodies = self.core.poll(now)
        if not self.pty.plugged or not bodies:
            return
        out = b"".join(b"".join(self.injector.outgoing(encode_frame(body))) for body in bodies)
        self.pty.write(out)

    def _auto_deal(self, now: float) -> None:
        rate = self.options.auto_deal
        if not rate:
            return
        if self.options.wait_for_host and not self._host_seen:
            if not self.connected:
                return
            self._host_seen = True
            self._next_deal = now
        limit = self.options.max_cards
        while now >= self._next_deal and (limit is None or self._released < limit):
            self._next_deal = max(self._next_deal + 1 / rate, now - 1 / rate)
            result = self.deal()
            if result is DealRefused.EMPTY:
                self.core.load()  # the auto-dealer shuffles on its own
                result = self.deal()
            if isinstance(result, DealRefused):
                break  # locked, jammed or lid open: try again on the next tick

    def _accept(self) -> None:
        assert self._listener is not None
        try:
            sock, _ = self._listener.accept()
        except BlockingIOError:
            return
        sock.setblocking(False)
        self._sel.register(sock, selectors.EVENT_READ, _Client(sock))

    def _read_client(self, client: _Client) -> None:
        try:
            data = client.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._sel.unregister(client.sock)
            client.sock.close()
            return
        client.buf += data
        *lines, client.buf = client.buf.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            reply = handle_line(line, self)
            try:
                # A client that does not read its answers may stall us at most this long.
                client.sock.settimeout(2.0)
                client.sock.sendall(json.dumps(reply).encode() + b"\n")
                client.sock.setblocking(False)
            except OSError:
                self._sel.unregister(client.sock)
                client.sock.close()
                return
