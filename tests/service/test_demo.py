"""`tablectl demo` (the README's first command) plays, stops by itself, and leaves a reviewable journal;
piped, it logs a line per round with its marks; Ctrl-C or SIGTERM end it with its summary."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
from decimal import Decimal

import pytest
from tests.support.deadlines import scaled
from tests.support.harness import tablectl

from controller.replay import replay_lines


def test_fast_demo_plays_its_rounds_and_the_journal_replays(tmp_path):
    db = tmp_path / "demo.sqlite"
    out = tablectl("demo", "--rounds", "12", "--pace", "fast", "--seed", "3", "--db", str(db), timeout=180)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert "API http://127.0.0.1:" in lines[0] and "supervisor key" in lines[0] and str(db) in lines[0]
    rounds = [line for line in lines if line.startswith("round ")]
    assert len(rounds) == 12
    assert all(re.search(r"; house [+-]?\d+(\.\d+)?$", line) for line in rounds), rounds
    summary = json.loads(lines[-1])
    assert summary["rounds"] == 12 and summary["alerts"] in ([], ["shuffle_due"])
    assert summary["journal"] == str(db) and db.exists()
    assert lines[-2].startswith("Played 12 rounds") and "House " in lines[-2]
    export = tablectl("journal", "export", "--db", str(db))
    result = replay_lines(export.stdout.splitlines())
    assert result.error is None and len(result.rounds) == 12
    assert str(-sum(Decimal(r["net"]) for r in result.rounds)) == summary["house_result"]
    assert "Traceback" not in out.stderr
    # the round lines mark what happened: a dealer blackjack is BJ, never (21)
    for line, record in zip(rounds, result.rounds):
        dealer = record["dealer"]["cards"]
        is_bj = len(dealer) == 2 and {c[0] for c in dealer} & {"A"} and {c[0] for c in dealer} & set("TJQK")
        assert ("(BJ)" in line) == bool(is_bj), line


@pytest.mark.long
def test_piped_round_lines_mark_splits_doubles_and_blackjacks(tmp_path):
    out = tablectl("demo", "--rounds", "60", "--pace", "fast", "--seed", "4", timeout=300)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for mark in (" BJ ", " double ", "split: "):
        assert mark in text, mark
    summary = json.loads(text.strip().splitlines()[-1])
    assert "journal" not in summary  # without --db the journal went with the demo: nothing to name


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_end_the_demo_with_its_summary(tmp_path, sig):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "tablectl.cli", "demo", "--rounds", "0", "--pace", "live"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    header = proc.stdout.readline()  # printed once the table is set up
    assert "pit dashboard" in header, proc.stderr.read() if not header else header
    while not any(p.name.startswith("tablectl-demo-") for p in tmp_path.iterdir()):
        pass  # pragma: no cover - the folder exists before the header is printed
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=scaled(60))  # a guard against a hang, not a measure of the 2 s
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert {"rounds", "hands", "house_result"} <= summary.keys()
    assert "Traceback" not in err
    assert not list(tmp_path.glob("tablectl-demo-*"))  # no temporary folder left behind


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_at_the_terminal_is_a_stop_not_an_unplugged_shoe(tmp_path, sig):
    """A terminal's Ctrl-C goes to the whole process group (the demo and its virtual shoe), as `timeout -s INT`
    does: the demo stops the table before the shoe goes, so nobody reads "unplugged" or "link down"."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "tablectl.cli", "demo", "--rounds", "0", "--pace", "fast"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)  # its own group, as a shell's job is
    assert proc.stdout is not None
    lines = []
    try:
        for line in proc.stdout:  # the table is up and its link carries cards once a round has settled
            lines.append(line)
            if line.startswith("round "):
                break
        os.killpg(proc.pid, sig)
        out, _ = proc.communicate(timeout=scaled(60))  # a guard against a hang, not a measure
    finally:
        proc.kill()
    text = "".join(lines) + out
    assert proc.returncode == 0, text
    assert "unplugged" not in text and "link down" not in text, text
    assert "Traceback" not in text
    assert json.loads(text.strip().splitlines()[-1])["alerts"] in ([], ["shuffle_due"])
    assert not list(tmp_path.glob("tablectl-demo-*"))


def test_a_port_in_use_is_one_line_before_any_url_or_key(tmp_path):
    """The demo on a taken port said its URL and key, then "[api] host/port" (a config the demo's user never
    wrote): now one line naming the port and `--port`, exit 6 (the API cannot listen, as `run`), nothing else."""
    from tablectl.exits import EXIT_LISTEN

    with socket.create_server(("127.0.0.1", 0)) as holder:  # another program listens there
        port = holder.getsockname()[1]
        env = {**os.environ, "TMPDIR": str(tmp_path)}
        out = subprocess.run([sys.executable, "-m", "tablectl.cli", "demo", "--port", str(port), "--rounds", "1",
                              "--pace", "fast"], capture_output=True, text=True, timeout=scaled(60), env=env)
    assert out.returncode == EXIT_LISTEN, out
    assert out.stdout == ""  # no URL, no key for a table that never starts
    (line,) = out.stderr.splitlines()
    assert f"port {port}" in line and "in use" in line and "--port N" in line, line
    assert "[api]" not in line and "Traceback" not in line
    assert not list(tmp_path.glob("tablectl-demo-*"))  # nothing started, nothing left


def test_the_demo_tells_the_dashboard_its_pace_is_a_virtual_dealers(tmp_path):
    """Issue 41: 560-600 rounds an hour reads as a broken table to a pit; the demo's table says its pace is the
    virtual dealer's (`demo_pace` in /api/table), and the dashboard shows it as accelerated."""
    import httpx
    from tests.support.deadlines import wait_until

    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "tablectl.cli", "demo", "--rounds", "0", "--pace", "live"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        header = proc.stdout.readline()
        found = re.search(r"API (http://127\.0\.0\.1:\d+)/", header)
        assert found, header
        api = found.group(1)
        seen: list[dict] = []

        def answered() -> bool:
            try:
                seen.append(httpx.get(api + "/api/table", timeout=scaled(5)).json())
            except httpx.HTTPError:
                return False  # (the service starts after the header)
            return True

        wait_until(answered, 60, "the demo's table to answer")
        assert seen[-1]["demo_pace"] == "live"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=scaled(60))
        finally:
            proc.kill()
