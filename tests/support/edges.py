"""The computed exact house edges of the built-in blackjack profiles, in % (docs/house-edge.md), pinned once.

The expectation of each profile's basic strategy off the top of a fresh shoe, as
`simulators.strategy_edge.house_edge` computes it: `tests/strategy/test_house_edge.py` checks the
computation gives these (one profile in the default suite, every one under ``slow``: the analysis
takes 3-5 s of CPU a profile), and the simulation is checked against them
(`tests/simulation/test_house_edge.py`). A change here must be explained in docs/house-edge.md.
"""

from __future__ import annotations

BUILT_IN_EDGE_PCT: dict[str, float] = {
    "ru-standard": 0.4047,
    "ru-surrender": -0.2290,
    "us-holecard": 0.0004,
    "single-deck-enhc": 0.7172,
}
