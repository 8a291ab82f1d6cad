"""The config you write is the table you get (issue 36): `[table]` profile and options reach the journal, and a
config whose rules are not the journal's is refused, never played over in silence.

`journal init --config` wrote only the profile: a config with `boxes = 8` and `table_min = 5` gave a journal of 7
boxes and a minimum of 10, `run --check` passed, and `run` played the journal's rules without a word (box 8 was
refused at the table). Now `init` writes every option; `run` and `run --check` refuse such a config with one line
(exit 2) naming each difference and `tablectl journal rules --config FILE`, the journalled way to change the rules
between rounds; and that command refuses while the service runs (one writer) and while a round is in play.
"""

from __future__ import annotations

import json
import subprocess
from datetime import timedelta
from pathlib import Path

from controller import events as ev
from controller.events import SetRules
from controller.journal import JournalKey, JournalReader, key_beside
from controller.rules import build_rules
from tests.support.harness import ServiceProcess, free_port, tablectl, write_config
from tests.support.journals import T0, open_authority

EIGHT_BOXES = "[table.options]\nboxes = 8\ntable_min = 5\n"
DEADLINE = 600  # seconds: ends a hung service, never a measure of a slow start or stop on a busy machine


class Service(ServiceProcess):
    """`tablectl run`, stopped by SIGTERM with a deadline only a hang reaches."""

    def stop(self) -> int | None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(DEADLINE)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close()
        return self.proc.returncode if self.proc is not None else None


def table_config(tmp_path: Path, options: str = EIGHT_BOXES, port: int | None = None) -> Path:
    """A table's config (mock pins, no shoe), its journal in tmp_path, with these [table.options]."""
    cfg = write_config(tmp_path, str(tmp_path / "no-shoe"), port or free_port(), extra='[gpio]\npin_factory = "mock"\n')
    text = cfg.read_text()
    head, rest = text.split("[shoe]", 1)  # [table.options] belongs to [table], before the next table
    cfg.write_text(head + options + "[shoe]" + rest)
    return cfg


def journal_rules(tmp_path: Path) -> tuple[object, list[SetRules]]:
    journal = tmp_path / "journal.sqlite"
    with JournalReader(journal, JournalKey.load(key_beside(journal))) as reader:
        rows = [e.event for e in reader.entries() if isinstance(e.event, SetRules)]
    return build_rules(rows[-1].profile, rows[-1].options), rows  # the last rules row: the rules in force


def test_journal_init_writes_the_configs_options_into_the_rules_row(tmp_path: Path) -> None:
    made = tablectl("journal", "init", "--config", str(table_config(tmp_path)))
    assert made.returncode == 0, made.stderr
    assert "the rules: ru-standard; boxes 8, table_min 5" in made.stdout, made.stdout
    rules, rows = journal_rules(tmp_path)
    assert len(rows) == 1 and rows[0].options["boxes"] == 8 and rows[0].options["table_min"] == "5"
    assert rules.boxes == 8 and rules.table_min == 5  # type: ignore[attr-defined]
    check = tablectl("run", "--config", str(table_config(tmp_path)), "--check", "--no-api", timeout=DEADLINE)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "rules: ru-standard, the journal's and the config's" in check.stdout


def _seven_box_journal_and_an_eight_box_config(tmp_path: Path) -> Path:
    assert tablectl("journal", "init", "--config", str(table_config(tmp_path, options=""))).returncode == 0
    return table_config(tmp_path)


def test_run_check_refuses_a_config_whose_rules_are_not_the_journals(tmp_path: Path) -> None:
    cfg = _seven_box_journal_and_an_eight_box_config(tmp_path)
    again = tablectl("journal", "init", "--config", str(cfg))  # nothing done, and said why it matters
    assert again.returncode == 0 and "nothing done" in again.stdout
    assert "boxes 7 in the journal, 8 in the config" in again.stderr
    out = tablectl("run", "--config", str(cfg), "--check", "--no-api", timeout=DEADLINE)
    assert out.returncode == 2, out.stdout + out.stderr
    (line,) = [line for line in out.stderr.splitlines() if "(exit 2)" in line]
    assert "boxes 7 in the journal, 8 in the config" in line and "table_min 10 in the journal, 5 in the config" in line
    assert "`tablectl journal rules --config FILE`" in line and "Traceback" not in out.stderr


def test_run_refuses_it_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    cfg = _seven_box_journal_and_an_eight_box_config(tmp_path)
    before = (tmp_path / "journal.sqlite").read_bytes()
    out = tablectl("run", "--config", str(cfg), timeout=DEADLINE)
    assert out.returncode == 2, out.stdout + out.stderr
    # (the same line is in the service's log, on stderr too under systemd's journal; said once by the command)
    lines = [line for line in out.stderr.splitlines() if line.startswith("tablectl run:")]
    assert len(lines) == 1 and lines[0].startswith("tablectl run: the config's [table] rules are not the table's"), lines
    assert "boxes 7 in the journal, 8 in the config" in lines[0] and "tablectl journal rules" in lines[0]
    assert "Traceback" not in out.stderr
    assert out.stdout == ""  # never READY
    assert (tmp_path / "journal.sqlite").read_bytes() == before


def test_journal_rules_changes_them_between_rounds_journalled_then_the_table_runs(tmp_path: Path) -> None:
    cfg = _seven_box_journal_and_an_eight_box_config(tmp_path)
    changed = tablectl("journal", "rules", "--config", str(cfg), "--by", "anna")
    assert changed.returncode == 0, changed.stderr
    assert "boxes 7 in the journal, 8 in the config; table_min 10 in the journal, 5 in the config" in changed.stdout
    rules, rows = journal_rules(tmp_path)
    assert [r.actor for r in rows] == [None, "technician:anna"] and rules.boxes == 8  # type: ignore[attr-defined]
    verify = tablectl("journal", "verify", "--db", str(tmp_path / "journal.sqlite"))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert tablectl("journal", "rules", "--config", str(cfg)).stdout.endswith("nothing done\n")  # once is enough
    port = free_port()
    service = Service(table_config(tmp_path, port=port), tmp_path / "service.log")
    try:
        ready = service.start(timeout=DEADLINE)
        assert ready["ready"] is True
        from tests.support.client import call
        from tests.support.harness import SUPERVISOR_KEY

        table = call(f"http://127.0.0.1:{port}", "GET", "/api/rules", SUPERVISOR_KEY).json()
        assert table["options"]["boxes"] == 8 and table["options"]["table_min"] == "5", table
    finally:
        assert service.stop() == 0, (tmp_path / "service.log").read_text()[-2000:]


def test_journal_rules_is_refused_while_the_service_writes_the_journal(tmp_path: Path) -> None:
    assert tablectl("journal", "init", "--config", str(table_config(tmp_path, options=""))).returncode == 0
    service = Service(table_config(tmp_path, options=""), tmp_path / "service.log")
    try:
        service.start(timeout=DEADLINE)
        out = tablectl("journal", "rules", "--config", str(table_config(tmp_path)))
        assert out.returncode == 2, out.stdout + out.stderr
        assert "is being written by another process" in out.stderr and "systemctl stop tablectl" in out.stderr
    finally:
        assert service.stop() == 0
    rules, rows = journal_rules(tmp_path)
    assert len(rows) == 1 and rules.boxes == 7  # type: ignore[attr-defined]  # nothing written beside the service
    assert tablectl("journal", "verify", "--db", str(tmp_path / "journal.sqlite")).returncode == 0
    # And the other way: a service started while the tool holds the lock says so (exit 3), in one line.
    from tablectl.journal_lock import writer_lock

    with writer_lock(tmp_path / "journal.sqlite", required=True):
        busy = tablectl("run", "--config", str(table_config(tmp_path, options="")), timeout=DEADLINE)
    assert busy.returncode == 3 and "is being written by another process" in busy.stderr, busy.stderr
    assert len([line for line in busy.stderr.splitlines() if line.startswith("tablectl run:")]) == 1
    assert busy.stdout == "" and "Traceback" not in busy.stderr


def test_journal_rules_is_refused_in_a_round_and_the_attempt_journalled(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    authority = open_authority(journal)
    authority.submit(ev.Shuffle(shoe_id="S1"), T0 + timedelta(seconds=1))
    authority.submit(ev.PlaceBet(box=1, amount=10), T0 + timedelta(seconds=2))  # a bet down: a round in play
    authority.journal.close()
    out = tablectl("journal", "rules", "--config", str(table_config(tmp_path)))
    assert out.returncode == 1, out.stdout + out.stderr
    assert "refused (rules_locked)" in out.stderr and "the attempt is journalled" in out.stderr
    rules, rows = journal_rules(tmp_path)
    assert len(rows) == 1 and rules.boxes == 7  # type: ignore[attr-defined]
    view = json.loads(tablectl("status", "--db", str(journal), "--json").stdout)
    assert view["rules"] == "ru-standard"
