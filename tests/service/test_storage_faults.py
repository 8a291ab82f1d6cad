"""Fail-stop on storage faults: a full disk, a read-only journal or folder (issue 11).

The service names the path and the cause in one line, exits with the documented status (4)
so systemd restarts it once the fault is gone, and nothing is acknowledged that is not
committed: the card that met the full disk is resent by the shoe and journalled after the
restart. A small tmpfs stands for the full SD card (root can mount one; a machine where
mounting is impossible skips with that reason). Read-only is tested as the unprivileged user
the service runs as under systemd (root ignores file modes).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.support.deadlines import scaled
from tests.support.harness import DEALER_KEY, ServiceProcess, free_port, tablectl
from simulators.shoe.process import SimProcess
from tablectl.config import ApiKey

def _mount_tmpfs(where: Path, size: str) -> None:
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (run the suite as root, as CI does)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"this machine cannot mount a tmpfs here: {done.stderr.strip()}")


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass  # no space left: that is the point
    finally:
        os.close(fd)
    return filler


def _config(directory: Path, journal: Path, shoe_link: str) -> Path:
    cfg = directory / "config.toml"
    cfg.write_text(
        f'[journal]\npath = "{journal}"\nkey_file = "{directory / "journal.key"}"\n'
        f'[shoe]\nport = "{shoe_link}"\n'
        f'[api]\nport = {free_port()}\n'
        f'[[api.keys]]\nname = "dealer"\nrole = "dealer"\nsha256 = "{ApiKey.hash(DEALER_KEY)}"\n')
    return cfg


def _journal_cards(journal: Path) -> list[tuple[str, int]]:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    rows = db.execute("SELECT shoe_id, position FROM ledger WHERE position IS NOT NULL ORDER BY seq").fetchall()
    db.close()
    return rows


def test_a_card_that_meets_a_full_disk_stops_the_table_and_is_journalled_after_the_restart(tmp_path):
    disk = tmp_path / "disk"
    _mount_tmpfs(disk, "2m")
    try:
        sim = SimProcess(tmp_path, "--seed", "5", "--log", str(tmp_path / "shoe-log.jsonl")).start()
        journal = disk / "journal.sqlite"
        service = ServiceProcess(_config(tmp_path, journal, sim.link), tmp_path / "service.log")
        try:
            api = service.start()["api"]
            deadline = time.monotonic() + scaled(30)
            while not httpx.get(api + "/healthz", timeout=scaled(10)).json()["shoe_link"] and time.monotonic() < deadline:
                time.sleep(0.05)  # the link is up and journalled before the disk fills
            bet = httpx.post(api + "/api/actions", json={"type": "bet", "box": 1, "amount": 10},
                             headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10))
            assert bet.status_code == 200, bet.text
            filler = _fill(disk)
            assert service.proc is not None
            released = 0
            deadline = time.monotonic() + scaled(60)
            while service.proc.poll() is None and time.monotonic() < deadline:
                if sim.request("deal").get("ok"):
                    released += 1
                time.sleep(0.05)
            assert service.proc.poll() == 4, "the service did not stop on the full disk"
            log = (tmp_path / "service.log").read_text()
            assert "the journal's disk is full" in log and str(journal) in log and "Traceback" not in log
            assert sim.request("status")["unacked"] >= 1  # the card the disk refused was never acknowledged
            service.stop()

            # Starting again while the disk is still full: the same message, no traceback, status 4.
            cfg = service.config
            again = tablectl("run", "--config", str(cfg), "--no-gpio", "--no-api", timeout=60)
            assert again.returncode == 4, again.stderr
            assert "the journal's disk is full" in again.stderr and "Traceback" not in again.stderr

            filler.unlink()  # the technician frees space: systemd's restart now succeeds
            service.start()
            deadline = time.monotonic() + scaled(30)
            while sim.request("status")["unacked"] and time.monotonic() < deadline:
                time.sleep(0.05)
            assert sim.request("status")["unacked"] == 0
        finally:
            service.stop()
            sim.stop()
        released = [json.loads(line) for line in (tmp_path / "shoe-log.jsonl").read_text().splitlines()]
        shoe_cards = [(c["shoe_id"], c["position"]) for c in released]
        assert shoe_cards and _journal_cards(journal) == shoe_cards  # every released card, once, in order
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _read_only(path: Path) -> None:
    """Make a file or folder read-only for everyone, root included (a read-only bind mount; chmod
    when not root, where file modes hold)."""
    if os.geteuid() != 0:
        path.chmod(0o444 if path.is_file() else 0o555)
        return
    for args in (["mount", "--bind", str(path), str(path)], ["mount", "-o", "remount,bind,ro", str(path)]):
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"this machine cannot make a read-only bind mount: {done.stderr.strip()}")


def _writable_again(path: Path) -> None:
    if os.geteuid() != 0:
        path.chmod(0o644 if path.is_file() else 0o755)
    else:
        subprocess.run(["umount", str(path)], check=False)


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_journal_or_folder_is_named_at_start_up(tmp_path, what):
    folder = tmp_path / "state"
    folder.mkdir()
    journal = folder / "journal.sqlite"
    cfg = _config(tmp_path, journal, str(tmp_path / "no-shoe"))
    made = tablectl("journal", "init", "--config", str(cfg), timeout=60)
    assert made.returncode == 0, made.stderr
    assert not any(p.exists() for p in _sidecars(journal))  # a clean close folds the WAL back
    target = journal if what == "file" else folder
    _read_only(target)
    try:
        out = tablectl("run", "--config", str(cfg), "--check", timeout=60)
    finally:
        _writable_again(target)
    assert out.returncode == 4, out.stderr
    assert "the journal is read-only" in out.stderr and str(journal) in out.stderr
    assert "damaged" not in out.stderr and "Traceback" not in out.stderr


def _sidecars(journal: Path) -> list[Path]:
    return [journal.with_name(journal.name + "-wal"), journal.with_name(journal.name + "-shm")]


def test_a_bet_that_meets_a_full_disk_gets_a_clear_503_and_the_service_exits(tmp_path):
    disk = tmp_path / "disk"
    _mount_tmpfs(disk, "2m")
    try:
        service = ServiceProcess(_config(tmp_path, disk / "journal.sqlite", str(tmp_path / "no-shoe")),
                                 tmp_path / "service.log")
        try:
            api = service.start()["api"]
            deadline = time.monotonic() + scaled(30)
            while "link_down" not in httpx.get(api + "/api/table", headers={"Authorization": f"Bearer {DEALER_KEY}"},
                                               timeout=scaled(10)).text and time.monotonic() < deadline:
                time.sleep(0.05)  # the missing shoe's link_down is journalled before the disk fills
            _fill(disk)
            r = httpx.post(api + "/api/actions", json={"type": "bet", "box": 1, "amount": 10},
                           headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10))
            assert r.status_code == 503
            assert r.json()["error"]["code"] == "table_stopped" and "disk is full" in r.json()["error"]["message"]
            assert service.proc is not None and service.proc.wait(scaled(30)) == 4
        finally:
            service.stop()
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
