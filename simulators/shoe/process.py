"""Run the virtual shoe as a child process (for tests and demos of other packages).

    with SimProcess(tmp_path, "--auto-deal", "50") as sim:
        link = ShoeLink(sim.link)            # a symlink that follows replugs
        sim.control().request("deal")

The child is ``python -m tablectl.cli shoe-sim --pty --link DIR/shoe ...``; it
is stopped with SIGTERM (then SIGKILL) on exit. With ``own_group=True`` it runs in
its own process group, so a terminal's Ctrl-C (or a signal to the owner's whole
group) reaches only the owner, which stops the table first and then the shoe.
Whatever ends the owner (a SIGKILL too), the shoe ends with it (`simulators.lifeline`):
start it from a thread that lives as long as it does (the main thread, as a rule).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from simulators.lifeline import child_env
from simulators.shoe.client import ShoeControl


class SimProcess:
    """A shoe-sim child process with its link symlink and control socket in ``directory``."""

    def __init__(self, directory: str | os.PathLike[str], *args: str, name: str = "shoe", own_group: bool = False) -> None:
        self.own_group = own_group
        self.directory = Path(directory)
        self.link = str(self.directory / name)
        self.control_path = str(self.directory / f"{name}.control")
        self.stderr_path = self.directory / f"{name}.stderr"
        self.args = list(args)
        self.proc: subprocess.Popen[bytes] | None = None
        self.ready: dict[str, Any] = {}
        self._stderr: IO[bytes] | None = None

    def start(self, timeout: float = 10.0) -> SimProcess:
        """Start the child and wait for its ready line."""
        cmd = [sys.executable, "-m", "tablectl.cli", "shoe-sim", "--pty", "--link", self.link, "--control", self.control_path]
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(cmd + self.args, stdout=subprocess.PIPE, stderr=self._stderr, stdin=subprocess.DEVNULL,
                                     process_group=0 if self.own_group else None, env=child_env())
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # the child prints it as soon as it serves
        if not line:
            self.stop()
            raise RuntimeError(f"shoe-sim did not start: {self.stderr_path.read_text(errors='replace')}")
        self.ready = json.loads(line)
        return self

    def control(self, timeout: float = 5.0) -> ShoeControl:
        """A new connection to the control channel."""
        return ShoeControl(self.control_path, timeout)

    def request(self, cmd: str, **fields: Any) -> dict[str, Any]:
        """One control request on a fresh connection."""
        with self.control() as ctl:
            return ctl.request(cmd, **fields)

    def stop(self, timeout: float = 5.0) -> int | None:
        """SIGTERM the child (SIGKILL if it lingers); returns its exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
        return self.proc.returncode

    def __enter__(self) -> SimProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
