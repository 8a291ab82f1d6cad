"""The shipped broker (deploy/mosquitto: TLS with client certificates, its access rules) on a real Mosquitto, with
certificates made by openssl as an operator makes them: the floor's CA, the broker's, and one per identity."""

from __future__ import annotations

import getpass
import subprocess
from pathlib import Path

from tests.support.broker import Mosquitto
from tests.support.harness import free_port

from tablectl.fleet.settings import BrokerSettings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "mosquitto"

# name of the files -> the certificate's CN (the broker takes it as the user name and the client id)
IDENTITIES = {"table-001": "table-001", "table-002": "table-002", "floor": "tablectl-floor",
              "floor-1": "tablectl-floor-1", "floor-2": "tablectl-floor-2",
              "surveillance": "tablectl-surveillance", "pit": "tablectl-pit", "public": "tablectl-public",
              "stranger": "table-999"}
# Every certificate the floor's CA signs that is not a worker's ("stranger": signed, but in no access rule).
THIEVES = ("table-002", "pit", "public", "surveillance", "floor", "stranger")


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certificates(d: Path) -> None:
    """The floor's CA (ca.crt, ca.key), the broker's certificate for 127.0.0.1, and NAME.crt/NAME.key for each of
    IDENTITIES, all P-256, valid two days."""
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=floor CA", cwd=d)
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    for name, cn in (("broker", "127.0.0.1"), *IDENTITIES.items()):
        _openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={cn}", cwd=d)
        extra = ("-extfile", "san.ext") if name == "broker" else ()
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{name}.crt", "-days", "2", *extra, cwd=d)


def shipped_config(d: Path, port: int) -> str:
    """deploy/mosquitto/tablectl.conf with its files in `d`, listening on 127.0.0.1:`port`, run as this user."""
    conf = (DEPLOY / "tablectl.conf").read_text().replace("/etc/mosquitto/tablectl/", f"{d}/")
    conf = conf.replace("listener 8883", f"listener {port} 127.0.0.1")
    conf = conf.replace("persistence_location /var/lib/mosquitto/", f"persistence_location {d}/")
    return f"user {getpass.getuser()}\nlog_dest file {d}/mosquitto.log\n" + conf


def write_access(d: Path, tables: tuple[str, ...] = ("table-001", "table-002"), workers: int = 2) -> None:
    """The broker's access rules as `tablectl broker access` makes them, where the shipped config reads them."""
    from tablectl.cli import main

    assert main(["broker", "access", "--out", str(d / "access.json"), "--workers", str(workers),
                 *(a for t in tables for a in ("--table", t))]) == 0


def start_tls_broker(tmp_path: Path) -> tuple[Mosquitto, Path]:
    """The shipped broker on a free port, its CA and every identity's certificate in the folder returned."""
    d = tmp_path / "pki"
    d.mkdir()
    make_certificates(d)
    write_access(d)
    port = free_port()
    return Mosquitto(tmp_path / "broker", port=port, config=shipped_config(d, port)).start(), d


def identity(b: Mosquitto, d: Path, name: str) -> BrokerSettings:
    """How the client `name` connects to the TLS broker: its certificate and key from the test's CA."""
    return BrokerSettings(url=f"mqtts://127.0.0.1:{b.port}", ca_file=str(d / "ca.crt"),
                          cert_file=str(d / f"{name}.crt"), key_file=str(d / f"{name}.key"))
