"""Byte framing of the shoe protocol: pure functions, no I/O, no clock.

A frame on the wire is HDLC-like (RFC 1662 "octet stuffing")::

    0x7E | escaped(body + CRC16 big-endian) | 0x7E

* ``0x7E`` (FLAG) only ever appears as a delimiter, so a receiver that joins
  mid-frame, or loses bytes to noise, resynchronises at the next FLAG (the
  NMEA idea: one sync character that data can never contain).
* Inside a frame ``0x7E`` is sent as ``0x7D 0x5E`` and ``0x7D`` as
  ``0x7D 0x5D`` (escape byte, then the byte XOR 0x20).
* The CRC is CRC-16/CCITT-FALSE over the unescaped body; a receiver checks
  the CRC over body+CRC and expects 0, which is one C call per frame.

The decoder leans on ``bytes.split``/``bytes.replace``/``crc_hqx`` (all C) and
never touches bytes one at a time in Python: that is what lets a small board
decode a saturated 115,200-baud line with a wide margin (benchmarks/link.py).
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

from firmware_bridge.crc import CRC_INIT, crc16_ccitt

FLAG = 0x7E
ESCAPE = 0x7D
ESCAPE_XOR = 0x20

# Longest unescaped body+CRC (bytes) a receiver accepts; anything longer is noise.
MAX_FRAME = 256

_FLAG_B = b"\x7e"
_ESC_B = b"\x7d"
_ESCAPED_FLAG = b"\x7d\x5e"
_ESCAPED_ESC = b"\x7d\x5d"


@dataclass(slots=True)
class DecodeStats:
    """Counters a decoder keeps; bad frames are counted, never raised."""

    frames: int = 0
    bad_crc: int = 0
    too_short: int = 0
    overlong: int = 0
    bytes_in: int = 0


def encode_frame(body: bytes) -> bytes:
    """Wrap ``body`` (packet type + payload) into one wire frame with CRC and flags."""
    raw = body + crc16_ccitt(body).to_bytes(2, "big")
    # Escape the escape byte first, or the escapes we add would be escaped again.
    escaped = raw.replace(_ESC_B, _ESCAPED_ESC).replace(_FLAG_B, _ESCAPED_FLAG)
    return b"\x7e" + escaped + b"\x7e"


def unescape(data: bytes) -> bytes:
    """Undo the octet stuffing of one frame's contents (FLAGs already removed)."""
    if _ESC_B not in data:
        return data
    # Every 0x7D in a valid stream starts an escape pair, so pairs never overlap
    # and two C-level replaces are exact; an invalid stream just fails the CRC.
    return data.replace(_ESCAPED_FLAG, _FLAG_B).replace(_ESCAPED_ESC, _ESC_B)


class FrameDecoder:
    """Incremental decoder: feed it any bytes, in any chunks; get checked bodies.

    It never raises on input: garbage, partial frames and bad CRCs are counted
    in :attr:`stats` and skipped, and decoding resumes at the next FLAG.
    """

    __slots__ = ("_tail", "_max", "_max_frame", "_discarding", "stats")

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._tail = b""
        self._max_frame = max_frame
        # Escaping can at most double a frame, so this bounds buffered noise.
        self._max = 2 * max_frame + 2
        self._discarding = False
        self.stats = DecodeStats()

    def reset(self) -> None:
        """Forget any partial frame (e.g. after the port was reopened)."""
        self._tail = b""
        self._discarding = False

    def feed(self, data: bytes) -> list[bytes]:
        """Consume ``data`` and return the bodies (without CRC) of complete good frames."""
        stats = self.stats
        stats.bytes_in += len(data)
        if _FLAG_B not in data:
            tail = self._tail + data
            if len(tail) > self._max:
                # No FLAG for longer than any frame: drop it, and drop the rest
                # up to the next FLAG too, since it is the same run of noise.
                stats.overlong += 1
                self._discarding = True
                tail = b""
            self._tail = tail
            return []
        parts = (self._tail + data).split(_FLAG_B)
        tail = parts.pop()
        if self._discarding:
            parts[0] = b""
            self._discarding = False
        if len(tail) > self._max:
            stats.overlong += 1
            self._discarding = True
            tail = b""
        self._tail = tail
        out: list[bytes] = []
        crc_hqx = binascii.crc_hqx
        max_frame = self._max_frame
        for part in parts:
            if not part:
                continue  # back-to-back FLAGs are idle fill, not an error
            if _ESC_B in part:
                part = part.replace(_ESCAPED_FLAG, _FLAG_B).replace(_ESCAPED_ESC, _ESC_B)
            if len(part) < 3:
                stats.too_short += 1
                continue
            if len(part) > max_frame or crc_hqx(part, CRC_INIT) != 0:
                stats.bad_crc += 1
                continue
            out.append(part[:-2])
        stats.frames += len(out)
        return out
