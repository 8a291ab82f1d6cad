"""The log's one format, for every long-running process: the table's service, the floor, the fleet sim.

One line per record, key=value context after the message, everything a person or a device sent
escaped: journald keeps the lines, and nothing quoted can forge the next one. Apart from
`tablectl.run` so that the floor's process configures its log without importing the table's.
"""

from __future__ import annotations

import logging
import sys


def one_line(text: str) -> str:
    """`text` with every character that is not printable (a newline, an escape, a line separator) escaped.

    A log line quotes what people and devices sent (a player's name in a refusal, a shoe's fault
    detail); escaped, none of it can end the line and forge the next one.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class KeyValueFormatter(logging.Formatter):
    """One line per record: time, level, logger, message, then key=value context (journald-friendly).

    The message and the context are escaped (`one_line`); only a traceback spans lines.
    """

    def format(self, record: logging.LogRecord) -> str:
        extra = {k: v for k, v in record.__dict__.items() if k in ("round", "shoe", "seq", "box")}
        tail = "".join(f" {k}={one_line(str(v))}" for k, v in extra.items())
        line = (f"{self.formatTime(record, '%Y-%m-%dT%H:%M:%S')} {record.levelname} {record.name}: "
                f"{one_line(record.getMessage())}{tail}")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def setup_logging(level: str) -> None:
    """Log structured lines to stderr (journald keeps them under systemd)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(KeyValueFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("uvicorn.access").setLevel(logging.WARNING)
