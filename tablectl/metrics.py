"""Prometheus metrics of one table, served at GET /metrics in Prometheus's text format.

Counted as the table decides (``MetricsOutput``, one of the service's outputs):
rounds, cards by destination, alerts by kind. Sampled at scrape time: the shoe
link's counters (frames by result, reconnects) from ``service.link.stats``.
Timed (the output's ``committed`` and ``published``, which the service calls): the journal's
commit, and the card-to-display latency (from the card reaching ``TableService._submit`` until
every output, the displays included, has handled it and the live stream has it).
Wired once by the composition root (``tablectl run``: ``wire_metrics``), served by the API it is
given to (``create_app(service, metrics=...)``).
Labels are few and bounded (kinds, results, destinations); never a round or a shoe id.

The few counters, one gauge and two histograms are kept here and written in the text format
(version 0.0.4) by ``render``, without prometheus-client: that library (its registry, its
exposition module and the urllib, http.server and wsgiref it brings) was 1.4 MB of the
service's RSS at READY (benchmarks/rss.py), more than the rest of the API's own code.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from fastapi import FastAPI
from fastapi.responses import Response

from controller import events as ev
from controller import registry
from controller.alerts import AlertKind
from controller.effects import AlertRaised, CardPlaced, Effect, RoundSettled
from controller.engine import Table

from tablectl.web.auth import Viewer

if TYPE_CHECKING:  # pragma: no cover
    from tablectl.service import TableService

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Where the engine places a card (controller.effects.CardPlaced.to): each game says where it does
# (`Game.card_destinations`), and the table holds or discards a card in every game.
_TABLE_DESTINATIONS = ("held", "discard")


def card_destinations() -> tuple[str, ...]:
    """Every place a card may go, in every loaded game (the table's, loaded by its rules before its metrics are
    made), each once: the games', then the table's own."""
    games = (d for e in registry.loaded() for d in e.game.card_destinations)
    return tuple(dict.fromkeys((*games, *_TABLE_DESTINATIONS)))
_LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


def _number(value: float) -> str:
    """A sample's value as the text format writes it (``+Inf``, ``NaN``, ``1.0``)."""
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    return repr(float(value))


def _escape(text: str, quote: bool = False) -> str:
    """`text` escaped for a HELP line (backslash, newline), or for a label's value (and the double quote)."""
    text = text.replace("\\", "\\\\").replace("\n", "\\n")
    return text.replace('"', '\\"') if quote else text


def _family(name: str, kind: str, help_: str, samples: Iterable[tuple[str, dict[str, str], float]]) -> Iterator[str]:
    """One metric family's lines: HELP, TYPE, then each (suffix, labels, value) sample."""
    yield f"# HELP {name} {_escape(help_)}"
    yield f"# TYPE {name} {kind}"
    for suffix, labels, value in samples:
        text = ",".join(f'{k}="{_escape(v, quote=True)}"' for k, v in labels.items())
        yield f"{name}{suffix}{{{text}}} {_number(value)}" if text else f"{name}{suffix} {_number(value)}"


class Counter:
    """A counter, with one label or none; each label value starts at zero when first named."""

    def __init__(self, name: str, help_: str, label: str | None = None) -> None:
        self.name, self.help, self.label = name, help_, label
        self.values: dict[str, float] = {} if label else {"": 0.0}

    def inc(self, amount: float = 1.0, label: str = "") -> None:
        """Add `amount` (for `label`'s value, when the counter has a label)."""
        self.values[label] = self.values.get(label, 0.0) + amount

    def lines(self) -> Iterator[str]:
        """The family, written as prometheus-client writes a counter (``NAME_total``)."""
        return _family(self.name + "_total", "counter", self.help,
                       (("", {self.label: k} if self.label else {}, v) for k, v in self.values.items()))


class Gauge:
    """A gauge without labels."""

    def __init__(self, name: str, help_: str) -> None:
        self.name, self.help, self.value = name, help_, 0.0

    def set(self, value: float) -> None:
        """Set it."""
        self.value = float(value)

    def lines(self) -> Iterator[str]:
        """The family."""
        return _family(self.name, "gauge", self.help, [("", {}, self.value)])


class Histogram:
    """A histogram with fixed buckets (upper bounds, seconds), without labels."""

    def __init__(self, name: str, help_: str, buckets: tuple[float, ...]) -> None:
        self.name, self.help, self.bounds = name, help_, buckets
        self.counts = [0] * (len(buckets) + 1)  # the last one: above every bound (+Inf)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        """Count one observation."""
        self.sum += value
        for i, bound in enumerate(self.bounds):
            if value <= bound:
                self.counts[i] += 1
                return
        self.counts[-1] += 1

    def lines(self) -> Iterator[str]:
        """The family: cumulative buckets, then the count and the sum."""
        samples: list[tuple[str, dict[str, str], float]] = []
        total = 0
        for bound, count in zip((*self.bounds, math.inf), self.counts):
            total += count
            samples.append(("_bucket", {"le": _number(bound)}, total))
        samples += [("_count", {}, total), ("_sum", {}, self.sum)]
        return _family(self.name, "histogram", self.help, samples)


class TableMetrics:
    """The table's metrics, each service its own (so several services can live in one process, as in tests)."""

    def __init__(self) -> None:
        self.rounds = Counter("tablectl_rounds", "Rounds settled (voided ones included)")
        self.rounds_void = Counter("tablectl_rounds_voided", "Rounds voided by a supervisor")
        self.hands = Counter("tablectl_hands", "Hands settled")
        self.cards = Counter("tablectl_cards", "Cards placed by the engine, by destination", "to")
        self.alerts = Counter("tablectl_alerts", "Alerts raised, by kind", "kind")
        self.open_alerts = Gauge("tablectl_alerts_open", "Alerts on the board now")
        self.commit = Histogram("tablectl_journal_commit_seconds", "Time to commit one event to the journal",
                                _LATENCY_BUCKETS)
        self.latency = Histogram("tablectl_card_to_display_seconds",
                                 "From a card reaching the service to every output (displays, stream) having it",
                                 _LATENCY_BUCKETS)
        self.destinations = card_destinations()
        for to in self.destinations:  # every label shown from the start, at zero
            self.cards.inc(0, to)
        for kind in AlertKind:
            self.alerts.inc(0, kind.value)
        self.collectors: list[Callable[[], Iterable[str]]] = []  # sampled at scrape time

    def render(self) -> bytes:
        """The exposition text."""
        lines: list[str] = []
        for metric in (self.rounds, self.rounds_void, self.hands, self.cards, self.alerts, self.open_alerts,
                       self.commit, self.latency):
            lines += metric.lines()
        for collect in self.collectors:
            lines += collect()
        return ("\n".join(lines) + "\n").encode()


class MetricsOutput:
    """An Output: counts rounds, hands, cards and alerts from the engine's effects; times the journal's
    commits and each card from the service taking it to every output and reader having it."""

    def __init__(self, metrics: TableMetrics) -> None:
        self.metrics = metrics

    def committed(self, seconds: float) -> None:
        """The journal committed a write that took `seconds`."""
        self.metrics.commit.observe(seconds)

    def published(self, event: ev.Event, seconds: float) -> None:
        """`event` reached every output and the live stream `seconds` after the service took it."""
        if isinstance(event, ev.CardDrawn):
            self.metrics.latency.observe(seconds)

    def handle(self, effects: list[Effect], table: Table) -> None:
        """Count what this input decided (never blocks, never raises on odd effects)."""
        m = self.metrics
        for effect in effects:
            # type(effect) itself, not a local holding it: mypy narrows `effect` only on the former.
            if type(effect) is CardPlaced:
                to = effect.to if effect.to in m.destinations else "other"  # never taken for a box's card
                m.cards.inc(1, to)
            elif type(effect) is RoundSettled:
                m.rounds.inc()
                r = effect.round  # (not .result: the record is built lazily)
                m.hands.inc(sum(len(box.hands) for box in r.boxes))
                if getattr(r, "voided", False):
                    m.rounds_void.inc()
            elif type(effect) is AlertRaised:
                m.alerts.inc(1, effect.alert.kind.value)
        m.open_alerts.set(len(table.open_alerts()))


def _link_lines(service: "TableService") -> Iterator[str]:
    """The shoe link's counters, read at scrape time from ``service.link.stats`` (a LinkStats)."""
    yield from _family("tablectl_link_up", "gauge", "1 while the shoe link is up",
                       [("", {}, 1.0 if service.health.link_up else 0.0)])
    try:
        stats = getattr(service.link, "stats", None)  # a link may count what crossed it (not the service's port)
    except Exception:  # no session yet
        stats = None
    if stats is not None:
        good = max(0, getattr(stats, "frames", 0) - getattr(stats, "bad_frames", 0))
        yield from _family("tablectl_link_frames_total", "counter", "Link frames received, by result", [
            ("", {"result": "ok"}, good),
            ("", {"result": "bad_frame"}, getattr(stats, "bad_frames", 0)),
            ("", {"result": "bad_packet"}, getattr(stats, "bad_packets", 0)),
            ("", {"result": "duplicate"}, getattr(stats, "duplicates", 0))])
        for name, help_, field in (("tablectl_link_reconnects", "Shoe link reconnects", "reconnects"),
                                   ("tablectl_link_naks_sent", "NAKs sent to the shoe", "naks_sent"),
                                   ("tablectl_link_delivered", "Messages delivered by the link", "delivered")):
            yield from _family(name + "_total", "counter", help_, [("", {}, getattr(stats, field, 0))])
    yield from _family("tablectl_shoe_cards_received_total", "counter",
                       "Card messages from the shoe (duplicates included)", [("", {}, service.cards_received)])
    yield from _family("tablectl_shoe_duplicate_cards_total", "counter",
                       "Cards the shoe sent again that were stored already", [("", {}, service.duplicates)])


def wire_metrics(service: "TableService") -> TableMetrics:
    """The table's metrics, made and plugged into `service` (an output that counts and times; the link's
    counters read at scrape time). Called once, by the composition root (`tablectl run`), before it serves
    them (`mount_metrics`)."""
    metrics = TableMetrics()
    metrics.collectors.append(lambda: _link_lines(service))
    service.add_output(MetricsOutput(metrics))
    return metrics


def mount_metrics(app: FastAPI, metrics: TableMetrics) -> None:
    """Serve `metrics` at GET /metrics (a key, or loopback where reads are open)."""

    @app.get("/metrics", include_in_schema=False)
    async def get_metrics(who: Viewer) -> Response:  # a key, or loopback where reads are open
        return Response(metrics.render(), media_type=CONTENT_TYPE)
