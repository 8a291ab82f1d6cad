"""The real `tablectl run` speaks the unit's contract: READY, WATCHDOG from its loop, STOPPING.

Runs the service on this machine (mock GPIO, no displays, a shoe port that does
not exist: the service must run anyway, link down) with NOTIFY_SOCKET and
WATCHDOG_USEC set as systemd would, against a datagram socket the test binds.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from tests.support.deadlines import scaled


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_service_notifies_ready_watchdog_and_stopping(tmp_path):
    pytest.importorskip("tablectl.run", reason="tablectl run not in this checkout")
    config = tmp_path / "config.toml"
    config.write_text(
        f'[shoe]\nport = "{tmp_path}/no-shoe"\n[journal]\npath = "{tmp_path}/journal.sqlite"\n'
        f'[api]\nport = {_free_port()}\n[gpio]\npin_factory = "mock"\ndriver = "none"\n'
    )
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(scaled(20))
    env = {**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "400000"}
    env.pop("WATCHDOG_PID", None)
    proc = subprocess.Popen([sys.executable, "-m", "tablectl.cli", "run", "--config", str(config)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got: list[str] = []
    try:
        deadline = time.monotonic() + scaled(20)
        while time.monotonic() < deadline:
            got.append(sock.recv(4096).decode())
            ready_at = next((i for i, m in enumerate(got) if m.startswith("READY=1")), None)
            if ready_at is not None and got[ready_at:].count("WATCHDOG=1") >= 2:
                break
        assert any(m.startswith("READY=1") for m in got), got
        assert got.count("WATCHDOG=1") >= 2, got  # pinged every WatchdogSec/2 while running
        proc.send_signal(signal.SIGTERM)
        while not got[-1].startswith("STOPPING=1"):
            got.append(sock.recv(4096).decode())
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=scaled(5))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        sock.close()
