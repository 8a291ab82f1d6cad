"""A real Mosquitto broker for tests and benchmarks: Debian's /usr/sbin/mosquitto on a free loopback port.

Persistence is on (in the broker's own directory), so a broker stopped and
started again keeps the floor's session and the QoS 1 messages queued for it,
as a production broker does. If mosquitto is not installed this fails loudly:
the fleet tests are never skipped.
"""

from __future__ import annotations

import getpass
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.support.deadlines import scaled

MOSQUITTO = "/usr/sbin/mosquitto"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    """One broker process; `stop()` and `start()` again keep its port and its persistent store.

    `config` replaces the test configuration (it must listen on `port` on 127.0.0.1).
    """

    def __init__(self, directory: Path, *, port: int | None = None, config: str | None = None) -> None:
        if not os.access(MOSQUITTO, os.X_OK):
            raise RuntimeError(f"{MOSQUITTO} is not installed: the fleet tests need Debian's mosquitto "
                               "(scripts/system-packages.txt; apt-get install mosquitto)")
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.port = port or _free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.config = directory / "mosquitto.conf"
        self.log = directory / "mosquitto.log"
        self.config.write_text(config if config is not None else
            f"listener {self.port} 127.0.0.1\n"
            # Run as root (CI), mosquitto would switch to its own user and lose the temporary directory.
            f"user {getpass.getuser()}\n"
            "allow_anonymous true\n"
            "persistence true\n"
            f"persistence_location {directory}/\n"
            "autosave_interval 1\n"
            # The floor may be away a while: keep everything queued for it (bounded by bytes, not count).
            "max_queued_messages 0\n"
            "max_queued_bytes 1000000000\n"
            "max_inflight_messages 0\n"
            "persistent_client_expiration 1d\n"
            f"log_dest file {self.log}\n"
            "log_type error\nlog_type warning\nlog_type notice\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> "Mosquitto":
        """Start the broker and wait until it accepts connections."""
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise RuntimeError(f"mosquitto exited with {self.proc.returncode}: {err}"
                                   f"{self.log.read_text() if self.log.exists() else ''}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on port {self.port} within {scaled(timeout)} s")

    def stop(self) -> None:
        """SIGTERM: the broker saves its store (sessions and queued messages) and exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(scaled(10))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()
        self.proc = None

    @property
    def pid(self) -> int | None:
        """The broker's process id while it runs."""
        return self.proc.pid if self.proc is not None else None

    def __enter__(self) -> "Mosquitto":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
