"""`tablectl broker access` and `tablectl broker cert` (issue 37): the broker's access rules for N workers and the
floor's tables, and a worker's certificate, made by commands; the shipped broker takes both for real."""

from __future__ import annotations

import asyncio
import json
import stat
import subprocess

from tests.support.broker import Mosquitto
from tests.support.harness import free_port, tablectl_in_process
from tests.support.mqtt_tls import identity, make_certificates, shipped_config

from tablectl.fleet import broker as mqtt


def _rules(path) -> dict:  # noqa: ANN001
    data = json.loads(path.read_text())
    return {c["username"]: sorted(r["rolename"] for r in c["roles"]) for c in data["clients"]}, \
        {r["rolename"]: {(a["acltype"], a["topic"]) for a in r["acls"]} for r in data["roles"]}


def test_access_names_the_floor_s_tables_its_workers_and_the_readers(tmp_path):
    keys = tmp_path / "keys"
    keys.mkdir()
    for t in ("table-1", "table-2", "not a table"):
        (keys / f"{t}.key").write_text("00" * 32)
    config = tmp_path / "floor.toml"
    config.write_text(f'[floor]\nkeys_dir = "{keys}"\nknown_tables = ["table-9"]\ntopic_prefix = "casino/a"\n'
                      'store = "postgresql"\nshared_group = "pit-a"\n')
    out = tmp_path / "access.json"
    r = tablectl_in_process("broker", "access", "--config", str(config), "--workers", "3", "--table", "table-5",
                            "--out", str(out))
    assert r.returncode == 0, r.stderr
    clients, roles = _rules(out)
    assert clients == {
        "tablectl-floor": ["tablectl-floor"], "tablectl-surveillance": ["tablectl-surveillance"],
        "tablectl-pit": ["tablectl-pit"], "tablectl-public": ["tablectl-public"],
        **{f"tablectl-floor-{n}": ["tablectl-floor", "tablectl-floor-worker"] for n in (1, 2, 3)},
        **{t: [f"table:{t}"] for t in ("table-1", "table-2", "table-5", "table-9")}}
    assert roles["tablectl-floor-worker"] == {("subscribeLiteral", "$share/pit-a/casino/a/+/ledger"),
                                              ("subscribeLiteral", "$share/pit-a/casino/a/+/state"),
                                              ("subscribeLiteral", "$share/pit-a/casino/a/+/rating")}
    assert roles["table:table-2"] == {("publishClientSend", f"casino/a/table-2/{leaf}")
                                      for leaf in ("ledger", "state", "status", "surveillance", "public/round", "rating")}
    assert json.loads(out.read_text())["defaultACLAccess"] == {
        "publishClientSend": False, "publishClientReceive": False, "subscribe": False, "unsubscribe": True}
    # Only the workers have a shared filter: no other role names $share.
    assert [name for name, acls in roles.items() if any("$share" in topic for _, topic in acls)] == \
        ["tablectl-floor-worker"]
    again = tmp_path / "again.json"
    tablectl_in_process("broker", "access", "--config", str(config), "--workers", "3", "--table", "table-5",
                        "--out", str(again))
    assert again.read_bytes() == out.read_bytes()  # the same input, the same file


def test_access_refuses_what_cannot_be(tmp_path):
    out = tmp_path / "access.json"
    for args, says in ((["--table", "tablectl-pit"], "readers or workers"),
                       (["--table", "tablectl-floor-7"], "readers or workers"),
                       (["--table", "a/b"], "table 'a/b'"),
                       (["--workers", "65"], "workers: from 0 to 64"),
                       (["--workers", "1", "--group", "a+b"], "group 'a+b'"),
                       (["--prefix", "a/#"], "prefix 'a/#'")):
        r = tablectl_in_process("broker", "access", "--out", str(out), *args)
        assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
        assert not out.exists()


def test_cert_makes_the_workers_certificates_and_the_shipped_broker_takes_worker_3(tmp_path):
    d = tmp_path / "pki"
    d.mkdir()
    make_certificates(d)  # the CA and the test's identities: workers 1 and 2 among them
    r = tablectl_in_process("broker", "cert", "--ca-cert", str(d / "ca.crt"), "--ca-key", str(d / "ca.key"),
                            "--workers", "3", "--out-dir", str(d))
    assert r.returncode == 0, r.stderr
    made = sorted(p.name for p in d.glob("tablectl-floor-*"))
    assert made == [f"tablectl-floor-{n}.{ext}" for n in (1, 2, 3) for ext in ("crt", "key")]
    assert stat.S_IMODE((d / "tablectl-floor-3.key").stat().st_mode) == 0o600
    subject = subprocess.run(["openssl", "x509", "-in", str(d / "tablectl-floor-3.crt"), "-noout", "-subject"],
                             capture_output=True, text=True, check=True).stdout
    assert "CN = tablectl-floor-3" in subject or "CN=tablectl-floor-3" in subject
    r = tablectl_in_process("broker", "cert", "--ca-cert", str(d / "ca.crt"), "--ca-key", str(d / "ca.key"),
                            "--name", "tablectl-floor-3", "--out-dir", str(d))
    assert r.returncode == 2 and "never replaced" in r.stderr
    r = tablectl_in_process("broker", "cert", "--ca-cert", str(d / "ca.crt"), "--ca-key", str(d / "ca.key"),
                            "--workers", "4", "--out-dir", str(d))  # a fourth worker: only its own is made
    assert r.returncode == 0 and r.stderr.count("CN=") == 1 and "tablectl-floor-4" in r.stderr
    for n in (3, 4):  # worker 3 named in the rules, worker 4 not: its certificate alone gives it nothing
        (d / f"floor-{n}.crt").write_bytes((d / f"tablectl-floor-{n}.crt").read_bytes())
        (d / f"floor-{n}.key").write_bytes((d / f"tablectl-floor-{n}.key").read_bytes())
    assert tablectl_in_process("broker", "access", "--workers", "3", "--table", "table-001",
                               "--out", str(d / "access.json")).returncode == 0
    port = free_port()
    b = Mosquitto(tmp_path / "broker", port=port, config=shipped_config(d, port)).start()
    try:
        async def join(name: str) -> list[int]:
            async with mqtt.connect(identity(b, d, name), f"tablectl-{name}") as conn:
                return await conn.subscribe(["$share/floor/tablectl/+/ledger", "tablectl/+/status"])

        assert asyncio.run(join("floor-3")) == [1, 1]
        assert asyncio.run(join("floor-4")) == [0x87, 0x87]
    finally:
        b.stop()
