"""Port I/O: the only module that touches pyserial.

Opens a device path (``/dev/ttyUSB0``, ``/dev/serial/by-id/...``, a symlink to
a pseudo-terminal) or any pyserial URL (``socket://``, ``rfc2217://``,
``loop://``), and turns every way a port can fail (unplugged, vanished,
hung-up pty, EOF) into one exception, :class:`PortError`, with a message fit
for a technician.
"""

from __future__ import annotations

import errno
import logging
import os

import serial

log = logging.getLogger(__name__)


# What the pit is told, by the OS error behind a port failure (the technical message is logged).
UNPLUGGED = "the shoe's cable is unplugged"
NOT_ALLOWED = "the service may not open the shoe's port (permissions)"
IN_USE = "another program is using the shoe's port"
FAILED = "the shoe's port failed"
_HUMAN = {errno.ENOENT: UNPLUGGED, errno.ENODEV: UNPLUGGED, errno.ENXIO: UNPLUGGED, errno.EIO: UNPLUGGED,
          errno.EACCES: NOT_ALLOWED, errno.EPERM: NOT_ALLOWED, errno.EBUSY: IN_USE}


class PortError(Exception):
    """The port could not be opened, or failed while in use.

    ``str()`` is the technician's message (path and OS error); ``reason`` the short human one.
    """

    def __init__(self, message: str, reason: str = FAILED) -> None:
        super().__init__(message)
        self.reason = reason


def _human(exc: BaseException) -> str:
    errno_value = getattr(exc, "errno", None)
    if errno_value in (errno.EAGAIN, errno.EWOULDBLOCK) and "lock" in str(exc):
        return IN_USE
    if isinstance(errno_value, int) and errno_value in _HUMAN:
        return _HUMAN[errno_value]
    if "disconnected" in str(exc) or "returned no data" in str(exc):  # pyserial's words for a vanished device
        return UNPLUGGED
    return FAILED


def _reason(exc: BaseException) -> str:
    if getattr(exc, "errno", None) in (errno.EAGAIN, errno.EWOULDBLOCK) and "lock" in str(exc):
        return "the port is in use by another program"
    errno_value = getattr(exc, "errno", None)
    if isinstance(errno_value, int) and errno_value in errno.errorcode:
        return os.strerror(errno_value)  # pyserial repeats the path and errno: keep the plain reason
    return str(exc) or type(exc).__name__


class Port:
    """An open serial port, with reads and writes that raise only :class:`PortError`."""

    def __init__(self, url: str, baudrate: int = 115200, read_timeout: float = 0.02) -> None:
        self.url = url
        try:
            # exclusive: a second program on the same port would steal bytes
            # from the first (and ack cards its owner never stored).
            self._serial = serial.serial_for_url(
                url, baudrate=baudrate, timeout=read_timeout, write_timeout=1.0, exclusive=True
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise PortError(f"cannot open {url}: {_reason(exc)}", _human(exc)) from None
        log.debug("opened %s", url)

    def read(self) -> bytes:
        """Wait up to the read timeout for bytes; return what is there (maybe b"")."""
        try:
            data = self._serial.read(1)
            if data:
                waiting = self._serial.in_waiting
                if waiting:
                    data += self._serial.read(waiting)
            return bytes(data)
        except (serial.SerialException, OSError) as exc:
            raise PortError(f"read from {self.url} failed: {_reason(exc)}", _human(exc) if getattr(exc, "errno", None)
                            else UNPLUGGED) from None

    def cancel_read(self) -> None:
        """Make a read that waits return at once; safe from another thread, a no-op where the port cannot."""
        cancel = getattr(self._serial, "cancel_read", None)  # POSIX ports have it; some URL handlers do not
        if cancel is not None:
            try:
                cancel()
            except (serial.SerialException, OSError, ValueError):
                pass  # the port is closing: its reader is leaving anyway

    def write(self, data: bytes) -> None:
        """Write all of ``data``."""
        try:
            self._serial.write(data)
        except (serial.SerialException, OSError) as exc:
            raise PortError(f"write to {self.url} failed: {_reason(exc)}", _human(exc) if getattr(exc, "errno", None)
                            else UNPLUGGED) from None

    def close(self) -> None:
        """Close the port, ignoring errors (it may already be gone)."""
        try:
            self._serial.close()
        except (serial.SerialException, OSError) as exc:
            log.debug("closing %s: %s", self.url, exc)
