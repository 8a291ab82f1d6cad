"""The tables' keys the floor holds: one file TABLE_ID.key each in keys_dir (the journal's own key format)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from tablectl.fleet.wire import TABLE_ID, read_key

log = logging.getLogger(__name__)


def load_keys(directory: Path) -> dict[str, bytes]:
    """Every table key in `directory` (TABLE_ID.key); a file that is not a key is reported and skipped."""
    keys: dict[str, bytes] = {}
    if not directory.is_dir():
        log.warning("keys folder %s does not exist: no table's MAC will be verified", directory)
        return keys
    for path in sorted(directory.glob("*.key")):
        if not re.match(TABLE_ID, path.stem):
            log.warning("key file %s: not a table id, skipped", path)
            continue
        try:
            keys[path.stem] = read_key(str(path))
        except (OSError, ValueError) as exc:
            log.warning("key file %s skipped: %s", path, exc)
    return keys
