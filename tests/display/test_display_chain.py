"""DisplayChain: queued, coalesced, never blocking, failures reported not raised."""

from __future__ import annotations

import io
import threading

import pytest

from display.chain import DisplayChain, DisplayStatus
from display.clock import ManualClock
from display.drivers.recording import RecordingDisplay
from display.drivers.terminal import TerminalDisplay, draw_cells
from display.glyphs import encode
from display.model import BoxView, HandView, TableView
from tests.support.deadlines import scaled

IDS = ["box1", "box2", "dealer"]


def make(clock: ManualClock, **kwargs) -> tuple[DisplayChain, RecordingDisplay, list[DisplayStatus]]:  # type: ignore[no-untyped-def]
    driver = RecordingDisplay(IDS, digits=8)
    statuses: list[DisplayStatus] = []
    chain = DisplayChain(driver, clock=clock, on_status=statuses.append, start=False, **kwargs)
    return chain, driver, statuses


def test_newer_text_replaces_older_unsent_one(clock: ManualClock) -> None:
    chain, driver, _ = make(clock)
    chain.show({"box1": "      12"})
    chain.show({"box1": "      15", "box2": "      20"})
    chain.show({"box1": "      18"})
    assert driver.updates == []  # show() itself never touches the driver
    assert chain.pump()
    assert driver.writes() == [{"box1": "      18", "box2": "      20"}]
    assert not chain.pump()  # nothing left


def test_unchanged_text_is_not_rewritten(clock: ManualClock) -> None:
    chain, driver, _ = make(clock)
    chain.show({"box1": "      12"})
    chain.pump()
    chain.show({"box1": "      12", "box2": "      13"})
    chain.pump()
    assert driver.writes()[-1] == {"box2": "      13"}


def test_bad_texts_fail_in_the_callers_thread(clock: ManualClock) -> None:
    chain, _, _ = make(clock)
    with pytest.raises(ValueError):
        chain.show({"box1": "bUSt 22 bJ"})
    with pytest.raises(ValueError):
        chain.show({"box1": "WIN"})
    with pytest.raises(KeyError):
        chain.show({"box7": "1"})


def test_a_failing_display_is_reported_then_retried_and_reinitialised(clock: ManualClock) -> None:
    chain, driver, statuses = make(clock, retry_interval=2.0)
    driver.fail_with = OSError("SPI transfer error -5")
    chain.show({"box1": "      17"})
    assert chain.pump() is False  # no exception escapes
    assert statuses == [DisplayStatus(ok=False, error="OSError: SPI transfer error -5", failures=1)]
    assert not chain.status.ok
    driver.fail_with = None
    clock.advance(1.0)
    assert chain.pump() is False  # too early to retry
    assert driver.updates == []
    chain.show({"box2": "      19"})  # the engine keeps updating meanwhile
    clock.advance(1.0)
    assert chain.pump()
    assert [u.kind for u in driver.updates] == ["reinitialise", "write"]
    assert driver.snapshot()["box1"] == "      17"  # the failed text was not lost
    assert driver.snapshot()["box2"] == "      19"
    assert statuses[-1] == DisplayStatus(ok=True)
    assert len(statuses) == 2  # one report per change of health, not per attempt


def test_a_newer_text_wins_over_the_one_that_failed(clock: ManualClock) -> None:
    chain, driver, _ = make(clock, retry_interval=0.0)
    driver.fail_with = OSError("gone")
    chain.show({"box1": "      17"})
    chain.pump()
    chain.show({"box1": "    bUSt"})
    driver.fail_with = None
    chain.pump()
    assert driver.snapshot()["box1"] == "    bUSt"
    assert [w["box1"] for w in driver.writes()] == ["    bUSt"]


def test_periodic_reinitialisation_under_the_injected_clock(clock: ManualClock) -> None:
    chain, driver, _ = make(clock, reinit_interval=30.0)
    assert not chain.pump()
    clock.advance(29.9)
    assert not chain.pump()
    clock.advance(0.1)
    assert chain.pump()
    assert [u.kind for u in driver.updates] == ["reinitialise"]
    clock.advance(10)
    assert not chain.pump()


def test_brightness_blanking_and_on_demand_reinitialise_are_queued(clock: ManualClock) -> None:
    chain, driver, _ = make(clock, reinit_interval=None)
    chain.set_brightness(3)
    chain.set_brightness(12)
    chain.set_blanked(True)
    chain.reinitialise()
    chain.pump()
    assert [(u.kind, u.value) for u in driver.updates] == [
        ("reinitialise", None), ("brightness", 12), ("blanked", True)
    ]


def test_show_view_renders_for_the_chain_width(clock: ManualClock) -> None:
    chain, driver, _ = make(clock)
    view = TableView((BoxView(1, True, (HandView(2, 7, 17, in_play=True),)), BoxView(2)))
    chain.show_view(view)
    chain.pump()
    assert driver.snapshot() == {"box1": "    7-17.", "box2": " " * 8, "dealer": " " * 8}


class SlowDisplay(RecordingDisplay):
    """A driver whose write blocks until the test lets it go."""

    def __init__(self) -> None:
        super().__init__(IDS)
        self.entered = threading.Event()
        self.release = threading.Event()

    def write(self, texts):  # type: ignore[no-untyped-def]
        self.entered.set()
        assert self.release.wait(scaled(5))
        super().write(texts)


def test_the_engine_never_waits_for_a_stuck_bus() -> None:
    driver = SlowDisplay()
    chain = DisplayChain(driver, reinit_interval=None)
    try:
        chain.show({"box1": "       1"})
        assert driver.entered.wait(scaled(5))  # the worker is stuck inside write()
        for n in range(2, 10):
            chain.show({"box1": f"       {n}"})  # returns although the bus is stuck
        driver.release.set()
        assert chain.flush(5)
        assert [w["box1"] for w in driver.writes()] == ["       1", "       9"]
    finally:
        driver.release.set()
        chain.close()
    assert driver.closed


def test_terminal_renderer_draws_the_segments() -> None:
    assert draw_cells(encode("7.")) == [" _  ", "  | ", "  |."]
    out = io.StringIO()
    term = TerminalDisplay(["box1", "dealer"], 4, stream=out, style="line")
    term.write({"box1": "7-17", "dealer": "  bJ"})
    assert out.getvalue().splitlines()[-1] == "box1[7-17] dealer[  bJ]"
    seg = TerminalDisplay(["box1"], 2, stream=io.StringIO(), style="segments")
    seg.write({"box1": "17"})
    assert seg.frame().splitlines() == ["   box1      _", "          |   |", "          |   |"]  # no trailing blanks
