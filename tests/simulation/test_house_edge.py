"""The simulated house edge agrees with the computed exact value for every built-in profile.

Tolerance: 3.5 standard errors of the simulation (plus 0.02 % for the model's
stated approximations), with every round dealt off a fresh shoe
(reshuffle_every_round = true), as the exact figures assume. The published
values behind the model's figures are in docs/house-edge.md.

The default suite plays 20,000 rounds a profile (the tolerance widens with the
standard error, so it is as sound, only less sharp); the 150,000-round runs are
``slow`` (``./scripts/test -m slow``).
"""

from __future__ import annotations

import pytest
from tests.support.deadlines import scaled
from tests.support.edges import BUILT_IN_EDGE_PCT

from controller.rules import build_rules, profiles
from games.blackjack.simulate import CHUNK_ROUNDS, simulate
from simulators.strategy_edge import house_edge

SHORT_ROUNDS = 20_000
LONG_ROUNDS = 150_000


def _check_edge(profile: str, rounds: int, exact: float) -> None:
    rules = build_rules(profile, {"reshuffle_every_round": True})
    result = simulate(rules, rounds, seed=2026)
    assert abs(result.house_edge_pct - exact) <= 3.5 * result.stderr_pct + 0.02, (result, exact)


@pytest.mark.parametrize("profile", profiles("blackjack"))
def test_simulated_edge_matches_the_exact_value(profile):
    # against the exact edge as pinned (tests/support/edges.py: the analysis itself is checked there, in
    # tests/strategy; computing it here again cost 3-5 s of CPU a profile in every run)
    _check_edge(profile, SHORT_ROUNDS, BUILT_IN_EDGE_PCT[profile])


@pytest.mark.slow
@pytest.mark.parametrize("profile", profiles("blackjack"))
def test_long_simulated_edge_matches_the_exact_value(profile):
    _check_edge(profile, LONG_ROUNDS, 100 * house_edge(build_rules(profile, {"reshuffle_every_round": True})).house_edge)


def test_simulation_is_deterministic_for_a_seed():
    rules = build_rules("ru-standard")
    a = simulate(rules, 3000, seed=9)
    b = simulate(rules, 3000, seed=9)
    c = simulate(rules, 3000, seed=10)
    assert (a.house_edge_pct, a.hands) == (b.house_edge_pct, b.hands)
    assert (a.house_edge_pct, a.hands) != (c.house_edge_pct, c.hands)


def test_simulate_cli_prints_the_documented_fields():
    import json
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "tablectl.cli", "simulate", "--rules", "us-holecard",
                          "--rounds", "2000", "--seed", "3", "--json"], capture_output=True, text=True, timeout=scaled(120))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["rounds"] == 2000
    assert {"house_edge_pct", "stderr_pct", "rounds_per_second"} <= doc.keys()
    bad = subprocess.run([sys.executable, "-m", "tablectl.cli", "simulate", "--rules", "nope"],
                         capture_output=True, text=True, timeout=scaled(60))
    assert bad.returncode == 2 and "unknown rule profile" in bad.stderr and "Traceback" not in bad.stderr


def test_same_result_whatever_the_number_of_workers():
    """--workers N: chunks seeded from (seed, chunk) and added in chunk order, so N changes nothing."""
    rules = build_rules("ru-surrender")
    done: list[int] = []
    runs = [simulate(rules, 5000, seed=4, workers=n, chunk_rounds=1000, progress=done.append).as_dict()
            for n in (1, 2)]
    for run in runs:
        del run["rounds_per_second"]  # the machine's speed, not the result: benchmarks/ measure it
    assert runs[1].pop("workers") == 2 and runs[0].pop("workers") == 1
    assert runs[0] == runs[1] and runs[0]["rounds"] == 5000
    assert done == [1000, 2000, 3000, 4000, 5000] * 2
    other = simulate(rules, 5000, seed=5, workers=2, chunk_rounds=1000).as_dict()
    assert other["house_edge_pct"] != runs[0]["house_edge_pct"]


@pytest.mark.long
def test_simulate_cli_workers_and_no_progress_bar_off_a_terminal():
    import json
    import subprocess
    import sys
    runs = []
    for workers in ("1", "2"):
        # Two chunks (one full, one short): with two workers each plays one.
        out = subprocess.run([sys.executable, "-m", "tablectl.cli", "simulate", "--rounds", str(CHUNK_ROUNDS + 10_000),
                              "--seed", "3", "--workers", workers, "--json"], capture_output=True, text=True, timeout=scaled(300))
        assert out.returncode == 0 and out.stderr == "", out.stderr  # stderr is a pipe: no bar
        doc = json.loads(out.stdout)
        assert doc.pop("workers") == int(workers)
        del doc["rounds_per_second"]  # the machine's speed, not the result: benchmarks/ measure it
        runs.append(doc)
    assert runs[0] == runs[1]


def test_a_seed_gives_the_figures_it_always_gave() -> None:
    # Pinned: a refactor of the simulated shoe (its one card draw, its packs) must deal the same cards.
    result = simulate(build_rules("ru-standard", {"decks": 2}), 4000, seed=3, boxes=3, chunk_rounds=1000)
    assert (result.house_edge_pct, result.stderr_pct, result.hands) == pytest.approx((1.0667, 1.3747, 12342), abs=5e-5)
