"""The virtual shoe's "cable": a pseudo-terminal, with a symlink that follows replugs.

Unplugging closes the pty master (the host sees its port fail) and plugging
back in makes a new pty, whose slave path differs, so a stable path is kept
as a symlink re-pointed atomically, like /dev/serial/by-id/ for a USB shoe.
"""

from __future__ import annotations

import logging
import os
import tty

log = logging.getLogger(__name__)


class LinkPathError(Exception):
    """The --link path cannot be used."""


class PtyLink:
    """A pty pair: we keep the master (the shoe's end) and a slave fd of our own.

    Holding a slave fd keeps the pty alive while no host has it open, so the
    shoe's writes do not fail with EIO between connections.
    """

    def __init__(self, link_path: str | None) -> None:
        self.link_path = link_path
        self.master: int | None = None
        self._slave: int | None = None
        self.device: str | None = None
        self.written_dropped = 0
        if link_path is not None and os.path.lexists(link_path) and not os.path.islink(link_path):
            raise LinkPathError(f"refusing to replace {link_path}: it exists and is not a symlink")

    @property
    def plugged(self) -> bool:
        """True while the cable is in."""
        return self.master is not None

    def plug(self) -> str:
        """Create a fresh pty and point the link at it; returns the device path."""
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo or line editing before the host configures it
        os.set_blocking(master, False)
        self.master, self._slave = master, slave
        self.device = os.ttyname(slave)
        if self.link_path is not None:
            tmp = f"{self.link_path}.{os.getpid()}.tmp"
            try:
                if os.path.lexists(tmp):
                    os.unlink(tmp)
                os.symlink(self.device, tmp)
                os.replace(tmp, self.link_path)  # atomic: the host never sees no link
            except OSError as exc:
                self.unplug()
                raise LinkPathError(f"cannot make the symlink {self.link_path}: {exc.strerror}") from None
        log.info("plugged in at %s", self.device)
        return self.device

    def unplug(self) -> None:
        """Close the pty: the host's reads fail, as when a USB cable is pulled.

        The symlink goes first, as /dev/serial/by-id/ links do: left dangling,
        it would name a pty number the kernel may give to another program.
        """
        self._remove_link()
        for fd in (self.master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self._slave = None
        log.info("unplugged")

    def read(self) -> bytes:
        """Bytes from the host, or b"" if none."""
        if self.master is None:
            return b""
        try:
            return os.read(self.master, 4096)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError as exc:
            log.debug("pty read: %s", exc)
            return b""

    def write(self, data: bytes) -> None:
        """Send bytes; what does not fit (nobody reading) is lost, as on a real line."""
        if self.master is None:
            return
        try:
            n = os.write(self.master, data)
        except (BlockingIOError, InterruptedError):
            n = 0
        except OSError as exc:
            log.debug("pty write: %s", exc)
            n = 0
        self.written_dropped += len(data) - n

    def close(self) -> None:
        """Unplug (which removes our symlink)."""
        self.unplug()

    def _remove_link(self) -> None:
        device = self.device
        if self.link_path and device and os.path.islink(self.link_path):
            try:
                if os.readlink(self.link_path) == device:
                    os.unlink(self.link_path)
            except OSError:
                pass
