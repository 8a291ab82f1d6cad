#!/usr/bin/env bash
# Download the pinned wheels for a Pi into a directory, on any machine with
# internet access, for an offline install (install.sh --wheelhouse DIR):
#   deploy/make-wheelhouse.sh [DIR] [PYTHON_VERSION]
# PYTHON_VERSION: 3.11 for bookworm (default), 3.13 for trixie.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="${1:-wheelhouse}"
pyver="${2:-3.11}"
python3 -m pip download --disable-pip-version-check --only-binary=:all: \
    --platform manylinux_2_36_aarch64 --platform manylinux_2_17_aarch64 \
    --platform manylinux2014_aarch64 --platform linux_aarch64 \
    --python-version "$pyver" --implementation cp \
    -r "$here/requirements.lock" -r "$here/build-requirements.lock" -d "$dir"
echo "wheels for CPython $pyver on aarch64 in $dir: copy it to the Pi with the checkout"
