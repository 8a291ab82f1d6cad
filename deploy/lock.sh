#!/usr/bin/env bash
# Regenerate deploy/requirements.lock: pip freeze of a fresh venv after
# 'pip install .' (run after changing dependencies in pyproject.toml, then
# check that every pin still has a linux aarch64 wheel: make-wheelhouse.sh).
# The section "The Pi's alone" at its end (lgpio) is kept as written.
# Then deploy/postgresql.lock: what 'pip install .[postgresql]' adds to that
# venv (a floor whose store is PostgreSQL; docs/floor.md, "Installing a floor").
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
cp -r "$root/pyproject.toml" "$root/README.md" "$root/_build_stamp.py" "$tmp/"
for pkg in controller firmware_bridge display simulators games tablectl; do cp -r "$root/$pkg" "$tmp/"; done
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check "$tmp"
{
    sed -n '1,/^# pydantic_core is/p' "$root/deploy/requirements.lock"
    "$tmp/venv/bin/pip" freeze --exclude tablectl
    # The Pi's own pins (lgpio; environment markers) are kept as they are: a freeze here cannot see them.
    sed -n "/^# The Pi's alone/,\$p" "$root/deploy/requirements.lock"
} > "$root/deploy/requirements.lock.new"
mv "$root/deploy/requirements.lock.new" "$root/deploy/requirements.lock"
"$tmp/venv/bin/pip" freeze --exclude tablectl | sort > "$tmp/base.txt"
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check -c "$root/deploy/requirements.lock" "$tmp[postgresql]"
{
    sed -n '1,/^# Regenerate/p' "$root/deploy/postgresql.lock"
    "$tmp/venv/bin/pip" freeze --exclude tablectl | sort | comm -13 "$tmp/base.txt" -
} > "$root/deploy/postgresql.lock.new"
mv "$root/deploy/postgresql.lock.new" "$root/deploy/postgresql.lock"
git -C "$root" diff --stat -- deploy/requirements.lock deploy/postgresql.lock || true
