#!/usr/bin/env bash
# Remove tablectl: the service, its unit, udev rules, journald settings and
# /opt/tablectl. KEEPS the journal (/var/lib/tablectl, with its backups), the
# config (/etc/tablectl) and the tablectl user, so a later install.sh carries on.
#   sudo deploy/uninstall.sh [--purge-config] [--root DIR] [--no-system]
# --purge-config also removes /etc/tablectl. Nothing removes the journal:
# delete /var/lib/tablectl by hand once it is archived.
set -euo pipefail
ROOT=""
SYSTEM=1
PURGE_CONFIG=0
while [ $# -gt 0 ]; do
    case "$1" in
        --root) ROOT="$(realpath -m "$2")"; shift ;;
        --no-system) SYSTEM=0 ;;
        --purge-config) PURGE_CONFIG=1 ;;
        *) echo "uninstall.sh: unknown option $1" >&2; exit 1 ;;
    esac
    shift
done
[ "$ROOT" = "/" ] && ROOT=""
[ "$(id -u)" = 0 ] || { echo "uninstall.sh: run as root (sudo)" >&2; exit 1; }
sys() { if [ "$SYSTEM" = 1 ]; then "$@"; else echo "would run: $*"; fi; }

sys systemctl disable --now tablectl.service || true
rm -f "$ROOT/etc/systemd/system/tablectl.service" \
      "$ROOT/etc/udev/rules.d/60-tablectl-devices.rules" \
      "$ROOT/etc/udev/rules.d/70-tablectl-shoe.rules" \
      "$ROOT/etc/systemd/journald.conf.d/50-tablectl.conf" \
      "$ROOT/usr/local/bin/tablectl"
rm -rf "$ROOT/opt/tablectl"
[ "$PURGE_CONFIG" = 1 ] && rm -rf "$ROOT/etc/tablectl"
sys systemctl daemon-reload
sys udevadm control --reload
sys systemctl restart systemd-journald.service
echo "uninstall.sh: removed; kept /var/lib/tablectl (journal)$([ "$PURGE_CONFIG" = 1 ] || echo ' and /etc/tablectl')"
