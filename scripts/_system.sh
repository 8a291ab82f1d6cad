# Sourced by scripts/test: the machine-wide setup the suite needs, from one list.
#   - the Debian packages of scripts/system-packages.txt: as root the missing ones are
#     installed; otherwise the script stops at once (status 3) with the exact command;
#   - ensure_wheelhouse: test-output/wheelhouse, the pinned wheels for the venv's Python, so
#     the deploy tests that build a real venv through install.sh (the table's) and pip (the
#     floor's, with postgresql.lock) run offline (downloaded once, again only when a lock file
#     or the Python changes).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

missing_packages() {
    local pkg
    while read -r pkg; do
        pkg="${pkg%%#*}"
        pkg="${pkg//[[:space:]]/}"
        [ -n "$pkg" ] || continue
        if [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" != "install ok installed" ]; then
            printf '%s\n' "$pkg"
        fi
    done < "$ROOT/scripts/system-packages.txt"
}

if ! command -v dpkg-query >/dev/null; then
    echo "scripts/test: this machine has no dpkg; the suite needs Debian (or Raspberry Pi OS) packages:" >&2
    grep -v '^#' "$ROOT/scripts/system-packages.txt" | tr '\n' ' ' >&2
    echo >&2
    exit 3
fi
mapfile -t _missing < <(missing_packages)
if [ "${#_missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "scripts/test: the tests need these Debian packages, which are not installed: ${_missing[*]}" >&2
        echo "Install them with:" >&2
        echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${_missing[*]}" >&2
        exit 3
    fi
    echo "scripts/test: installing ${_missing[*]} (Debian packages the tests need)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${_missing[@]}" >&2
fi

ensure_wheelhouse() {  # $1: the Python the deploy tests run (the venv's)
    local wheels="$ROOT/test-output/wheelhouse" want lock reqs=()
    local locks=(requirements.lock postgresql.lock build-requirements.lock compile-requirements.lock)
    for lock in "${locks[@]}"; do reqs+=(-r "$ROOT/deploy/$lock"); done
    want="$(cd "$ROOT/deploy" && cat "${locks[@]}" | sha256sum | cut -d' ' -f1) $("$1" -c 'import sys, platform; print(sys.version.split()[0], platform.machine())')"
    if [ ! -f "$wheels/.stamp" ] || [ "$(cat "$wheels/.stamp")" != "$want" ]; then
        echo "scripts/test: downloading the pinned wheels to test-output/wheelhouse (for the offline install test)" >&2
        rm -rf "$wheels"
        "$1" -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
            "${reqs[@]}" -d "$wheels"
        echo "$want" > "$wheels/.stamp"
    fi
}
