"""deploy/: the example config, the lock file, the unit (systemd-analyze), udev and journald files."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from tablectl.config import load_settings, settings_from_dict
from display.wiring import PinFactoryName
from tests.support.deadlines import scaled

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
UNIT = DEPLOY / "systemd" / "tablectl.service"



def test_example_config_validates_and_fits_a_pi():
    settings = load_settings(DEPLOY / "config.example.toml")
    assert settings.gpio.pin_factory is PinFactoryName.LGPIO
    assert settings.shoe.port == "/dev/tablectl-shoe"
    assert str(settings.journal.path) == "/var/lib/tablectl/journal.sqlite"


def test_example_config_shows_every_setting_with_its_default():
    """Each section and setting of Settings appears (uncommented) with the default value."""
    data = tomllib.loads((DEPLOY / "config.example.toml").read_text())
    defaults = settings_from_dict({}).model_dump(mode="json", by_alias=True)
    defaults["gpio"]["pin_factory"] = "lgpio"  # the deliberate changes: a real Pi,
    defaults["journal"]["key_file"] = "/etc/tablectl/journal.key"  # and the key apart from the journal
    optional = {"chain_order", "tower_light", "bell_patterns", "keys", "tls_certfile", "tls_keyfile"}  # commented out

    def walk(want: dict, have: dict, where: str) -> None:
        for key, value in want.items():
            if key in optional:
                continue
            assert key in have, f"{where}{key} missing from config.example.toml"
            if isinstance(value, dict) and key != "options":
                walk(value, have[key], f"{where}{key}.")
            else:
                assert have[key] == value, f"{where}{key}: example {have[key]!r}, default {value!r}"

    walk(defaults, data, "")


def test_example_config_commented_examples_validate_too():
    text = (DEPLOY / "config.example.toml").read_text()
    uncommented = re.sub(r"(?m)^# ((?:\[.*\])|(?:[a-z_0-9]+ = .*))$", r"\1", text)
    assert uncommented.count("[gpio.tower_light]") == 1 and "\n[[api.keys]]" in uncommented
    settings = settings_from_dict(tomllib.loads(uncommented))
    assert settings.api.keys[0].role.value == "supervisor"
    assert settings.gpio.tower_light is not None


def _req_name(line: str) -> str:
    return re.sub(r"[-_.]+", "-", re.split(r"[<>=!~\[; ]", line, maxsplit=1)[0]).lower()


def test_lock_pins_every_dependency_exactly():
    lock = [line for line in (DEPLOY / "requirements.lock").read_text().splitlines()
            if line and not line.startswith("#")]
    # The Pi's own pins (lgpio) carry a marker, so a PC's venv and wheelhouse leave them out.
    pin = r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+\-]+( ; platform_machine == \"aarch64\")?"
    assert all(re.fullmatch(pin, line) for line in lock), lock
    assert 'lgpio==0.2.2.0 ; platform_machine == "aarch64"' in lock  # never unpinned: 0.0.0.2 is empty
    pinned = {_req_name(line) for line in lock}
    with open(REPO / "pyproject.toml", "rb") as f:
        deps = tomllib.load(f)["project"]["dependencies"]
    missing = {_req_name(d) for d in deps} - pinned
    assert not missing, f"pyproject dependencies not in deploy/requirements.lock: {missing} (run deploy/lock.sh)"
    build = (DEPLOY / "build-requirements.lock").read_text()
    assert re.search(r"(?m)^setuptools==\d", build)


def test_lock_pins_nothing_the_service_does_not_need():
    """The lock is exactly what the service's dependencies need here, so the Pi carries no spare package
    (before: prometheus-client stayed pinned after the service stopped using it)."""
    import importlib.metadata

    from packaging.requirements import Requirement

    with open(REPO / "pyproject.toml", "rb") as f:
        todo = [Requirement(d) for d in tomllib.load(f)["project"]["dependencies"]]
    needed: set[str] = set()
    seen: set[tuple[str, str]] = set()
    while todo:
        want = todo.pop()
        name = _req_name(want.name)
        # A package asked for with extras (WeasyPrint's fonttools[woff]) needs what those extras bring too.
        for extra in ("", *sorted(want.extras)):
            if (name, extra) in seen:
                continue
            seen.add((name, extra))
            needed.add(name)
            for line in importlib.metadata.requires(name) or []:
                req = Requirement(line)
                if req.marker is None or req.marker.evaluate({"extra": extra}):
                    if extra and (req.marker is None or req.marker.evaluate({"extra": ""})):
                        continue  # (not the extra's own: taken with the package itself)
                    todo.append(req)
    lock = {_req_name(line) for line in (DEPLOY / "requirements.lock").read_text().splitlines()
            if line and not line.startswith("#") and "platform_machine" not in line}
    build = {_req_name(line) for line in (DEPLOY / "build-requirements.lock").read_text().splitlines()
             if line and not line.startswith("#")}
    assert lock - needed == set(), f"pinned but needed by nothing: {lock - needed} (run deploy/lock.sh)"
    assert needed - lock - build == set()


def test_compile_lock_pins_mypy_and_what_it_needs_exactly():
    """install.sh builds the compiled engine with mypy from deploy/compile-requirements.lock (offline: from the
    wheelhouse): every pin exact, and the names exactly mypy's dependencies (as the installed mypy states them)."""
    import importlib.metadata

    from packaging.requirements import Requirement

    lines = [line for line in (DEPLOY / "compile-requirements.lock").read_text().splitlines()
             if line and not line.startswith("#")]
    assert all(re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+\-]+", line) for line in lines), lines
    needed, todo = set(), ["mypy"]
    while todo:
        name = _req_name(todo.pop())
        if name not in needed:
            needed.add(name)
            todo += [Requirement(r).name for r in importlib.metadata.requires(name) or []
                     if Requirement(r).marker is None or Requirement(r).marker.evaluate({"extra": ""})]
    assert {_req_name(line) for line in lines} == needed
    # the wheelhouse is downloaded from both locks at once: a package in both (typing_extensions) has one pin
    service = {_req_name(line): line for line in (DEPLOY / "requirements.lock").read_text().splitlines()
               if line and not line.startswith("#")}
    for line in lines:
        assert service.get(_req_name(line), line) == line, f"{line} against {service[_req_name(line)]}"


def _unit_settings() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            out.setdefault(key, []).append(value)
    return out


def test_unit_has_the_settings_the_service_relies_on():
    u = _unit_settings()
    assert u["Type"] == ["notify"]
    assert u["ExecStart"] == ["/opt/tablectl/current/venv/bin/tablectl run --config /etc/tablectl/config.toml"]
    assert u["WatchdogSec"] and u["Restart"] == ["on-failure"]
    assert u["User"] == ["tablectl"] and u["StateDirectory"] == ["tablectl"]
    assert set(u["SupplementaryGroups"][0].split()) == {"dialout", "gpio", "spi", "i2c"}
    assert u["DevicePolicy"] == ["closed"]
    allowed = {v.split()[0] for v in u["DeviceAllow"]}
    assert {"char-ttyUSB", "char-ttyACM", "char-gpiochip", "char-spi"} <= allowed
    for key in ("ProtectSystem", "NoNewPrivileges"):
        assert u[key] in (["strict"], ["yes"]), key
    assert "ProcSubset" not in u  # gpiozero reads /proc/cpuinfo and /proc/device-tree
    assert u["Environment"][0].startswith("LG_WD=/run/tablectl")  # lgpio's pipes, off the SD card


def test_unit_verifies_cleanly(tmp_path):
    """systemd-analyze verify in a root holding the unit, systemd's own units and the ExecStart binary."""
    root = tmp_path / "root"
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    shutil.copy(UNIT, root / "etc/systemd/system/tablectl.service")
    exe = root / "opt/tablectl/current/venv/bin/tablectl"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    r = subprocess.run(
        ["systemd-analyze", "verify", f"--root={root}", "tablectl.service"],
        capture_output=True, text=True, timeout=scaled(60),
    )
    # verify exits 0 even on unknown keys: any message at all is a failure
    assert r.returncode == 0 and r.stdout + r.stderr == "", r.stdout + r.stderr


def test_unit_security_rating_is_ok_or_better():
    r = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", "--no-pager", str(UNIT)],
        capture_output=True, text=True, timeout=scaled(60),
    )
    m = re.search(r"Overall exposure level for tablectl.service: ([\d.]+) (\w+)", r.stdout)
    assert m, r.stdout + r.stderr
    score, rating = float(m.group(1)), m.group(2)
    assert rating in ("PERFECT", "SAFE", "OK") and score <= 2.0, (score, rating)


def test_udev_rules_name_the_shoe_and_tag_it_for_systemd():
    shoe = (DEPLOY / "udev/70-tablectl-shoe.rules").read_text()
    examples = [line.lstrip("#") for line in shoe.splitlines() if line.startswith("#SUBSYSTEM")]
    assert len(examples) == 2  # by vendor/product/serial, by path
    for rule in examples:
        assert 'SYMLINK+="tablectl-shoe"' in rule and 'TAG+="systemd"' in rule
    assert any("ID_SERIAL_SHORT" in r and "ID_VENDOR_ID" in r and "ID_MODEL_ID" in r for r in examples)
    assert any("ID_PATH" in r for r in examples)
    devices = (DEPLOY / "udev/60-tablectl-devices.rules").read_text()
    for group in ("gpio", "spi", "i2c"):
        assert f'GROUP="{group}"' in devices


def _fake_udevadm(tmp_path: Path, props: str) -> dict[str, str]:
    tool = tmp_path / "udevadm"
    tool.write_text(f"#!/bin/sh\ncat <<'EOF'\n{props}\nEOF\n")
    tool.chmod(0o755)
    return {"UDEVADM": str(tool), "PATH": "/usr/bin:/bin"}


@pytest.mark.parametrize(
    ("props", "args", "want"),
    [
        (
            "ID_VENDOR_ID=0403\nID_MODEL_ID=6001\nID_SERIAL=FTDI_FT232R_A10K4XYZ\nID_SERIAL_SHORT=A10K4XYZ\n"
            "ID_PATH=platform-xhci-hcd.0-usb-0:1:1.0",
            [],
            'ENV{ID_VENDOR_ID}=="0403", ENV{ID_MODEL_ID}=="6001", ENV{ID_SERIAL_SHORT}=="A10K4XYZ"',
        ),
        (
            "ID_VENDOR_ID=1a86\nID_MODEL_ID=7523\nID_SERIAL=1a86_USB_Serial\nID_PATH=platform-xhci-hcd.0-usb-0:2:1.0",
            [],
            'ENV{ID_PATH}=="platform-xhci-hcd.0-usb-0:2:1.0"',
        ),
        (
            "ID_VENDOR_ID=0403\nID_MODEL_ID=6001\nID_SERIAL_SHORT=A1\nID_PATH=platform-x-usb-0:3:1.0",
            ["--by-path"],
            'ENV{ID_PATH}=="platform-x-usb-0:3:1.0"',
        ),
    ],
)
def test_shoe_rule_helper(tmp_path, props, args, want):
    r = subprocess.run(
        ["bash", str(DEPLOY / "shoe-rule.sh"), "/dev/ttyUSB0", *args],
        env=_fake_udevadm(tmp_path, props), capture_output=True, text=True, timeout=scaled(10),
    )
    assert r.returncode == 0, r.stderr
    (rule,) = [line for line in r.stdout.splitlines() if line.startswith("SUBSYSTEM")]
    assert want in rule and 'SYMLINK+="tablectl-shoe"' in rule and 'TAG+="systemd"' in rule


def test_shoe_rule_keeps_a_hostile_devices_quotes_out_of_the_rule(tmp_path):
    """A device says what it likes about itself: a quote in its serial must not end the match."""
    props = ('ID_VENDOR_ID=0403\nID_MODEL_ID=6001\nID_SERIAL=x\nID_SERIAL_SHORT=A1", RUN+="/bin/sh -c evil\n'
             "ID_PATH=p")
    r = subprocess.run(["bash", str(DEPLOY / "shoe-rule.sh"), "/dev/ttyUSB0"], env=_fake_udevadm(tmp_path, props),
                       capture_output=True, text=True, timeout=scaled(10))
    assert r.returncode == 0, r.stderr
    (rule,) = [line for line in r.stdout.splitlines() if line.startswith("SUBSYSTEM")]
    assert 'ENV{ID_SERIAL_SHORT}=="A1RUN+binsh-cevil"' in rule and "RUN+=" not in rule


def test_the_unit_bounds_descriptors_and_memory_and_does_not_retry_what_needs_a_person():
    unit = dict(line.split("=", 1) for line in UNIT.read_text().splitlines()
                if "=" in line and not line.startswith("#"))
    assert int(unit["LimitNOFILE"]) > 4 * 256  # well above [api] max_connections' default
    assert unit["MemoryMax"].endswith("M")
    assert set(unit["RestartPreventExitStatus"].split()) == {"2", "3", "7"}  # config, journal, hardware


def test_journald_caps_the_logs():
    text = (DEPLOY / "systemd/journald-tablectl.conf").read_text()
    settings = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    assert settings["SystemMaxUse"].endswith("M") and int(settings["SystemMaxUse"][:-1]) <= 500
    assert "SystemKeepFree" in settings and "MaxRetentionSec" in settings


BACKUP_UNITS = ("tablectl-backup.service", "tablectl-backup.timer")


def test_backup_units_verify_cleanly(tmp_path):
    """The journal's nightly backup (deploy/README.md, section 11): both units, as the main unit is checked."""
    root = tmp_path / "root"
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    for name in BACKUP_UNITS:
        shutil.copy(DEPLOY / "systemd" / name, root / "etc/systemd/system" / name)
    exe = root / "opt/tablectl/current/venv/bin/tablectl"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    (root / "mnt/tablectl-backup").mkdir(parents=True)
    r = subprocess.run(["systemd-analyze", "verify", f"--root={root}", *BACKUP_UNITS],
                       capture_output=True, text=True, timeout=scaled(60))
    assert r.returncode == 0 and r.stdout + r.stderr == "", r.stdout + r.stderr


def test_backup_service_runs_the_verified_backup_as_the_service_user_locked_down():
    unit = DEPLOY / "systemd" / "tablectl-backup.service"
    settings: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            settings.setdefault(key, []).append(value)
    (exec_start,) = settings["ExecStart"]
    assert exec_start.startswith("/opt/tablectl/current/venv/bin/tablectl journal backup --config "
                                 "/etc/tablectl/config.toml --to /mnt/tablectl-backup")
    assert settings["User"] == ["tablectl"] and settings["Type"] == ["oneshot"]
    assert settings["RequiresMountsFor"] == ["/mnt/tablectl-backup"]  # never onto the card when nothing is mounted
    assert "/mnt/tablectl-backup" in settings["ReadWritePaths"][0].split()
    timer = (DEPLOY / "systemd" / "tablectl-backup.timer").read_text()
    assert "OnCalendar=" in timer and "Persistent=true" in timer
    r = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", str(unit)],
                       capture_output=True, text=True, timeout=scaled(60))
    m = re.search(r"Overall exposure level for tablectl-backup.service: ([\d.]+) (\w+)", r.stdout)
    assert m and m.group(2) in ("PERFECT", "SAFE", "OK"), r.stdout[-500:]
