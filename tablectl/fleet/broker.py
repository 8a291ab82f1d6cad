"""The one boundary to the MQTT broker: settings, connecting, and every broker error translated here.

aiomqtt (on paho-mqtt) speaks MQTT 5 to the broker; nothing outside this
module imports either. Every failure of the broker or the network, whatever
shape the library gives it, leaves this module as :class:`BrokerUnavailable`;
a setting that cannot work (an unreadable certificate) as
:class:`FleetConfigError`.
"""

from __future__ import annotations

import asyncio

import logging
import ssl
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import AsyncIterator

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from . import BrokerUnavailable, FleetConfigError, SubscriptionRefused
from .settings import BrokerSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Will:
    """What the broker publishes for us if we vanish without saying goodbye."""

    topic: str
    payload: bytes
    retain: bool = True


def _tls_context(s: BrokerSettings) -> ssl.SSLContext | None:
    if not s.tls:
        return None
    try:
        ctx = ssl.create_default_context(cafile=s.ca_file or None)
        if s.cert_file:
            ctx.load_cert_chain(s.cert_file, s.key_file or None)
    except (OSError, ssl.SSLError) as exc:
        raise FleetConfigError(f"broker TLS files: {exc}") from None
    return ctx


def _password(s: BrokerSettings) -> str | None:
    if not s.password_file:
        return None
    try:
        with open(s.password_file, encoding="utf-8") as f:
            return f.read(4096).strip()
    except OSError as exc:
        raise FleetConfigError(f"broker password_file {s.password_file}: {exc.strerror}") from None


# MQTT 5's SUBACK reason codes that refuse (3.9.3), as an operator reads them.
REFUSALS = {0x80: "unspecified error", 0x83: "implementation specific error", 0x87: "not authorized",
            0x8F: "topic filter invalid", 0x91: "packet identifier in use", 0x97: "quota exceeded",
            0x9E: "shared subscriptions not supported", 0xA1: "subscription identifiers not supported",
            0xA2: "wildcard subscriptions not supported"}


def granted(topics: list[str], codes: list[int], client_id: str) -> None:
    """SubscriptionRefused, naming each filter refused and why, unless the broker granted every one of `topics`."""
    refused = [f"{t} ({REFUSALS.get(c, 'refused')}, 0x{c:02X})" for t, c in zip(topics, codes) if c >= 0x80]
    if len(codes) != len(topics):
        refused.append(f"{len(topics)} filters asked, {len(codes)} answered")
    if refused:
        raise SubscriptionRefused(f"the broker refused client {client_id} the subscription to {', '.join(refused)}")


def check(settings: BrokerSettings) -> None:
    """Raise FleetConfigError now for TLS files or a password file that cannot be read."""
    _tls_context(settings)
    _password(settings)


class Connection:
    """One live connection to the broker (only inside :func:`connect`)."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self._client = client

    async def publish(self, topic: str, payload: bytes, *, qos: int = 1, retain: bool = False,
                      timeout: float = 10.0) -> None:
        """Publish and, at QoS 1, wait for the broker's PUBACK; BrokerUnavailable on any failure."""
        try:
            await self._client.publish(topic, payload, qos=qos, retain=retain, timeout=timeout)
        except aiomqtt.MqttError as exc:
            raise BrokerUnavailable(f"publish to {topic}: {exc}") from None

    async def subscribe(self, topics: list[str], qos: int = 1) -> list[int]:
        """Subscribe to every topic filter in `topics`; the broker's answer, one reason code a filter, in order
        (MQTT 5's SUBACK: the QoS granted, 0 to 2, or a refusal, 0x80 and above: 0x87 not authorized)."""
        try:
            codes = await self._client.subscribe([(t, qos) for t in topics])
        except aiomqtt.MqttError as exc:
            raise BrokerUnavailable(f"subscribe: {exc}") from None
        return [int(c.value) if hasattr(c, "value") else int(c) for c in codes]

    async def unsubscribe(self, topics: list[str]) -> None:
        """Drop these subscriptions (one the session does not have is no error)."""
        try:
            await self._client.unsubscribe(topics)
        except aiomqtt.MqttError as exc:
            raise BrokerUnavailable(f"unsubscribe: {exc}") from None

    async def messages(self) -> AsyncIterator[aiomqtt.Message]:
        """Every message the broker delivers, until the connection breaks (then BrokerUnavailable)."""
        try:
            async for message in self._client.messages:
                yield message
        except aiomqtt.MqttError as exc:
            raise BrokerUnavailable(f"connection lost: {exc}") from None

    @property
    def lost(self) -> bool:
        """The connection has ended (the broker went away or closed it)."""
        return _disconnection(self._client).done()

    def pending(self) -> int:
        """Messages received and not yet taken from the queue."""
        return len(self._client.messages)

    def ack(self, message: aiomqtt.Message) -> None:
        """Acknowledge a QoS 1 message (with manual acks): the broker may forget it now."""
        if message.qos > 0:
            # paho runs in this event loop's thread (aiomqtt's socket callbacks), so this is safe here.
            self._client._client.ack(message.mid, message.qos)  # noqa: SLF001 - aiomqtt has no public manual ack


@asynccontextmanager
async def connect(settings: BrokerSettings, identifier: str, *, will: Will | None = None,
                  clean_start: bool = True, session_expiry: int = 0, manual_ack: bool = False,
                  receive_maximum: int | None = None, max_packet: int | None = None,
                  timeout: float = 10.0) -> AsyncIterator[Connection]:
    """A connection to the broker as `identifier` (MQTT 5), closed on leaving the block.

    `clean_start=False` with a `session_expiry` keeps our subscriptions and queued
    QoS 1 messages at the broker while we are away. With `manual_ack`, a message is
    acknowledged only by :meth:`Connection.ack`, so one received but not yet stored
    is sent again after a crash.
    """
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = session_expiry
    if receive_maximum:
        props.ReceiveMaximum = receive_maximum
    if max_packet:
        props.MaximumPacketSize = max_packet
    aio_will = None
    if will is not None:
        aio_will = aiomqtt.Will(will.topic, will.payload, qos=1, retain=will.retain)
    client = aiomqtt.Client(
        settings.host, settings.port, identifier=identifier, protocol=aiomqtt.ProtocolVersion.V5,
        username=settings.username or None, password=_password(settings), will=aio_will,
        clean_start=clean_start, properties=props, keepalive=settings.keepalive, timeout=timeout,
        tls_context=_tls_context(settings), logger=logging.getLogger("tablectl.fleet.mqtt"),
        max_inflight_messages=100)
    client.pending_calls_threshold = 10_000  # we keep a bounded window in flight on purpose
    if manual_ack:
        client._client.manual_ack_set(True)  # noqa: SLF001 - see Connection.ack
    try:
        async with client:
            yield Connection(client)
    except aiomqtt.MqttError as exc:
        raise BrokerUnavailable(f"broker {settings.url}: {exc}") from None
    finally:
        # aiomqtt keeps an unexpected disconnection in a future that nobody reads if nothing was sent
        # after it; asyncio then logs "Future exception was never retrieved" as an ERROR. The loss is
        # ours to report (BrokerUnavailable, once, by the caller), so it is read here and let go.
        ended = _disconnection(client)
        if ended.done() and not ended.cancelled():
            ended.exception()


def _disconnection(client: aiomqtt.Client) -> "asyncio.Future[None]":
    """aiomqtt's future of the connection's end (it has no public name for it)."""
    return client._disconnected  # noqa: SLF001
