"""/metrics in Prometheus's text format, as Prometheus's own parser (prometheus-client's) reads it.

The service writes the format itself (tablectl.metrics), without prometheus-client, to keep the
library out of its memory; this checks what it writes, in-process, against the reference parser.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

from prometheus_client.parser import text_string_to_metric_families

from controller.alerts import AlertKind
from controller.effects import CardPlaced
from tablectl.metrics import MetricsOutput, TableMetrics, _link_lines


def _families(text: str) -> dict[str, object]:
    return {f.name: f for f in text_string_to_metric_families(text)}


def test_every_family_parses_with_its_type_and_samples() -> None:
    m = TableMetrics()
    m.rounds.inc()
    m.hands.inc(3)
    m.cards.inc(1, "box")
    m.cards.inc(1, "box")
    m.alerts.inc(1, "call_pit")
    m.open_alerts.set(2)
    for seconds in (0.0004, 0.0007, 0.03, 7.0):
        m.commit.observe(seconds)
    service = SimpleNamespace(health=SimpleNamespace(link_up=True), cards_received=5, duplicates=1,
                              link=SimpleNamespace(stats=SimpleNamespace(frames=9, bad_frames=2, bad_packets=1,
                                                                         duplicates=1, reconnects=4, naks_sent=2,
                                                                         delivered=7)))
    m.collectors.append(lambda: _link_lines(service))  # type: ignore[arg-type]
    families = _families(m.render().decode())
    types = {name: f.type for name, f in families.items()}  # type: ignore[attr-defined]
    assert types["tablectl_rounds"] == "counter" and types["tablectl_alerts_open"] == "gauge"
    assert types["tablectl_journal_commit_seconds"] == "histogram" and types["tablectl_link_up"] == "gauge"

    def samples(name: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        return {(s.name, tuple(sorted(s.labels.items()))): s.value for s in families[name].samples}  # type: ignore[attr-defined]

    assert samples("tablectl_rounds") == {("tablectl_rounds_total", ()): 1.0}
    assert samples("tablectl_hands")[("tablectl_hands_total", ())] == 3.0
    cards = samples("tablectl_cards")
    assert cards[("tablectl_cards_total", (("to", "box"),))] == 2.0
    assert cards[("tablectl_cards_total", (("to", "burn"),))] == 0.0  # every destination from the start
    alerts = samples("tablectl_alerts")
    assert len(alerts) == len(AlertKind) and alerts[("tablectl_alerts_total", (("kind", "call_pit"),))] == 1.0
    commit = samples("tablectl_journal_commit_seconds")
    assert commit[("tablectl_journal_commit_seconds_bucket", (("le", "0.0005"),))] == 1.0
    assert commit[("tablectl_journal_commit_seconds_bucket", (("le", "0.001"),))] == 2.0  # cumulative
    assert commit[("tablectl_journal_commit_seconds_bucket", (("le", "1.0"),))] == 3.0
    assert commit[("tablectl_journal_commit_seconds_bucket", (("le", "+Inf"),))] == 4.0
    assert commit[("tablectl_journal_commit_seconds_count", ())] == 4.0
    assert math.isclose(commit[("tablectl_journal_commit_seconds_sum", ())], 7.0311)
    frames = samples("tablectl_link_frames")
    assert frames[("tablectl_link_frames_total", (("result", "ok"),))] == 7.0
    assert samples("tablectl_link_reconnects")[("tablectl_link_reconnects_total", ())] == 4.0
    assert samples("tablectl_shoe_cards_received")[("tablectl_shoe_cards_received_total", ())] == 5.0


def test_a_help_text_or_label_with_quotes_backslashes_and_newlines_still_parses() -> None:
    from tablectl.metrics import Counter

    c = Counter("odd", 'help with "quotes", a \\ and a\nnewline', "why")
    c.inc(1, 'a "quoted" \\ value\nover two lines')
    (family,) = text_string_to_metric_families("\n".join(c.lines()) + "\n")
    (sample,) = family.samples
    assert sample.labels == {"why": 'a "quoted" \\ value\nover two lines'} and sample.value == 1.0
    assert family.documentation == 'help with "quotes", a \\ and a\nnewline'


def test_a_club_pack_s_bottom_card_is_not_counted_as_a_box_card() -> None:
    """Issue 24: the bottom card, shown face up under a club pack, was counted as a card dealt to a box."""
    m = TableMetrics()
    table = SimpleNamespace(open_alerts=lambda: [])  # (the output reads the effects and the open alerts' count)
    MetricsOutput(m).handle([CardPlaced("9H", "bottom"), CardPlaced("TS", "box", 1, 0, face_down=True)],
                            table)  # type: ignore[arg-type]
    cards = {tuple(sorted(s.labels.items())): s.value
             for s in _families(m.render().decode())["tablectl_cards"].samples}  # type: ignore[attr-defined]
    assert cards[(("to", "bottom"),)] == 1.0 and cards[(("to", "box"),)] == 1.0
