"""One way to hear the table: `TableService.subscribe` (an async iterator, bounded) and `add_output`.

The subscription's own rules are tested on `Subscription` alone (no service, no journal); what the
service hands its subscribers, on an in-process table (tests.support.inprocess) whose dealer posts
bets. Metrics are wired by the composition root (`tablectl run`), never by `create_app`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tablectl.api import create_app
from tablectl.config import settings_from_dict
from tablectl.metrics import MetricsOutput, wire_metrics
from tablectl.service import StreamItem, SubscriberLagged, Subscription, TableService
from tests.support.deadlines import scaled
from tests.support.harness import DEALER_KEY
from tests.support.inprocess import InProcessTable, WiredShoe, call

pytestmark = pytest.mark.anyio


def item(seq: int) -> StreamItem:
    """A committed input, as the service hands it over."""
    return StreamItem(seq, {"type": "bet"}, "betting", [])


async def taken(subscription: Subscription) -> list[int]:
    """The seqs a subscription yields until its iteration ends (a lag is left to the caller)."""
    return [i.seq async for i in subscription]


async def test_a_subscriber_hears_every_item_in_order_until_it_closes():
    subscribers: set[Subscription] = set()
    s = Subscription(subscribers, maxsize=10)
    for seq in (1, 2, 3):
        s.offer(item(seq))
    s.close()
    assert await taken(s) == [1, 2, 3]  # what was queued before the close is still taken
    assert not subscribers and not s.lagged


async def test_a_waiting_subscriber_wakes_for_the_next_item():
    s = Subscription(set(), maxsize=10)
    waiting = asyncio.ensure_future(anext(s))
    await asyncio.sleep(0)
    assert not waiting.done()
    s.offer(item(7))
    assert (await waiting).seq == 7


async def test_a_slow_subscriber_is_let_go_after_what_it_had_and_hears_nothing_more():
    subscribers: set[Subscription] = set()
    slow = Subscription(subscribers, maxsize=2)
    for seq in (1, 2, 3, 4):  # the third finds the queue full: let go, and the fourth never queued
        slow.offer(item(seq))
    assert slow.lagged and slow not in subscribers
    assert [(await anext(slow)).seq, (await anext(slow)).seq] == [1, 2]
    with pytest.raises(SubscriberLagged):
        await anext(slow)


def test_a_subscription_needs_room_for_one_item():
    with pytest.raises(ValueError, match="maxsize"):
        Subscription(set(), maxsize=0)


async def test_the_service_hands_each_commit_to_every_subscriber_and_a_slow_one_holds_nobody_up(tmp_path: Path):
    async with InProcessTable(tmp_path, seed=3) as t:
        async with t.service.subscribe() as fast, t.service.subscribe(maxsize=1) as slow:
            for box in (1, 2):
                r = await call(t.api, "POST", "/api/actions", DEALER_KEY, json={"type": "bet", "box": box, "amount": 10})
                assert r.status_code == 200, r.text
            heard = [await asyncio.wait_for(anext(fast), scaled(5)), await asyncio.wait_for(anext(fast), scaled(5))]
            assert [(i.event["type"], i.event["box"]) for i in heard] == [("bet", 1), ("bet", 2)]
            assert heard[1].seq == heard[0].seq + 1 == t.service.head()[0]
            assert (await anext(slow)).seq == heard[0].seq  # it had the first; the second found it full
            with pytest.raises(SubscriberLagged):
                await anext(slow)


def test_create_app_wires_no_metrics_into_the_service(tmp_path: Path):
    settings = settings_from_dict({"journal": {"path": str(tmp_path / "j.sqlite")}})
    service = TableService(settings, link=WiredShoe(seed=1))  # never started
    try:
        create_app(service)
        assert service.outputs == (service.lock_output,)  # the app serves the table; it plugs nothing in
        metrics = wire_metrics(service)  # what `tablectl run` does, once
        assert [type(o) for o in service.outputs] == [type(service.lock_output), MetricsOutput]
        assert service.outputs[-1].metrics is metrics  # type: ignore[attr-defined]
    finally:
        service.authority.journal.close()


async def test_the_live_stream_of_a_reader_let_go_says_reset_and_ends():
    from types import SimpleNamespace

    from tablectl.api.stream import events

    subscribers: set[Subscription] = set()

    class Table:  # the service as the stream route reads it
        def subscribe(self) -> Subscription:
            return Subscription(subscribers, maxsize=1)

    viewer = SimpleNamespace(sees_closed_cards=False)
    response = await events(request=None, who=viewer, service=Table(), last_event_id=None)  # type: ignore[arg-type]
    body = response.body_iterator
    assert await anext(body) == b"retry: 1000\n\n"
    (reader,) = subscribers
    for seq in (1, 2):  # the second finds the reader's queue full
        reader.offer(item(seq))
    assert (await anext(body)).startswith(b"id: 1\nevent: table\n")
    assert await anext(body) == b"event: reset\ndata: {}\n\n"
    with pytest.raises(StopAsyncIteration):
        await anext(body)
