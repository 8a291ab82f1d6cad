"""The MAX7219 chain against gpiozero's mock SPI, decoded by an emulated chain of chips."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from display.drivers.max7219 import Max7219Chain, cells_for_module
from display.glyphs import GLYPHS, canonical
from display.testing import Max7219Emulator

IDS = ["dealer", "box1", "box2", "box3"]


def make_chain(factory: MockFactory, digits: int = 8, brightness: int = 8) -> tuple[Max7219Chain, Max7219Emulator]:
    emulator = Max7219Emulator(len(IDS), pin_factory=factory)  # before the driver claims the pins
    chain = Max7219Chain(
        IDS, digits=digits, brightness=brightness, pin_factory=factory,
        clock_pin=11, mosi_pin=10, miso_pin=9, select_pin=8,
    )
    return chain, emulator


def shown(emulator: Max7219Emulator) -> dict[str, str | None]:
    return {display_id: emulator.visible(i) for i, display_id in enumerate(IDS)}


def test_start_up_configures_every_module_and_lights_them_blank(factory: MockFactory) -> None:
    chain, emulator = make_chain(factory, brightness=5)
    for module in emulator.modules:
        assert module.decode_mode == 0
        assert module.scan_limit == 7
        assert module.intensity == 5
        assert not module.shutdown
        assert not module.display_test
    assert set(shown(emulator).values()) == {" " * 8}
    chain.close()


def test_each_box_shows_its_own_text(factory: MockFactory) -> None:
    chain, emulator = make_chain(factory)
    chain.write({"box1": "    7-17.", "box3": "      bJ", "dealer": "     1-11"[1:]})
    assert shown(emulator) == {
        "dealer": "    1-11",
        "box1": "    7-17.",
        "box2": " " * 8,
        "box3": "      bJ",
    }
    chain.write({"box2": "    bUSt"})
    assert emulator.visible(2) == canonical("    bUSt")
    assert emulator.visible(1) == "    7-17."  # untouched by the later write
    chain.close()


def test_every_latch_shifts_one_word_through_each_module(factory: MockFactory) -> None:
    chain, emulator = make_chain(factory)
    chain.write({"box2": "      12"})
    assert set(emulator.bits_in_frame) == {16 * len(IDS)}
    chain.close()


def test_only_changed_digits_are_sent_and_other_modules_get_no_ops(factory: MockFactory) -> None:
    chain, emulator = make_chain(factory)
    chain.write({"box1": "      17"})
    before = [m.writes for m in emulator.modules]
    frames = emulator.frames
    chain.write({"box1": "      18"})  # only the rightmost digit differs
    assert emulator.frames == frames + 1
    # every module latched a word of the frame, but only box1's was not a no-op
    assert emulator.visible(1) == "      18"
    assert [m.writes - b for m, b in zip(emulator.modules, before)] == [0, 1, 0, 0]
    assert emulator.visible(0) == " " * 8
    chain.write({"box1": "      18"})
    assert emulator.frames == frames + 1  # nothing changed, nothing sent
    chain.close()


def test_brightness_reaches_every_module(factory: MockFactory) -> None:
    chain, emulator = make_chain(factory)
    chain.set_brightness(15)
    assert [m.intensity for m in emulator.modules] == [15] * 4
    chain.set_brightness(0)
    assert [m.intensity for m in emulator.modules] == [0] * 4
    with pytest.raises(ValueError):
        chain.set_brightness(16)
    chain.close()


def test_blanking_darkens_and_unblanking_restores_the_texts(factory: MockFactory) -> None:
    chain, emulator = make_chain(factory)
    chain.write({"box1": "      20"})
    chain.set_blanked(True)
    assert set(shown(emulator).values()) == {None}
    chain.set_blanked(False)
    assert emulator.visible(1) == "      20"
    chain.close()


def test_reinitialise_recovers_a_module_that_browned_out(factory: MockFactory) -> None:
    chain, emulator = make_chain(factory, brightness=9)
    chain.write({"box2": "    7-17.", "dealer": "      16"})
    emulator.brown_out(2)
    assert emulator.visible(2) is None  # came back shut down...
    emulator.modules[2].shutdown = False
    assert emulator.visible(2) != "    7-17."  # ...and showing garbage once woken
    chain.reinitialise()
    assert emulator.visible(2) == "    7-17."
    assert emulator.modules[2].intensity == 9
    assert emulator.modules[2].decode_mode == 0
    assert emulator.visible(0) == "      16"
    chain.close()


def test_four_digit_modules_scan_four_digits(factory: MockFactory) -> None:
    chain, emulator = make_chain(factory, digits=4)
    chain.write({"box1": "7-17"})
    assert emulator.modules[1].scan_limit == 3
    assert emulator.visible(1) == "7-17"
    with pytest.raises(ValueError):
        chain.write({"box1": "bUSt 22"})
    chain.close()


def test_rightmost_cell_goes_to_digit_register_zero() -> None:
    cells = cells_for_module("   17", 5)
    assert cells[0] == GLYPHS["7"] and cells[1] == GLYPHS["1"]
    assert cells[2:] == [0] * 6


def test_unknown_display_is_refused(factory: MockFactory) -> None:
    chain, _ = make_chain(factory)
    with pytest.raises(KeyError):
        chain.write({"box9": "1"})
    chain.close()
