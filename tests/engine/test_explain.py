"""One explainer (controller.explain) says every pydantic refusal in one line naming the field.

The rule options, events and snapshots of the engine say their faults in their own words through
it; these pin those words (the service's config and the floor's wire messages: tests/service,
tests/fleet/test_wire.py).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from controller import snapshot
from controller.errors import SnapshotError
from controller.events import BadEvent
from controller.event_codec import parse_event
from controller.explain import explain, faults
from controller.rules import RuleError, build_rules, option_names
from games.blackjack.snapshot import RoundState


def _event_error(data: object) -> tuple[str, str]:
    with pytest.raises(BadEvent) as caught:
        parse_event(data)
    return caught.value.code, caught.value.message


def test_an_unknown_event_names_each_known_type_once() -> None:
    code, message = _event_error({"type": "nope"})
    known = message.removeprefix("'nope' is not a table event (known: ").removesuffix(")").split(", ")
    assert code == "unknown_event" and known[:3] == ["rules", "shuffle", "bet"]
    assert len(known) == len(set(known)), message
    assert {"stand", "split", "dark", "banker_stand", "withdraw"} <= set(known)


@pytest.mark.parametrize(("data", "code", "message"), [
    ({}, "unknown_event", "the event has no 'type'"),
    ({"type": "bet"}, "missing_field", "'bet' needs 'box'"),
    ({"type": "bet", "box": 1, "amount": "10", "x": 1}, "unknown_field", "'x' is not a field of 'bet'"),
    ({"type": "bet", "box": 1, "amount": "-5"}, "bad_field", "amount: Input should be greater than 0"),
    ({"type": "card", "card": "ZZ"}, "bad_field",
     "card: 'ZZ' is not a card: use rank A,2-9,T,J,Q,K then suit S,H,D,C (e.g. AS, TD, 7H)"),
])
def test_an_event_names_what_is_wrong(data: dict[str, object], code: str, message: str) -> None:
    assert _event_error(data) == (code, message)


@pytest.mark.parametrize(("options", "message"), [
    ({"decks": 0}, "rule option 'decks' = 0: Input should be greater than or equal to 1"),
    ({"peek": "x"}, "rule option 'peek' = 'x' is not allowed; use 'none', 'ace' or 'ace_ten'"),
    ({"table_min": 100, "table_max": 10}, "table_min must not exceed table_max"),
    ({"bogus": 1, "decks": "x"}, "rule option 'decks' = 'x': Input should be a valid integer, unable to parse string "
     "as an integer; unknown rule option 'bogus' (known: " + ", ".join(option_names()) + ")"),
])
def test_a_rule_option_names_what_is_wrong(options: dict[str, object], message: str) -> None:
    with pytest.raises(RuleError) as caught:
        build_rules("ru-standard", options)
    assert str(caught.value) == message


def test_a_snapshot_names_the_first_three_faults_and_counts_the_rest() -> None:
    data = {"format": snapshot.FORMAT, "held": ["ZZ"], "now": "yesterday"}
    with pytest.raises(SnapshotError) as caught:
        snapshot.validate(data)
    text = str(caught.value)
    assert text.startswith("malformed table snapshot: ") and text.endswith(" more)") and text.count("; ") == 2
    with pytest.raises(SnapshotError, match=r"^malformed table snapshot: round: Input should be a valid dictionary"):
        snapshot.check(RoundState, 5, "round")


def test_the_explainer_says_where_and_what_plainly() -> None:
    with pytest.raises(ValidationError) as caught:
        RoundState.model_validate({"bogus": 1})
    exc = caught.value
    found = faults(exc, "round", prefix=("round",))
    assert len(found) > 1 and all(f.where.startswith("round.") for f in found)
    assert all(not f.message.startswith("Value error, ") for f in found)
    said = explain(exc, "round", prefix=("round",), first=1, more=" +{}")
    assert said == f"{found[0].where}: {found[0].message} +{len(found) - 1}"
