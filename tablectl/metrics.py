"""Prometheus metrics of one table (prometheus-client), served at GET /metrics.

Counted as the table decides (``MetricsOutput``, one of the service's outputs):
rounds, cards by destination, alerts by kind. Sampled at scrape time: the shoe
link's counters (frames by result, reconnects) from ``service.link.stats``.
Timed: the journal's commit (a wrapper around ``Journal.append``) and the
card-to-display latency (from the card reaching ``TableService.submit`` until
every output, the displays included, has handled it and the live stream has it).
Labels are few and bounded (kinds, results, destinations); never a round or a shoe id.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Iterable

from fastapi import FastAPI
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from controller import events as ev
from controller.alerts import AlertKind
from controller.effects import AlertRaised, CardPlaced, Effect, RoundSettled
from controller.engine import Table

from tablectl.api.auth import Viewer

if TYPE_CHECKING:  # pragma: no cover
    from tablectl.service import TableService

_CARD_DESTINATIONS = ("box", "dealer", "burn", "held", "discard")
_LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


class TableMetrics:
    """The table's metrics in their own registry (so several services can live in one process, as in tests)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.rounds = Counter("tablectl_rounds", "Rounds settled (voided ones included)", registry=r)
        self.rounds_void = Counter("tablectl_rounds_voided", "Rounds voided by a supervisor", registry=r)
        self.hands = Counter("tablectl_hands", "Hands settled", registry=r)
        self.cards = Counter("tablectl_cards", "Cards placed by the engine, by destination",
                             ["to"], registry=r)
        self.alerts = Counter("tablectl_alerts", "Alerts raised, by kind", ["kind"], registry=r)
        self.open_alerts = Gauge("tablectl_alerts_open", "Alerts on the board now", registry=r)
        self.commit = Histogram("tablectl_journal_commit_seconds", "Time to commit one event to the journal",
                                buckets=_LATENCY_BUCKETS, registry=r)
        self.latency = Histogram("tablectl_card_to_display_seconds",
                                 "From a card reaching the service to every output (displays, stream) having it",
                                 buckets=_LATENCY_BUCKETS, registry=r)
        for to in _CARD_DESTINATIONS:  # every label shown from the start, at zero
            self.cards.labels(to)
        for kind in AlertKind:
            self.alerts.labels(kind.value)

    def render(self) -> bytes:
        """The exposition text."""
        return generate_latest(self.registry)


class MetricsOutput:
    """An Output: counts rounds, hands, cards and alerts from the engine's effects."""

    def __init__(self, metrics: TableMetrics) -> None:
        self.metrics = metrics

    def handle(self, effects: list[Effect], table: Table) -> None:
        """Count what this input decided (never blocks, never raises on odd effects)."""
        m = self.metrics
        for effect in effects:
            # type(effect) itself, not a local holding it: mypy narrows `effect` only on the former.
            if type(effect) is CardPlaced:
                to = effect.to if effect.to in _CARD_DESTINATIONS else "box"
                m.cards.labels(to).inc()
            elif type(effect) is RoundSettled:
                m.rounds.inc()
                r = effect.round  # (not .result: the record is built lazily)
                m.hands.inc(sum(len(box.hands) for box in r.boxes))
                if getattr(r, "voided", False):
                    m.rounds_void.inc()
            elif type(effect) is AlertRaised:
                m.alerts.labels(effect.alert.kind.value).inc()
        m.open_alerts.set(len(table.open_alerts()))


class _LinkCollector:
    """The shoe link's counters, read at scrape time from ``service.link.stats`` (a LinkStats)."""

    def __init__(self, service: "TableService") -> None:
        self.service = service

    def describe(self) -> Iterable[Any]:
        return []

    def collect(self) -> Iterable[Any]:
        service = self.service
        up = GaugeMetricFamily("tablectl_link_up", "1 while the shoe link is up")
        up.add_metric([], 1.0 if service.health.link_up else 0.0)
        yield up
        try:
            stats = service.link.stats
        except Exception:  # no session yet, or a link without counters
            stats = None
        if stats is not None:
            frames = CounterMetricFamily("tablectl_link_frames", "Link frames received, by result", labels=["result"])
            good = max(0, getattr(stats, "frames", 0) - getattr(stats, "bad_frames", 0))
            frames.add_metric(["ok"], good)
            frames.add_metric(["bad_frame"], getattr(stats, "bad_frames", 0))
            frames.add_metric(["bad_packet"], getattr(stats, "bad_packets", 0))
            frames.add_metric(["duplicate"], getattr(stats, "duplicates", 0))
            yield frames
            for name, help_, field in (("tablectl_link_reconnects", "Shoe link reconnects", "reconnects"),
                                       ("tablectl_link_naks_sent", "NAKs sent to the shoe", "naks_sent"),
                                       ("tablectl_link_delivered", "Messages delivered by the link", "delivered")):
                c = CounterMetricFamily(name, help_)
                c.add_metric([], getattr(stats, field, 0))
                yield c
        cards = CounterMetricFamily("tablectl_shoe_cards_received", "Card messages from the shoe (duplicates included)")
        cards.add_metric([], service.cards_received)
        yield cards
        dup = CounterMetricFamily("tablectl_shoe_duplicate_cards", "Cards the shoe sent again that were stored already")
        dup.add_metric([], service.duplicates)
        yield dup


def mount_metrics(app: FastAPI, service: "TableService") -> TableMetrics:
    """Plug the metrics into the service (output, timing hooks) and serve them at GET /metrics."""
    metrics = getattr(service, "metrics", None)
    if not isinstance(metrics, TableMetrics):
        metrics = TableMetrics()
        metrics.registry.register(_LinkCollector(service))
        service.metrics = metrics  # type: ignore[attr-defined]  # TableService has no such field: a later mount finds it by getattr
        service.outputs.append(MetricsOutput(metrics))
        _time_journal(service, metrics)

        def observe(event: ev.Event, seconds: float) -> None:
            if isinstance(event, ev.CardDrawn):
                metrics.latency.observe(seconds)

        service.observe = observe

    @app.get("/metrics", include_in_schema=False)
    async def get_metrics(who: Viewer) -> Response:  # a key, or loopback where reads are open
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    return metrics


def _time_journal(service: "TableService", metrics: TableMetrics) -> None:
    journal = service.authority.journal
    journal.commit_timer = time.perf_counter  # the metrics' own clock, passed to the journal (which reads none)
    journal.on_commit = metrics.commit.observe
