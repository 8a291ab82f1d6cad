"""One writer a journal: the table's service holds a lock beside its journal while it runs, and the offline tool
that writes a row (`tablectl journal rules`) takes the same lock first, so the two never write one journal at once.

Two writers would each keep their own table in memory and chain their own rows: the second's next row would not
follow the first's, and the journal would no longer verify. The lock is flock(2) on `JOURNAL.lock`, a file of its
own beside the journal (empty; left in place, as removing a lock file races with the next taker). Not the journal
itself: closing any descriptor of the journal drops the process's POSIX locks on it, SQLite's included. The
kernel lets it go when its holder dies, however it dies (a SIGKILL, a power cut): no stale lock to clear.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
from pathlib import Path
from typing import Iterator

from controller.journal import JournalError

log = logging.getLogger(__name__)


class JournalBusy(JournalError):
    """Another process writes this journal now (the table's service, or `tablectl journal rules`)."""


def lock_path(journal: Path) -> Path:
    """The lock file beside ``journal``."""
    return journal.with_name(journal.name + ".lock")


@contextlib.contextmanager
def writer_lock(journal: Path, *, required: bool) -> Iterator[None]:
    """Hold the journal's writer lock for the block; JournalBusy at once if another process holds it.

    ``required``: the lock file must be made (an offline tool that is about to write); without it a lock file
    that cannot be made (a folder this user cannot write) is said in the log and the block runs unlocked: the
    service is never stopped by its lock, and its journal's own checks say what is wrong with the folder.
    """
    path = lock_path(Path(journal))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if required:
            raise JournalBusy(f"cannot take the journal's writer lock {path}: {exc.strerror or exc}") from None
        if exc.errno != errno.ENOENT:  # (no folder: the journal's own open says so, the one line that matters)
            log.warning("the journal's writer lock %s cannot be made (%s): running without it", path,
                        exc.strerror or exc)
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise JournalBusy(f"the journal {journal} is being written by another process (the table's service, or "
                              "`tablectl journal rules`): one writer at a time; stop the service first "
                              "(systemctl stop tablectl)") from None
        yield
    finally:
        os.close(fd)
