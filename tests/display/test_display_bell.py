"""Bell patterns: the pure player, and the relay's mock pin under frozen time."""

from __future__ import annotations

import time

import pytest
from freezegun import freeze_time
from gpiozero.pins.mock import MockFactory

from display.bell import DEFAULT_PATTERNS, Bell, BellPlayer, BellSignal, TowerLight, TowerState, check_pattern
from tests.support.deadlines import scaled


def levels(player: BellPlayer, start: float) -> list[tuple[float, bool]]:
    """The level changes, visiting exactly the times the player announces."""
    changes: list[tuple[float, bool]] = []
    level = False
    t: float | None = start
    while t is not None:
        now_level, t_next = player.update(t)
        if now_level != level:
            changes.append((round(t, 6), now_level))
            level = now_level
        t = t_next
    return changes


def test_call_pit_plays_two_long_rings() -> None:
    player = BellPlayer()
    player.request(BellSignal.CALL_PIT, 10.0)
    assert player.update(10.0) == (True, 10.6)
    assert player.update(10.6) == (False, 11.0)
    assert player.update(11.0) == (True, 11.6)
    assert player.update(11.6)[0] is False
    assert player.update(20.0) == (False, None)
    assert player.ringing is None


def test_patterns_are_distinct() -> None:
    assert len({DEFAULT_PATTERNS[s] for s in BellSignal}) == len(BellSignal)


def test_higher_priority_cuts_in_and_lower_waits_its_turn() -> None:
    player = BellPlayer({BellSignal.SHUFFLE_DUE: [(0.5, 0.5)], BellSignal.ATTENTION: [(0.2, 0.2)]})
    player.request(BellSignal.SHUFFLE_DUE, 0.0)
    player.request(BellSignal.ATTENTION, 0.1)  # cuts shuffle short
    assert player.ringing is BellSignal.ATTENTION
    player.request(BellSignal.CALL_PIT, 0.2)  # lower: queued
    player.request(BellSignal.CALL_PIT, 0.25)  # already queued: ignored
    assert player.queued == [BellSignal.CALL_PIT]
    assert levels(player, 0.2) == [
        (0.2, True), (0.3, False),  # attention (already ringing since 0.1)
        (0.5, True), (1.1, False), (1.5, True), (2.1, False),  # call pit, right after attention's end
    ]


def test_asking_again_for_the_ringing_signal_does_not_restart_it() -> None:
    player = BellPlayer({BellSignal.FAULT: [(1.0, 0.0)]})
    player.request(BellSignal.FAULT, 0.0)
    player.request(BellSignal.FAULT, 0.5)
    assert player.update(0.99) == (True, 1.0)
    assert player.update(1.0)[0] is False


@pytest.mark.parametrize("bad", [[], [(0.0, 1.0)], [(1.0, -0.1)], [(20.0, 20.0)]])
def test_invalid_patterns_are_refused(bad: list[tuple[float, float]]) -> None:
    with pytest.raises(ValueError):
        check_pattern(bad)


def test_relay_pin_follows_the_pattern_in_time(factory: MockFactory) -> None:
    with freeze_time("2026-11-30 20:00:00") as frozen:
        bell = Bell(17, pin_factory=factory, clock=lambda: time.monotonic(), start=False,
                    patterns={BellSignal.FAULT: [(1.0, 0.3), (0.2, 0.0)]})
        pin = factory.pin(17)
        pin.clear_states()
        frozen.tick(0.5)
        bell.ring(BellSignal.FAULT)
        next_change = bell.step()
        while next_change is not None:
            frozen.tick(next_change - time.monotonic())
            next_change = bell.step()
        bell.close()
    # gpiozero's mock pin records (seconds since the previous change, level)
    assert [(round(s.timestamp, 6), s.state) for s in pin.states] == [
        (0.0, False), (0.5, True), (1.0, False), (0.3, True), (0.2, False)
    ]


def test_relay_can_be_active_low(factory: MockFactory) -> None:
    bell = Bell(17, pin_factory=factory, active_high=False, clock=lambda: 0.0, start=False)
    assert factory.pin(17).state is True  # relay board off = line high
    bell.ring(BellSignal.SHUFFLE_DUE)
    assert factory.pin(17).state is False
    bell.close()


def test_bell_thread_rings_by_itself(factory: MockFactory) -> None:
    bell = Bell(17, pin_factory=factory, patterns={BellSignal.SHUFFLE_DUE: [(0.01, 0.0)]})
    pin = factory.pin(17)
    try:
        bell.ring(BellSignal.SHUFFLE_DUE)
        deadline = time.monotonic() + scaled(5)
        while len(pin.states) < 3 and time.monotonic() < deadline:
            time.sleep(0.005)  # waiting for the thread, not timing it
        assert [s.state for s in pin.states] == [False, True, False]
    finally:
        bell.close()


def test_tower_light_lights_one_lamp_per_state(factory: MockFactory) -> None:
    tower = TowerLight(18, 27, 22, pin_factory=factory)
    lamps = lambda: (factory.pin(18).state, factory.pin(27).state, factory.pin(22).state)  # noqa: E731
    tower.set(TowerState.ALARM)
    assert lamps() == (True, False, False)
    tower.set(TowerState.SERVICE)
    assert lamps() == (False, True, False)
    tower.set(TowerState.OK)
    assert lamps() == (False, False, True)
    tower.set(TowerState.OFF)
    assert lamps() == (False, False, False)
    tower.close()
