"""ShoeLink on real pseudo-terminals with real pyserial, against the virtual shoe in another process."""

from __future__ import annotations

import asyncio
import os
import time
import tty
from pathlib import Path
from typing import AsyncIterator, Callable, TypeVar

import pytest

from firmware_bridge import (
    Card,
    Fault,
    FaultKind,
    LinkDown,
    LinkStopped,
    LinkTiming,
    LinkUp,
    ShoeLink,
    ShoeLoaded,
    ShoeMessage,
    StoredPosition,
    UnknownCodec,
)
from simulators.shoe.process import SimProcess
from tests.support.deadlines import scaled

M = TypeVar("M")
DEADLINE = scaled(15.0)  # generous: a deadline against hanging, not a speed check


async def next_of(messages: AsyncIterator[ShoeMessage], kind: type[M]) -> M:
    async def find() -> M:
        async for msg in messages:
            if isinstance(msg, kind):
                return msg
        raise AssertionError(f"link stopped before a {kind.__name__}")

    return await asyncio.wait_for(find(), DEADLINE)


async def wait_for_status(sim: SimProcess, predicate: Callable[[dict], bool]) -> dict:
    deadline = time.monotonic() + DEADLINE
    while True:
        status = await asyncio.to_thread(sim.request, "status")
        if predicate(status):
            return status
        assert time.monotonic() < deadline, f"shoe never reached the state; last status {status}"
        await asyncio.sleep(0.02)


def test_unstored_card_is_sent_again_after_a_reconnect(start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim("--decks", "1", "--heartbeat", "0.2")

    async def scenario() -> None:
        link = ShoeLink(sim.link, timing=LinkTiming(heartbeat_timeout=1.0))
        link.start()
        msgs = link.messages()
        up = await next_of(msgs, LinkUp)
        assert up.hello.serial == "SIM-0001" and up.hello.codec == "framed"
        loaded = await next_of(msgs, ShoeLoaded)
        deals = [await asyncio.to_thread(sim.request, "deal") for _ in range(3)]
        cards = [await next_of(msgs, Card) for _ in range(3)]
        assert [(c.shoe_id, c.position, c.code) for c in cards] == [
            (loaded.shoe_id, d["position"], d["card"]) for d in deals
        ]
        link.ack(loaded.shoe_id, 1)
        link.ack(loaded.shoe_id, 2)  # the owner never stores card 3
        await wait_for_status(sim, lambda s: s["unacked"] == 1)

        await asyncio.to_thread(sim.request, "unplug", seconds=0.3)
        down = await next_of(msgs, LinkDown)
        assert down.reason
        await next_of(msgs, LinkUp)
        await wait_for_status(sim, lambda s: s["connected"])
        deadline = time.monotonic() + DEADLINE
        while link.stats.duplicates == 0:  # card 3 comes again on the wire...
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        assert (await wait_for_status(sim, lambda s: True))["unacked"] == 1  # ...and the shoe still keeps it
        await link.aclose()

        # The owner restarts with what it really stored: card 3 is delivered again.
        async with ShoeLink(sim.link, resume_from=StoredPosition(loaded.shoe_id, 2)) as again:
            card = await next_of(again.messages(), Card)
            assert card == cards[2]
            again.ack(card.shoe_id, card.position)
            await wait_for_status(sim, lambda s: s["unacked"] == 0)

    asyncio.run(scenario())


def test_lock_holds_the_gate_until_unlock(start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim("--heartbeat", "0.2")

    async def scenario() -> None:
        async with ShoeLink(sim.link) as link:
            await next_of(link.messages(), LinkUp)
            link.lock()
            await wait_for_status(sim, lambda s: s["locked"])
            assert await asyncio.to_thread(sim.request, "deal") == {"ok": False, "error": "locked"}
            link.unlock()
            await wait_for_status(sim, lambda s: not s["locked"])
            assert (await asyncio.to_thread(sim.request, "deal"))["ok"] is True
            card = await next_of(link.messages(), Card)
            assert card.position == 1

    asyncio.run(scenario())


def test_faults_and_buttons_reach_the_owner(start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim()
    link = ShoeLink(sim.link)
    link.start()  # no event loop: the blocking API
    try:
        assert isinstance(link.get_blocking(DEADLINE), LinkUp)
        sim.request("fault", kind="jam")
        sim.request("button", name="shuffle")
        sim.request("clear")
        sim.request("fault", kind="unreadable")
        assert sim.request("deal")["unreadable"] is True
        seen: list[ShoeMessage] = []
        while len([m for m in seen if not type(m).__name__ == "Status"]) < 4:
            seen.append(link.get_blocking(DEADLINE))
        events = [m for m in seen if type(m).__name__ != "Status"]
        assert isinstance(events[0], ShoeLoaded)
        assert isinstance(events[1], Fault) and events[1].kind is FaultKind.JAM and events[1].position is None
        assert type(events[2]).__name__ == "Button" and events[2].name == "shuffle"  # type: ignore[union-attr]
        assert isinstance(events[3], Fault) and events[3].kind is FaultKind.UNREADABLE and events[3].position == 1
    finally:
        link.stop()
    with pytest.raises(LinkStopped):
        link.get_blocking(1.0)


def _pty(link: Path) -> tuple[int, int]:
    master, slave = os.openpty()
    tty.setraw(slave)
    tmp = link.with_suffix(".tmp")
    os.symlink(os.ttyname(slave), tmp)
    os.replace(tmp, link)
    return master, slave


def test_lines_codec_counts_positions_and_follows_a_replugged_port(tmp_path: Path) -> None:
    path = tmp_path / "reader"
    master, slave = _pty(path)
    link = ShoeLink(str(path), codec="lines", timing=LinkTiming(reopen_backoff_max=0.2))
    link.start()
    try:
        up = link.get_blocking(DEADLINE)
        assert isinstance(up, LinkUp) and up.hello.codec == "lines" and not up.hello.can_lock
        os.write(master, b"AS\r\nTD\n\n??\n7h\n")
        got = [link.get_blocking(DEADLINE) for _ in range(4)]
        assert got[:2] == [Card("lines", 1, "AS"), Card("lines", 2, "TD")]
        assert isinstance(got[2], Fault) and got[2].kind is FaultKind.BAD_DATA and "??" in got[2].detail
        assert got[3] == Card("lines", 3, "7H")
        link.ack("lines", 3)

        # Unplug: the old pty goes away, a new one appears under the same path.
        os.close(master)
        os.close(slave)
        down = link.get_blocking(DEADLINE)
        assert isinstance(down, LinkDown) and down.reason == "the shoe's cable is unplugged"
        assert str(path) in down.detail  # the technician's detail: which port, which error
        master, slave = _pty(path)
        assert isinstance(link.get_blocking(DEADLINE), LinkUp)
        os.write(master, b"KC\n")
        assert link.get_blocking(DEADLINE) == Card("lines", 4, "KC")
    finally:
        link.stop()
        os.close(master)
        os.close(slave)


def test_a_missing_port_is_reported_as_link_down_and_retried(tmp_path: Path) -> None:
    path = tmp_path / "late"
    link = ShoeLink(str(path), codec="lines", timing=LinkTiming(reopen_backoff_max=0.1))
    link.start()
    master = slave = -1
    try:
        down = link.get_blocking(DEADLINE)
        assert isinstance(down, LinkDown) and down.reason == "the shoe's cable is unplugged"
        assert "cannot open" in down.detail and "No such file" in down.detail
        master, slave = _pty(path)  # the shoe is plugged in later
        assert isinstance(link.get_blocking(DEADLINE), LinkUp)
    finally:
        link.stop()
        if master >= 0:
            os.close(master)
            os.close(slave)


def test_unknown_codec_and_bad_ack_are_clear_errors() -> None:
    with pytest.raises(UnknownCodec, match="unknown codec 'morse'.*framed, lines"):
        ShoeLink("/dev/null", codec="morse")
    link = ShoeLink("/dev/null")
    with pytest.raises(ValueError, match="position >= 1"):
        link.ack("S1", 0)


def test_missed_heartbeats_mean_link_down_then_the_link_recovers(start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim("--heartbeat", "60")  # a shoe that falls silent after answering
    link = ShoeLink(sim.link, timing=LinkTiming(heartbeat_timeout=0.5))
    link.start()
    try:
        assert isinstance(link.get_blocking(DEADLINE), LinkUp)
        msg = link.get_blocking(DEADLINE)
        while not isinstance(msg, LinkDown):
            msg = link.get_blocking(DEADLINE)
        assert msg.reason == "the shoe does not answer" and "no heartbeat" in msg.detail
        msg = link.get_blocking(DEADLINE)
        while not isinstance(msg, LinkUp):  # reopened, RESUME answered: up again
            msg = link.get_blocking(DEADLINE)
    finally:
        link.stop()


def test_a_port_with_no_shoe_answering_is_link_down(tmp_path: Path) -> None:
    path = tmp_path / "mute"
    master, slave = _pty(path)
    link = ShoeLink(str(path), timing=LinkTiming(handshake_timeout=0.3))
    link.start()
    try:
        down = link.get_blocking(DEADLINE)
        assert isinstance(down, LinkDown) and down.reason == "the shoe does not answer"
        assert "no answer from the shoe" in down.detail
        assert os.read(master, 100).startswith(b"\x7e\x81")  # it did ask, with RESUME
    finally:
        link.stop()
        os.close(master)
        os.close(slave)


def test_a_lock_and_an_ack_reach_the_shoe_without_waiting_out_the_read(start_sim: Callable[..., SimProcess]) -> None:
    """The owner's commands wake the port thread's read: with a read slice of a minute and a shoe
    that says nothing on its own, the lock and the ack still arrive well within the deadline."""
    sim = start_sim("--decks", "1", "--heartbeat", "30")

    async def scenario() -> None:
        link = ShoeLink(sim.link, timing=LinkTiming(read_timeout=60.0, heartbeat_timeout=120.0, ack_interval=120.0))
        link.start()
        msgs = link.messages()
        await next_of(msgs, LinkUp)
        loaded = await next_of(msgs, ShoeLoaded)
        deal = await asyncio.to_thread(sim.request, "deal")
        card = await next_of(msgs, Card)
        assert card.position == deal["position"]
        link.ack(loaded.shoe_id, card.position)
        await wait_for_status(sim, lambda s: s["unacked"] == 0)
        link.lock()
        await wait_for_status(sim, lambda s: s["locked"])
        await link.aclose()

    asyncio.run(scenario())
