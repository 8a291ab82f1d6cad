#!/usr/bin/env bash
# Print the udev rule that names a connected serial adapter /dev/tablectl-shoe.
#   shoe-rule.sh /dev/ttyUSB0 [--by-path] > /etc/udev/rules.d/70-tablectl-shoe.rules
# By vendor, product and serial number when the adapter reports a serial;
# by the USB port (ID_PATH) when it does not, or with --by-path.
set -euo pipefail
dev="${1:?usage: shoe-rule.sh DEVICE [--by-path]}"
by_path=0
[ "${2:-}" = "--by-path" ] && by_path=1
props="$("${UDEVADM:-udevadm}" info --query=property --name="$dev")" ||
    { echo "shoe-rule.sh: $dev: no such device (is the shoe plugged in?)" >&2; exit 1; }
get() { sed -n "s/^$1=//p" <<<"$props" | head -n1; }
vendor="$(get ID_VENDOR_ID)"; product="$(get ID_MODEL_ID)"
serial="$(get ID_SERIAL_SHORT)"; path="$(get ID_PATH)"
tail='SYMLINK+="tablectl-shoe", GROUP="dialout", MODE="0660", TAG+="systemd"'
echo "# tablectl: the smart shoe, from $dev ($(get ID_SERIAL)); written by shoe-rule.sh"
if [ "$by_path" = 0 ] && [ -n "$vendor" ] && [ -n "$product" ] && [ -n "$serial" ]; then
    echo "SUBSYSTEM==\"tty\", ENV{ID_VENDOR_ID}==\"$vendor\", ENV{ID_MODEL_ID}==\"$product\", ENV{ID_SERIAL_SHORT}==\"$serial\", $tail"
elif [ -n "$path" ]; then
    echo "# no serial number on this adapter: keep the shoe in the same USB port"
    echo "SUBSYSTEM==\"tty\", ENV{ID_PATH}==\"$path\", $tail"
else
    echo "shoe-rule.sh: $dev has neither a USB serial number nor an ID_PATH" >&2
    exit 1
fi
