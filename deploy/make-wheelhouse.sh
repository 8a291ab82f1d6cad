#!/usr/bin/env bash
# Download the pinned wheels for a Pi into a directory, on any machine with
# internet access, for an offline install (install.sh --wheelhouse DIR):
#   deploy/make-wheelhouse.sh [DIR] [PYTHON_VERSION]
# PYTHON_VERSION: 3.11 for bookworm (default), 3.13 for trixie.
# lgpio is fetched apart: PyPI has no wheel of it for 3.13, and that must not stop the rest
# (on trixie the Pi needs the OS's python3-lgpio, Raspberry Pi OS's archive has it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:-wheelhouse}"
pyver="${2:-3.11}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# pip evaluates environment markers on this machine, not the Pi: a Pi's pin marked
# platform_machine == "aarch64" would be skipped on a PC, so markers are dropped here
# (every wheel below is for the Pi anyway).
lgpio_pin='^lgpio[[:space:]]*(==|;)'
grep -Ev "$lgpio_pin" "$here/requirements.lock" > "$tmp/requirements.lock"
grep -E "$lgpio_pin" "$here/requirements.lock" | sed 's/[[:space:]]*;.*//' > "$tmp/lgpio.txt" || true
# manylinux_2_34: lgpio's wheels; 2_28: Pillow's (the dispute record's PDF); 2_36 is bookworm's glibc
# (trixie's 2.41 runs them all). pip takes each tag as named, never the older ones a glibc also runs.
download() {
    python3 -m pip download --disable-pip-version-check --only-binary=:all: \
        --platform manylinux_2_36_aarch64 --platform manylinux_2_34_aarch64 --platform manylinux_2_28_aarch64 \
        --platform manylinux_2_17_aarch64 --platform manylinux2014_aarch64 --platform linux_aarch64 \
        --python-version "$pyver" --implementation cp -d "$dir" "$@"
}
download -r "$tmp/requirements.lock" -r "$here/build-requirements.lock" -r "$here/compile-requirements.lock"
if [ -s "$tmp/lgpio.txt" ]; then
    if download --quiet -r "$tmp/lgpio.txt" 2>"$tmp/lgpio.err"; then
        echo "make-wheelhouse.sh: $(cat "$tmp/lgpio.txt") included"
    else
        echo "make-wheelhouse.sh: no $(cat "$tmp/lgpio.txt") wheel for CPython $pyver on aarch64" \
            "(PyPI has 3.9-3.12): the Pi needs its OS's python3-lgpio for pin_factory = \"lgpio\"" >&2
    fi
fi
echo "wheels for CPython $pyver on aarch64 in $dir: copy it to the Pi with the checkout"
