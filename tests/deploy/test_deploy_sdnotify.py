"""tablectl.sdnotify against a real AF_UNIX datagram socket bound by the test (as systemd does)."""

from __future__ import annotations

import os
import socket
import uuid

import pytest

from tablectl import sdnotify
from tests.support.deadlines import scaled


@pytest.fixture
def notify_socket(tmp_path, monkeypatch):
    """A datagram socket at a path, NOTIFY_SOCKET pointing at it; yields a receive function."""
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(scaled(2))
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    yield lambda: sock.recv(4096).decode()
    sock.close()


@pytest.fixture
def abstract_socket(monkeypatch):
    name = f"tablectl-test-{uuid.uuid4().hex}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(scaled(2))
    monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
    yield lambda: sock.recv(4096).decode()
    sock.close()


def test_ready_watchdog_status_stopping_arrive_as_sent(notify_socket):
    assert sdnotify.ready() is True
    assert notify_socket() == "READY=1"
    assert sdnotify.watchdog() is True
    assert notify_socket() == "WATCHDOG=1"
    assert sdnotify.status("table-1: 3 boxes\nplaying") is True
    assert notify_socket() == "STATUS=table-1: 3 boxes playing"  # one line, always
    assert sdnotify.stopping("shutting down") is True
    assert notify_socket() == "STOPPING=1\nSTATUS=shutting down"
    assert sdnotify.extend_timeout(12.5) is True
    assert notify_socket() == "EXTEND_TIMEOUT_USEC=12500000"


def test_ready_with_status_is_one_datagram(notify_socket):
    assert sdnotify.ready("serving on 127.0.0.1:8080")
    assert notify_socket() == "READY=1\nSTATUS=serving on 127.0.0.1:8080"


def test_abstract_namespace_socket(abstract_socket):
    assert sdnotify.ready() is True
    assert abstract_socket() == "READY=1"
    assert sdnotify.watchdog() is True
    assert abstract_socket() == "WATCHDOG=1"


def test_no_socket_is_a_noop(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert sdnotify.ready() is False
    assert sdnotify.watchdog() is False
    assert sdnotify.stopping() is False
    assert sdnotify.status("x") is False


def test_unreachable_socket_returns_false_never_raises(tmp_path, monkeypatch):
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody-listens"))
    assert sdnotify.watchdog() is False
    monkeypatch.setenv("NOTIFY_SOCKET", "relative/path")
    assert sdnotify.watchdog() is False


@pytest.mark.parametrize(
    ("usec", "pid", "expected"),
    [
        ("30000000", None, 30.0),
        ("30000000", "self", 30.0),
        ("30000000", "other", None),
        ("0", None, None),
        ("garbage", None, None),
        (None, None, None),
    ],
)
def test_watchdog_period(monkeypatch, usec, pid, expected):
    for name, value in (("WATCHDOG_USEC", usec), ("WATCHDOG_PID", pid)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            value = {"self": str(os.getpid()), "other": str(os.getpid() + 1)}.get(value, value)
            monkeypatch.setenv(name, value)
    assert sdnotify.watchdog_period() == expected
