"""The arm64 proof (scripts/prove-arm64) as a test: marked ``arm64``, so left out of the default suite.

It installs this checkout into a Debian arm64 root and runs it there under qemu: minutes (and
more the first time, when the cached root is built), far past the suite's budget. Run it with
``./scripts/test -m arm64`` as root; ``TABLECTL_ARM64_SUITE=trixie`` proves Debian 13 instead.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from tests.support.deadlines import scaled

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.arm64,
    pytest.mark.skipif(os.geteuid() != 0, reason="the proof builds a root and chroots into it: run as root"),
]


def test_prove_arm64() -> None:
    suite = os.environ.get("TABLECTL_ARM64_SUITE", "bookworm")
    # Its own session, so a timeout reaches the whole tree: TERM ends each namespace (and its
    # mounts) and lets the script undo its own; KILL if that is not enough.
    proc = subprocess.Popen([str(REPO / "scripts/prove-arm64"), "--suite", suite], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=scaled(3600))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=scaled(60))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        pytest.fail(f"scripts/prove-arm64 took over an hour:\n{out[-4000:]}")
    print(out)  # the figures, for -rP
    assert proc.returncode == 0, out[-4000:]
    figures = (REPO / "test-output/arm64" / suite / "figures.txt").read_text()
    for step in ("install", "reinstall", "lgpio", "journal init", "run --check", "demo", "simulate", "run ", "offline"):
        assert f"\n{step}" in figures, (step, figures)
    assert "READY in" in figures and "status 0" in figures
    # The run step plays a shift through `tablectl run` itself and says the service's own memory, not qemu's.
    assert " rounds in " in figures and "own RSS" in figures, figures
    service = dict(line.split("=", 1) for line in (REPO / "test-output/arm64" / suite / "service.out").read_text()
                   .splitlines() if "=" in line)
    assert int(service["rounds"]) >= int(os.environ.get("TABLECTL_ARM64_ROUNDS", "200"))
    assert int(service["watchdog_pings_playing"]) > 0  # the loop pinged systemd all along the shift
    assert 0 < int(service["rss_max_kib"]) < int(service["qemu_rss_max_kib"])
