"""CRC-16/CCITT-FALSE, the checksum that guards every frame of the shoe protocol.

Parameters (the "CRC-16/CCITT-FALSE" entry of the usual CRC catalogues):
polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR,
check value 0x29B1 for the ASCII bytes ``123456789``.

The fast path uses :func:`binascii.crc_hqx`, which is this very CRC written
in C; :func:`crc16_ccitt_reference` is the bit-by-bit definition that shoe
firmware authors can port, and the tests hold the two equal.
"""

from __future__ import annotations

import binascii

CRC_INIT = 0xFFFF
CRC_POLY = 0x1021
CRC_CHECK_VALUE = 0x29B1


def crc16_ccitt(data: bytes | bytearray | memoryview, crc: int = CRC_INIT) -> int:
    """Return the CRC-16/CCITT-FALSE of ``data`` (continuing from ``crc``)."""
    return binascii.crc_hqx(data, crc)


def crc16_ccitt_reference(data: bytes | bytearray | memoryview, crc: int = CRC_INIT) -> int:
    """Bit-by-bit CRC-16/CCITT-FALSE: slow, but the plain definition to port to C."""
    for byte in bytes(data):
        crc ^= byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ CRC_POLY) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc
