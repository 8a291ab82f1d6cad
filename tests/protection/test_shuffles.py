"""The bad shuffles of the virtual shoe: the --shuffle parser, each shuffle, and the shoe that shuffles badly on purpose."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter

import pytest

from simulators.shoe.core import Released, ShoeConfig, ShoeCore
from simulators.shoe.deck import shuffled_shoe
from simulators.shuffles import (
    BadShuffle,
    ShuffleKind,
    ShuffleSpec,
    false_slug,
    parse_shuffle,
    riffle,
    shuffle,
    strip,
    zone_shuffle,
)
from tests.support.deadlines import scaled


@pytest.mark.parametrize(("text", "spec"), [
    ("fair", ShuffleSpec()),
    ("false-slug:20", ShuffleSpec(ShuffleKind.FALSE_SLUG, 20)),
    ("Riffle:3", ShuffleSpec(ShuffleKind.RIFFLE, 3)),
    ("strip", ShuffleSpec(ShuffleKind.STRIP)),
    (" zone ", ShuffleSpec(ShuffleKind.ZONE)),
])
def test_specs_read(text: str, spec: ShuffleSpec) -> None:
    assert parse_shuffle(text) == spec
    assert parse_shuffle(str(spec)) == spec


@pytest.mark.parametrize(("text", "message"), [
    ("wash", "unknown shuffle 'wash': use fair, false-slug:N"),
    ("riffle", "shuffle 'riffle' needs a whole number, e.g. riffle:3"),
    ("riffle:two", "needs a whole number"),
    ("riffle:0", "riffle:N takes N from 1 to 20, got 'riffle:0'"),
    ("riffle:21", "from 1 to 20"),
    ("false-slug:1", "false-slug:N takes N at least 2"),
    ("false-slug:-5", "needs a whole number"),
    ("strip:3", "shuffle 'strip' takes no number"),
    ("", "unknown shuffle ''"),
])
def test_bad_specs_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(BadShuffle) as caught:
        parse_shuffle(text)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_every_shuffle_keeps_the_cards() -> None:
    pile = list(range(312))
    rng = random.Random(1)
    for spec in ("fair", "false-slug:20", "riffle:2", "strip", "zone"):
        assert sorted(shuffle(parse_shuffle(spec), pile, rng)) == pile, spec
    assert sorted(riffle(pile, rng)) == sorted(strip(pile, rng)) == sorted(zone_shuffle(pile, rng)) == pile


def test_a_false_slug_keeps_its_block_where_it_is_dealt() -> None:
    pile = list(range(312))
    discards = pile[:234]
    for seed in range(20):
        new, at = false_slug(pile, discards, 20, random.Random(seed), within=233)
        block = new[at:at + 20]
        assert block == list(range(block[0], block[0] + 20)) and block[-1] < 234
        assert at + 20 <= 233


def test_one_riffle_leaves_two_rising_sequences() -> None:
    for seed in range(10):
        new = riffle(list(range(52)), random.Random(seed))
        where = {card: i for i, card in enumerate(new)}
        rising = 1 + sum(1 for card in range(51) if where[card + 1] < where[card])
        assert rising <= 2


def deal_all(core: ShoeCore) -> list[str]:
    out = []
    while isinstance(released := core.deal(), Released):
        out.append(released.card)
    return out


def test_the_virtual_shoe_deals_a_slug_of_its_previous_shoe() -> None:
    core = ShoeCore(ShoeConfig(seed=3, shuffle=parse_shuffle("false-slug:20")), random.Random(0), 0.0)
    core.load()
    first = [core.deal() for _ in range(234)]
    dealt = [r.card for r in first if isinstance(r, Released)]
    core.load()
    second = deal_all(core)
    assert Counter(second) == Counter(shuffled_shoe(3, 2, 6))
    runs = [i for i in range(len(second) - 19) if any(second[i:i + 20] == dealt[j:j + 20] for j in range(215))]
    assert runs and runs[0] + 20 <= 233  # the slug comes out before the cut card


def test_fair_stays_the_seeded_shoe() -> None:
    """The default shuffle deals what the virtual shoe always dealt (recorded logs and tests still hold)."""
    core = ShoeCore(ShoeConfig(seed=5, decks=2), random.Random(0), 0.0)
    for number in (1, 2, 3):
        core.load()
        assert deal_all(core) == shuffled_shoe(5, number, 2)


def test_shoe_sim_refuses_a_bad_shuffle() -> None:
    cmd = [sys.executable, "-m", "tablectl.cli", "shoe-sim", "--pty", "--shuffle", "riffle:x"]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(30), stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    assert "needs a whole number" in result.stderr and "Traceback" not in result.stderr
