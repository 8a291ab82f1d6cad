"""Line faults for the virtual shoe: corrupted, dropped and duplicated frames."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FaultRates:
    """Probability (0..1) of each fault, per frame."""

    corrupt: float = 0.0
    drop: float = 0.0
    duplicate: float = 0.0


class FaultInjector:
    """Spoils frames at the given rates, reproducibly for a given RNG seed.

    Outgoing frames (shoe -> host) may be dropped, corrupted (one byte XORed
    with a random non-zero value, flags included) or sent twice; incoming
    frames (host -> shoe) may be dropped, which is how a lost ACK looks.
    """

    def __init__(self, rates: FaultRates, rng: random.Random) -> None:
        self.rates = rates
        self._rng = rng
        self.counts = {"corrupted": 0, "dropped": 0, "duplicated": 0, "dropped_incoming": 0}

    def outgoing(self, frame: bytes) -> list[bytes]:
        """The frames to actually write for ``frame``: none, one (maybe spoilt) or two."""
        rng, rates = self._rng, self.rates
        if rates.drop and rng.random() < rates.drop:
            self.counts["dropped"] += 1
            return []
        if rates.corrupt and rng.random() < rates.corrupt:
            spoilt = bytearray(frame)
            spoilt[rng.randrange(len(spoilt))] ^= rng.randrange(1, 256)
            frame = bytes(spoilt)
            self.counts["corrupted"] += 1
        if rates.duplicate and rng.random() < rates.duplicate:
            self.counts["duplicated"] += 1
            return [frame, frame]
        return [frame]

    def drop_incoming(self) -> bool:
        """True if this frame from the host is lost on the way."""
        if self.rates.drop and self._rng.random() < self.rates.drop:
            self.counts["dropped_incoming"] += 1
            return True
        return False
