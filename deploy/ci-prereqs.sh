#!/usr/bin/env bash
# What tests/deploy needs on a CI machine (Debian, as root), installed before
# the tests run (the tests themselves install nothing):
#   - systemd: systemd-analyze (verify, security) and systemd-sysusers;
#   - test-output/wheelhouse: the pinned wheels for this machine's Python, so
#     the test that builds a real venv through install.sh runs offline.
# Idempotent and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v systemd-analyze >/dev/null || ! command -v systemd-sysusers >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd
fi
PY="${PYTHON:-python3}"
"$PY" -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
    -r deploy/requirements.lock -r deploy/build-requirements.lock -d test-output/wheelhouse
