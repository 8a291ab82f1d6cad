"""The API over TLS (issue 12): with [api] tls_certfile/tls_keyfile the table serves HTTPS only,
so a key never crosses the pit network in clear. The certificate is made here with openssl, as a
casino's CA would issue one (deploy/README.md, "TLS on the pit network")."""

from __future__ import annotations

import ssl
import subprocess

import httpx
import pytest

from tests.support.deadlines import scaled
from tests.support.harness import VIEWER_KEY, ServiceProcess, free_port, write_config


def _certificate(directory) -> tuple[str, str]:  # noqa: ANN001 - a Path
    cert, key = directory / "table.crt", directory / "table.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=scaled(60))
    return str(cert), str(key)


def test_the_api_serves_https_with_the_configured_certificate_and_nothing_in_clear(tmp_path):
    cert, key = _certificate(tmp_path)
    port = free_port()
    cfg = write_config(tmp_path, str(tmp_path / "no-shoe"), port,
                       api_options=f'tls_certfile = "{cert}"\ntls_keyfile = "{key}"\n')
    service = ServiceProcess(cfg, tmp_path / "service.log")
    try:
        ready = service.start()
        assert ready["api"] == f"https://127.0.0.1:{port}"
        r = httpx.get(ready["api"] + "/api/table", headers={"Authorization": f"Bearer {VIEWER_KEY}"}, verify=ssl.create_default_context(cafile=cert),
                      timeout=scaled(10))
        assert r.status_code == 200 and r.json()["phase"] == "waiting_for_shuffle"
        with pytest.raises(httpx.HTTPError):  # the same port never answers in clear
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=scaled(5)).raise_for_status()
        with pytest.raises(httpx.ConnectError):  # and a client that does not trust the certificate stops
            httpx.get(ready["api"] + "/healthz", timeout=scaled(5))
    finally:
        service.stop()


def test_a_certificate_without_its_key_is_a_config_error(tmp_path):
    from tablectl.config import ConfigError, settings_from_dict

    with pytest.raises(ConfigError, match="tls_certfile and tls_keyfile go together"):
        settings_from_dict({"api": {"tls_certfile": str(tmp_path / "x.crt")}})


def test_a_certificate_that_cannot_be_loaded_is_named_without_a_traceback(tmp_path):
    from tests.support.harness import tablectl

    cfg = write_config(tmp_path, str(tmp_path / "no-shoe"), free_port(),
                       api_options=f'tls_certfile = "{tmp_path / "none.crt"}"\ntls_keyfile = "{tmp_path / "none.key"}"\n')
    out = tablectl("run", "--config", str(cfg), "--no-gpio", timeout=60)
    assert out.returncode == 6 and "tls_certfile" in out.stderr and "Traceback" not in out.stderr
