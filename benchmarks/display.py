"""Display-side figures (printed, never asserted): rendering and MAX7219 writes on mock SPI.

Run from the repository root: .venv/bin/python -m benchmarks.display
(as a module: run as a script, this file would shadow the display package)
"""

from __future__ import annotations

import time

from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from display.drivers.max7219 import Max7219Chain
from display.model import BoxView, DealerView, HandView, TableView
from display.render import render_table
from display.testing import Max7219Emulator


def main() -> None:
    view = TableView(
        boxes=tuple(
            BoxView(n, True, (HandView(2, 7, 17, in_play=n == 3), HandView(3, 19, done=True)))
            for n in range(1, 8)
        ),
        dealer=DealerView(up_card=10, card_count=2, hard_total=16, hole_card_hidden=True),
    )
    n = 2000
    t = time.perf_counter()
    for _ in range(n):
        render_table(view, 8)
    dt = time.perf_counter() - t
    print(f"render_table, 7 boxes split: {dt / n * 1e6:.1f} us per table")

    factory = MockFactory()
    Device.pin_factory = factory
    emulator = Max7219Emulator(8, pin_factory=factory)
    chain = Max7219Chain(
        ["dealer"] + [f"box{i}" for i in range(1, 8)], pin_factory=factory,
        clock_pin=11, mosi_pin=10, miso_pin=9, select_pin=8,
    )
    texts = render_table(view, 8)
    t = time.perf_counter()
    chain.write(texts)
    full = time.perf_counter() - t
    t = time.perf_counter()
    chain.reinitialise()
    reinit = time.perf_counter() - t
    print(f"MAX7219 x8 full write on mock (bit-banged) SPI: {full * 1e3:.1f} ms, "
          f"reinitialise: {reinit * 1e3:.1f} ms, frames so far: {emulator.frames}")
    print("(on a Pi, lgpio hardware SPI at 500 kHz moves one 8-module row, 128 bits, in ~0.3 ms)")
    chain.close()


if __name__ == "__main__":
    main()
