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
# A device's properties are the device's to say: only characters a udev match can hold
# safely are kept (a quote or a backslash would end the match or start another).
clean() { tr -cd 'A-Za-z0-9._:+-' <<<"$1"; }
vendor="$(clean "$(get ID_VENDOR_ID)")"; product="$(clean "$(get ID_MODEL_ID)")"
serial="$(clean "$(get ID_SERIAL_SHORT)")"; path="$(clean "$(get ID_PATH)")"
tail='SYMLINK+="tablectl-shoe", GROUP="dialout", MODE="0660", TAG+="systemd"'
echo "# tablectl: the smart shoe, from $(clean "$dev") ($(clean "$(get ID_SERIAL)")); written by shoe-rule.sh"
if [ "$by_path" = 0 ] && [ -n "$vendor" ] && [ -n "$product" ] && [ -n "$serial" ]; then
    echo "SUBSYSTEM==\"tty\", ENV{ID_VENDOR_ID}==\"$vendor\", ENV{ID_MODEL_ID}==\"$product\", ENV{ID_SERIAL_SHORT}==\"$serial\", $tail"
elif [ -n "$path" ]; then
    echo "# no serial number on this adapter: keep the shoe in the same USB port"
    echo "SUBSYSTEM==\"tty\", ENV{ID_PATH}==\"$path\", $tail"
else
    echo "shoe-rule.sh: $dev has neither a USB serial number nor an ID_PATH" >&2
    exit 1
fi
