#!/usr/bin/env bash
# Install or upgrade tablectl on a Raspberry Pi (Debian/Raspberry Pi OS bookworm
# or trixie). Idempotent: run it again from a newer checkout to upgrade. Never
# touches the journal (/var/lib/tablectl) or an existing /etc/tablectl/config.toml.
#
# Layout (deploy/README.md, "Layout"):
#   /opt/tablectl/releases/<version>-<source hash>/venv   one venv per release
#   /opt/tablectl/current  -> releases/...                what the unit runs
#   /opt/tablectl/previous -> releases/...                what --rollback returns to
#
# Usage: sudo deploy/install.sh [options]
#   --wheelhouse DIR  install the pinned wheels from DIR only (offline; see make-wheelhouse.sh)
#   --shoe DEVICE     write the udev rule naming this serial adapter /dev/tablectl-shoe
#   --rollback [ID]   switch current back to the previous release (or to releases/ID)
#   --no-start        install and enable, but do not (re)start the service
#   --keep N          releases kept besides current and previous (default 1)
#   --no-compile      build no compiled engine (tablectl simulate then runs the pure-Python one)
#   --python PATH     interpreter for the venv (default /usr/bin/python3)
# For tests and image building:
#   --root DIR        prefix every path with DIR (a throwaway root)
#   --no-system       run no systemctl/udevadm/apt-get: print what would run
#   --skip-venv       lay out a release without building its venv
# Without a running systemd (a chroot, an image being built) the steps that need it
# (restarts, daemon-reload, udevadm) are skipped and said; apt-get and `systemctl enable` run.
# lgpio (pin_factory = "lgpio"): the OS's python3-lgpio where its archive has it (Raspberry
# Pi OS), else the wheel pinned in requirements.lock (aarch64, CPython 3.9-3.12), else a
# warning saying so; never an lgpio without its functions.
# The compiled engine (tablectl simulate's; the service runs the pure one): built into the release's
# venv where a C compiler and the Python headers are present (none is installed here: a table needs
# no compiler), with mypy from deploy/compile-requirements.lock kept out of the venv; else one line says why.
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT=""
SYSTEM=1
SKIP_VENV=0
WHEELHOUSE=""
SHOE=""
ROLLBACK=0
ROLLBACK_TO=""
START=1
KEEP=1
COMPILE=1
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON="$(command -v python3)"

die() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "install.sh: $*"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --root) ROOT="$(realpath -m "$2")"; shift ;;
        --no-system) SYSTEM=0 ;;
        --skip-venv) SKIP_VENV=1 ;;
        --wheelhouse) WHEELHOUSE="$(realpath "$2")"; shift ;;
        --shoe) SHOE="$2"; shift ;;
        --rollback)
            ROLLBACK=1
            if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then ROLLBACK_TO="$2"; shift; fi ;;
        --no-start) START=0 ;;
        --keep) KEEP="$2"; shift ;;
        --no-compile) COMPILE=0 ;;
        --python) PYTHON="$2"; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
[ "$ROOT" = "/" ] && ROOT=""
[ "$(id -u)" = 0 ] || die "run as root (sudo)"

OPT="$ROOT/opt/tablectl"
ETC="$ROOT/etc/tablectl"
STATE="$ROOT/var/lib/tablectl"
UNIT="$ROOT/etc/systemd/system/tablectl.service"
RULES="$ROOT/etc/udev/rules.d"
CHANGED_UNIT=0
CHANGED_UDEV=0
CHANGED_JOURNALD=0

# A system command: run it, or with --no-system only say it.
sys() {
    if [ "$SYSTEM" = 1 ]; then "$@"; else echo "would run: $*"; fi
}

# systemctl restart/daemon-reload and udevadm talk to the running systemd and udev. A chroot
# or an image being built has neither (sd_booted(3): no /run/systemd/system): there those
# steps are said, not run (udevadm trigger would even reach the host's devices).
LIVE=1
if [ "$SYSTEM" = 1 ] && [ ! -d /run/systemd/system ]; then
    LIVE=0
    say "no running systemd here (a chroot or an image being built): its steps are skipped, each said below"
fi
live() {  # a step that needs the running systemd or udev
    if [ "$SYSTEM" = 0 ]; then echo "would run: $*"
    elif [ "$LIVE" = 0 ]; then echo "skipped (no running systemd): $*"
    else "$@"; fi
}

# ---------------------------------------------------------------- apt, lgpio --
APT_UPDATED=0
apt_update() {  # once a run, and only when a package is wanted: a fresh image's lists are empty or old
    [ "$APT_UPDATED" = 0 ] || return 0
    APT_UPDATED=1
    say "apt-get update"
    apt-get update -qq || say "WARNING: apt-get update failed: using the package lists as they are"
}
apt_offers() {  # apt_offers PKG: this system's archive has PKG (an install candidate)
    local candidate
    candidate="$(apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')"
    [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}
apt_install() {  # one package a line: one missing package never blocks another
    say "apt-get install $*"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}
# The OS's lgpio as PYTHON sees it: its two files, one a line. An lgpio without
# gpiochip_open (PyPI's 0.0.0.2 is an empty module) does not count.
LGPIO_FILES='import lgpio, _lgpio; lgpio.gpiochip_open; print(lgpio.__file__); print(_lgpio.__file__)'
system_lgpio() { "$PYTHON" -c "$LGPIO_FILES" 2>/dev/null; }
venv_has_lgpio() { "$1/bin/python" -c 'import lgpio; lgpio.gpiochip_open' 2>/dev/null; }
link_lgpio() {  # link_lgpio VENV FILES: the OS's lgpio (its C library stays the OS's) into the venv
    local site f
    site="$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
    while read -r f; do ln -sfn "$f" "$site/$(basename "$f")"; done <<<"$2"
    say "lgpio: the system's python3-lgpio, linked into the venv"
}
# The venv's links to the OS's lgpio dangle once python3-lgpio is removed (an apt autoremove, a purge): the
# table has no lgpio then, and stops at its next start (exit 7). They are removed and made again to the OS's
# lgpio, reinstalled where the archive has it; where it cannot be, install.sh stops and says so.
repair_lgpio_links() {  # repair_lgpio_links VENV
    local site gone lg=""
    site="$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
    gone="$(find "$site" -maxdepth 1 \( -name 'lgpio*' -o -name '_lgpio*' \) -xtype l)"
    [ -n "$gone" ] || return 0
    say "lgpio: the venv's links to the system's python3-lgpio point at nothing (it was removed):" \
        "$(xargs -d '\n' -n1 basename <<<"$gone" | tr '\n' ' ')"
    xargs -d '\n' rm -f <<<"$gone"
    if ! lg="$(system_lgpio)" && [ "$SYSTEM" = 1 ]; then
        apt_update
        if apt_offers python3-lgpio; then
            apt_install python3-lgpio || say "WARNING: apt-get install python3-lgpio failed"
        fi
        lg="$(system_lgpio)" || lg=""
    fi
    [ -n "$lg" ] || die "lgpio: python3-lgpio was removed and is not in this system's archive: pin_factory =" \
        "\"lgpio\" cannot work (the dangling links are removed). Install python3-lgpio, then run install.sh again"
    link_lgpio "$1" "$lg"
}

# install_file SRC DEST MODE [OWNER:GROUP]: copy if the content differs; 0 = changed.
install_file() {
    local src="$1" dest="$2" mode="$3" owner="${4:-0:0}"
    mkdir -p "$(dirname "$dest")"
    if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
        chmod "$mode" "$dest"; chown "$owner" "$dest"
        return 1
    fi
    install -m "$mode" -o "${owner%%:*}" -g "${owner##*:}" "$src" "$dest.new"
    mv -f "$dest.new" "$dest"
    say "installed ${dest#"$ROOT"}"
    return 0
}

# link NAME TARGET: atomically point the symlink NAME at TARGET.
link() {
    ln -sfn "$2" "$1.new"
    mv -Tf "$1.new" "$1"
}

id_of() {  # id_of passwd|group NAME: numeric id inside $ROOT
    awk -F: -v n="$2" '$1 == n { print $3 }' "$ROOT/etc/$1"
}

restart_service() {
    if [ "$START" = 0 ]; then say "not started (--no-start): systemctl restart tablectl"; return 0; fi
    live systemctl restart tablectl.service
}

# compile_engine VENV: tablectl simulate's compiled engine in the venv (tablectl/compiled_engine.py), unless
# it is current there. mypy (the build's only) goes to a directory of its own, removed after: the venv stays
# as requirements.lock has it. One line says the build's time, or why there is none (then, and on a build
# that fails, simulate runs the pure-Python engine and says so; the release is good either way).
compile_engine() {
    local py="$1/bin/python" tools="" line
    local pip=("$py" -m pip --disable-pip-version-check --no-input)
    if [ "$COMPILE" = 0 ]; then
        say "compiled engine: not built (--no-compile); tablectl simulate runs the pure-Python engine"
        return 0
    fi
    "$py" -P -m tablectl.compiled_engine status >/dev/null && return 0  # current: nothing to do
    if "$py" -P -m tablectl.compiled_engine check-tools --no-mypyc >/dev/null; then
        tools="$(mktemp -d)"
        if ! "${pip[@]}" install --quiet --no-deps --only-binary=:all: "${WHEELS[@]}" --target "$tools" \
                -r "$SRC/deploy/compile-requirements.lock" 2>"$tools/pip.err"; then
            say "WARNING: mypy for the compiled engine (deploy/compile-requirements.lock) did not install:" \
                "$(grep -m1 'ERROR' "$tools/pip.err" || tail -n1 "$tools/pip.err")"
        fi
    fi
    # (without a compiler or the headers, or without mypy, ensure says which)
    line="$(PYTHONPATH="$tools" "$py" -P -m tablectl.compiled_engine ensure --by deploy/install.sh)" ||
        line="compiled engine: the build step failed (above); tablectl simulate runs the pure-Python engine"
    [ -z "$line" ] || say "$line"
    [ -z "$tools" ] || rm -rf "$tools"
    [ ! -d "$1/tablectl-compiled" ] || chmod -R go-w "$1/tablectl-compiled"
}

# source_commit: the checkout's commit, its date and whether tracked files changed, for the build stamp
# (_build_stamp.py; tablectl --version); nothing where SRC is no git checkout or git is missing (a release
# tarball made by git archive carries its own). safe.directory: root reads a checkout its technician owns.
source_commit() {
    command -v git >/dev/null && [ -e "$SRC/.git" ] || return 0
    local g=(git -c "safe.directory=$SRC" -C "$SRC") commit date modified=no
    commit="$("${g[@]}" rev-parse --short=12 HEAD 2>/dev/null)" || return 0
    date="$("${g[@]}" log -1 --format=%cs 2>/dev/null)" || date=unknown
    [ -z "$("${g[@]}" status --porcelain --untracked-files=no 2>/dev/null)" ] || modified=yes
    echo "commit=$commit date=$date modified=$modified"
}

release_of() {  # release_of LINK: the release id a symlink points to, or nothing
    [ -L "$1" ] && basename "$(readlink "$1")" || true
}

# ---------------------------------------------------------------- rollback --
if [ "$ROLLBACK" = 1 ]; then
    cur="$(release_of "$OPT/current")"
    to="${ROLLBACK_TO:-$(release_of "$OPT/previous")}"
    [ -n "$to" ] || die "no previous release to roll back to"
    [ -f "$OPT/releases/$to/.complete" ] || die "release $to is not installed (ls $OPT/releases)"
    [ "$to" != "$cur" ] || die "release $to is already current"
    link "$OPT/current" "releases/$to"
    [ -n "$cur" ] && link "$OPT/previous" "releases/$cur"
    say "current: $to (was $cur)"
    restart_service
    exit 0
fi

# ------------------------------------------------------------ prerequisites --
command -v "$PYTHON" >/dev/null || die "no Python at '$PYTHON' (apt-get install python3, or --python PATH)"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    die "$PYTHON is older than Python 3.11"

# The Debian packages a venv build needs, asked of apt only then (an already built release
# asks nothing): python3-venv, or the build stops; python3-lgpio where the archive has it.
SYSTEM_LGPIO=""
prepare_system() {
    if ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
        [ "$SYSTEM" = 1 ] || die "$PYTHON cannot make a venv (no ensurepip): apt-get install python3-venv"
        apt_update
        apt_install python3-venv ||
            die "apt-get install python3-venv failed: the release's venv cannot be built without it"
        "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null ||
            die "python3-venv is installed but $PYTHON still has no ensurepip (is --python the system's python3?)"
    fi
    # WeasyPrint's libraries, for the dispute record's PDF (docs/dispute.md): pango and a font. Without them
    # the table runs as ever and makes the record as HTML and JSON; only its PDF is refused.
    # grep reads the whole list (no -q): with pipefail, -q's early exit could fail ldconfig's write (SIGPIPE)
    # and the pipeline with it, so pango would be installed again where it is (a flaky deploy test found it).
    if [ "$SYSTEM" = 1 ] && ! ldconfig -p 2>/dev/null | grep 'libpangoft2-1\.0\.so\.0' >/dev/null; then
        apt_update
        apt_install libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core ||
            say "WARNING: apt-get install of pango failed: the dispute record's PDF cannot be made on this table"
    fi
    SYSTEM_LGPIO="$(system_lgpio)" && return 0
    SYSTEM_LGPIO=""
    [ "$SYSTEM" = 1 ] || return 0
    apt_update
    if apt_offers python3-lgpio; then
        apt_install python3-lgpio || say "WARNING: apt-get install python3-lgpio failed"
        SYSTEM_LGPIO="$(system_lgpio)" || SYSTEM_LGPIO=""
    else
        say "python3-lgpio is not in this system's archive (Raspberry Pi OS has it, plain Debian does not)"
    fi
}

# ------------------------------------------------------------ user, groups --
install_file "$SRC/deploy/tablectl.sysusers" "$ROOT/etc/sysusers.d/tablectl.conf" 0644 || true
if [ -n "$ROOT" ]; then
    mkdir -p "$ROOT/etc"
    systemd-sysusers --root="$ROOT" "$SRC/deploy/tablectl.sysusers"
else
    systemd-sysusers /etc/sysusers.d/tablectl.conf
fi
UID_T="$(id_of passwd tablectl)"
GID_T="$(id_of group tablectl)"
[ -n "$UID_T" ] && [ -n "$GID_T" ] || die "user tablectl was not created"

# ----------------------------------------------------------- directories --
install -d -m 0755 -o 0 -g 0 "$OPT" "$OPT/releases"
install -d -m 0750 -o 0 -g "$GID_T" "$ETC"
install -d -m 0750 -o "$UID_T" -g "$GID_T" "$STATE"
install -d -m 0750 -o 0 -g 0 "$STATE/backups"

# ------------------------------------------------------------------ config --
install_file "$SRC/deploy/config.example.toml" "$ETC/config.example.toml" 0644 || true
if [ ! -e "$ETC/config.toml" ]; then
    install -m 0640 -o 0 -g "$GID_T" "$SRC/deploy/config.example.toml" "$ETC/config.toml"
    say "created /etc/tablectl/config.toml from the example: edit it (table name, API keys)"
else
    say "kept /etc/tablectl/config.toml"
fi

# ----------------------------------------------------------------- release --
pkg_list() {  # the packages pyproject.toml ships
    "$PYTHON" - "$SRC/pyproject.toml" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    data = tomllib.load(f)
print(data["project"]["version"])
for pattern in data["tool"]["setuptools"]["packages"]["find"]["include"]:
    print(pattern.rstrip("*").rstrip("."))
PY
}
mapfile -t META < <(pkg_list)
VERSION="${META[0]}"
PKGS=("${META[@]:1}")
mapfile -t PKGS < <(printf '%s\n' "${PKGS[@]}" | sort -u)
source_files() {
    (cd "$SRC" && find pyproject.toml README.md _build_stamp.py deploy "${PKGS[@]}" -type f \
        ! -path '*/__pycache__/*' ! -name '*.pyc' ! -name '*.egg-info' | LC_ALL=C sort)
}
HASH="$(cd "$SRC" && source_files | xargs -d '\n' sha256sum | sha256sum | cut -c1-12)"
WHEELS=()  # where pip takes wheels from: PyPI, or the wheelhouse only
[ -n "$WHEELHOUSE" ] && WHEELS=(--no-index --find-links "$WHEELHOUSE")
ID="$VERSION-$HASH"
REL="$OPT/releases/$ID"

if [ -f "$REL/.complete" ]; then
    say "release $ID already built"
    [ ! -x "$REL/venv/bin/python" ] || repair_lgpio_links "$REL/venv"
    # python3-lgpio installed since the build (deploy/README.md, troubleshooting): link it in.
    if [ -x "$REL/venv/bin/python" ] && ! venv_has_lgpio "$REL/venv" && lg="$(system_lgpio)"; then
        link_lgpio "$REL/venv" "$lg"
    fi
    # a compiler installed since, or a build that is out of date: made now (silent when current)
    [ ! -x "$REL/venv/bin/python" ] || compile_engine "$REL/venv"
else
    rm -rf "$REL"
    mkdir -p "$REL"
    # what this release was built from: the deploy files (for README, rollback notes)
    (cd "$SRC" && source_files | grep '^deploy/' | xargs -d '\n' cp --parents -t "$REL")
    if [ "$SKIP_VENV" = 1 ]; then
        say "release $ID laid out without a venv (--skip-venv)"
    else
        prepare_system
        say "building release $ID in ${REL#"$ROOT"}"
        stage="$(mktemp -d)"
        trap 'rm -rf "$stage"' EXIT
        # lgpio apart: the OS's where it has one; and a missing wheel (CPython 3.13) must not
        # stop the rest of the venv.
        lgpio_pin='^lgpio[[:space:]]*(==|;)'
        grep -Ev "$lgpio_pin" "$SRC/deploy/requirements.lock" > "$stage/requirements.lock"
        grep -E "$lgpio_pin" "$SRC/deploy/requirements.lock" > "$stage/lgpio.txt" || true
        # The venv is built where it stays: its scripts name their own path.
        "$PYTHON" -m venv "$REL/venv"
        PIP=("$REL/venv/bin/python" -m pip --disable-pip-version-check --no-input)
        "${PIP[@]}" install --quiet --no-deps --only-binary=:all: "${WHEELS[@]}" \
            -r "$stage/requirements.lock" -r "$SRC/deploy/build-requirements.lock"
        mkdir "$stage/src"
        (cd "$SRC" && source_files | grep -v '^deploy/' | xargs -d '\n' cp --parents -t "$stage/src")
        # The build stamp (tablectl --version): the checkout's commit, read here as the copy has no .git.
        TABLECTL_BUILD_STAMP="$(source_commit)" \
            "${PIP[@]}" install --quiet --no-deps --no-build-isolation --no-index "$stage/src"
        # lgpio (pin_factory = "lgpio"): the OS's, else the pinned wheel (it bundles its own
        # C library; its marker limits it to aarch64), else a warning.
        pyver="$("$REL/venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
        if [ -n "$SYSTEM_LGPIO" ]; then
            link_lgpio "$REL/venv" "$SYSTEM_LGPIO"
        elif [ ! -s "$stage/lgpio.txt" ]; then
            say "WARNING: lgpio: no python3-lgpio, and deploy/requirements.lock pins none"
        elif ! "${PIP[@]}" install --quiet --no-deps --only-binary=:all: "${WHEELS[@]}" \
                -r "$stage/lgpio.txt" 2>"$stage/lgpio.err"; then
            say "WARNING: lgpio: no python3-lgpio here, and $(sed 's/ *;.*//' "$stage/lgpio.txt") has no wheel" \
                "for CPython $pyver on $(uname -m)${WHEELHOUSE:+ in $WHEELHOUSE} (its wheels: aarch64, CPython 3.9-3.12):" \
                "pin_factory = \"lgpio\" will not work (on Raspberry Pi OS: apt-get install python3-lgpio, then install.sh again);" \
                "pip said: $(grep -m1 'ERROR' "$stage/lgpio.err" || tail -n1 "$stage/lgpio.err")"
        elif venv_has_lgpio "$REL/venv"; then
            say "lgpio: $(sed 's/ *;.*//' "$stage/lgpio.txt") from ${WHEELHOUSE:-PyPI} (the OS has no python3-lgpio)"
        elif "$REL/venv/bin/python" -c 'import lgpio' 2>/dev/null; then
            # Never left in place: gpiozero would take it for lgpio and fail on the first pin.
            "${PIP[@]}" uninstall --quiet --yes lgpio
            say "WARNING: lgpio: the installed lgpio has no gpiochip_open (an empty package): removed;" \
                "pin_factory = \"lgpio\" will not work"
        else
            say "WARNING: lgpio: none for $(uname -m) (the pinned wheel is the Pi's, aarch64):" \
                "pin_factory = \"lgpio\" will not work here (\"mock\" does)"
        fi
        rm -rf "$stage"
        "${PIP[@]}" check
        "$REL/venv/bin/python" -c 'import tablectl.cli, tablectl.config, tablectl.sdnotify'
        compile_engine "$REL/venv"
    fi
    printf 'release=%s\nversion=%s\nbuilt=%s\npython=%s\n' "$ID" "$VERSION" \
        "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$("$PYTHON" -V 2>&1)" > "$REL/release.txt"
    chmod -R go-w "$REL"
    touch "$REL/.complete"
fi

# A config the new release rejects stops the upgrade before anything switches.
JOURNAL=/var/lib/tablectl/journal.sqlite
if [ -x "$REL/venv/bin/python" ]; then
    JOURNAL="$("$REL/venv/bin/python" -c '
import sys
from tablectl.config import ConfigError, load_settings
try:
    print(load_settings(sys.argv[1]).journal.path)
except ConfigError as exc:
    sys.exit(f"install.sh: release refuses /etc/tablectl/config.toml: {exc}")
' "$ETC/config.toml")"
fi

# ------------------------------------------------------------- journal key --
# The table's key (journal rows' MACs) is made once, beside the config, readable by the
# service alone. A journal of schema 1 (before the keyed ledger) is set aside as evidence
# and the service starts a new journal: this build cannot read it, nor write over it.
if [ -x "$REL/venv/bin/python" ]; then
    KEYFILE="$("$REL/venv/bin/python" -c '
import sys
from tablectl.config import load_settings
print(load_settings(sys.argv[1]).journal.key_path)
' "$ETC/config.toml")"
    # Read-only through a URI: the path quoted, so a "?", "#" or "%" in it stays part of the name.
    old_schema="$("$PYTHON" -c '
import sqlite3, sys, urllib.parse
try:
    db = sqlite3.connect("file:" + urllib.parse.quote(sys.argv[1]) + "?mode=ro", uri=True)
    print(dict(db.execute("SELECT key, value FROM meta")).get("schema", ""))
except Exception:
    print("")
' "$ROOT$JOURNAL")"
    if [ "$old_schema" = 1 ]; then
        kept="$STATE/backups/journal-schema1-$(date -u +%Y%m%dT%H%M%SZ).sqlite"
        for side in "" -wal -shm; do
            [ -e "$ROOT$JOURNAL$side" ] && mv "$ROOT$JOURNAL$side" "$kept$side"
        done
        say "the old journal (schema 1) is kept at ${kept#"$ROOT"}; a new, keyed journal starts"
    fi
    if [ ! -e "$ROOT$KEYFILE" ]; then
        if [ -e "$ROOT$JOURNAL" ]; then
            die "the journal $JOURNAL exists but its key $KEYFILE does not: put the key back (never a new one)"
        fi
        "$REL/venv/bin/tablectl" journal keygen --key "$ROOT$KEYFILE" >/dev/null
        chown "$UID_T:$GID_T" "$ROOT$KEYFILE"
        chmod 0400 "$ROOT$KEYFILE"
        say "created the table's journal key $KEYFILE (keep a copy in the safe)"
    fi
fi

# ------------------------------------------------------------ system files --
install_file "$SRC/deploy/systemd/tablectl.service" "$UNIT" 0644 && CHANGED_UNIT=1
install_file "$SRC/deploy/udev/60-tablectl-devices.rules" "$RULES/60-tablectl-devices.rules" 0644 && CHANGED_UDEV=1
if [ -n "$SHOE" ]; then
    tmp="$(mktemp)"
    "$SRC/deploy/shoe-rule.sh" "$SHOE" > "$tmp"
    install_file "$tmp" "$RULES/70-tablectl-shoe.rules" 0644 && CHANGED_UDEV=1
    rm -f "$tmp"
elif [ ! -e "$RULES/70-tablectl-shoe.rules" ]; then
    install_file "$SRC/deploy/udev/70-tablectl-shoe.rules" "$RULES/70-tablectl-shoe.rules" 0644 && CHANGED_UDEV=1
fi
install_file "$SRC/deploy/systemd/journald-tablectl.conf" \
    "$ROOT/etc/systemd/journald.conf.d/50-tablectl.conf" 0644 && CHANGED_JOURNALD=1
mkdir -p "$ROOT/usr/local/bin"
link "$ROOT/usr/local/bin/tablectl" /opt/tablectl/current/venv/bin/tablectl

# ------------------------------------------------------------------ switch --
CUR="$(release_of "$OPT/current")"
SWITCHED=0
if [ "$CUR" != "$ID" ]; then
    # A copy of the journal as it was before the switch (SQLite's backup API:
    # consistent while the service writes). The last 3 are kept.
    if [ -f "$ROOT$JOURNAL" ]; then
        bak="$STATE/backups/journal-before-$ID-$(date -u +%Y%m%dT%H%M%SZ).sqlite"
        "$PYTHON" -c '
import sqlite3, sys, urllib.parse
src = sqlite3.connect("file:" + urllib.parse.quote(sys.argv[1]) + "?mode=ro", uri=True)
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.close()
' "$ROOT$JOURNAL" "$bak"
        chmod 0640 "$bak"
        say "journal copied to ${bak#"$ROOT"}"
        ls -1t "$STATE/backups"/journal-before-*.sqlite | tail -n +4 | xargs -r rm -f
    fi
    link "$OPT/current" "releases/$ID"
    [ -n "$CUR" ] && link "$OPT/previous" "releases/$CUR"
    SWITCHED=1
    say "current: $ID${CUR:+ (previous: $CUR)}"
fi

# Prune: keep current, previous and the newest $KEEP others.
PREV="$(release_of "$OPT/previous")"
for old in $(ls -1t "$OPT/releases" | { grep -vxF -e "$ID" -e "${PREV:-/}" || true; } | tail -n +$((KEEP + 1))); do
    rm -rf "${OPT:?}/releases/$old"
    say "removed old release $old"
done

# ------------------------------------------------------------------ system --
[ "$CHANGED_JOURNALD" = 1 ] && live systemctl restart systemd-journald.service
if [ "$CHANGED_UDEV" = 1 ]; then
    live udevadm control --reload
    live udevadm trigger --action=add --subsystem-match=tty --subsystem-match=gpio \
        --subsystem-match=spidev --subsystem-match=i2c-dev
fi
[ "$CHANGED_UNIT" = 1 ] && live systemctl daemon-reload
# enable only makes links: it needs no running systemd, so it runs in a chroot too.
sys systemctl enable tablectl.service
if [ "$SWITCHED" = 1 ] || [ "$CHANGED_UNIT" = 1 ]; then
    if ! restart_service; then
        if [ "$SWITCHED" = 1 ] && [ -n "$CUR" ]; then
            echo "install.sh: the new release did not start; rolling back to $CUR" >&2
            link "$OPT/current" "releases/$CUR"
            link "$OPT/previous" "releases/$ID"
            restart_service || true
        fi
        die "tablectl did not start: journalctl -u tablectl -n 50"
    fi
fi
if [ "$SYSTEM" = 1 ] && [ "$LIVE" = 0 ]; then
    say "done: release $ID is current; the service is enabled and starts when this system boots"
else
    say "done: release $ID is current (systemctl status tablectl)"
fi
