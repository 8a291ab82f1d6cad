"""The computed house edges of the built-in blackjack profiles, in % (docs/house-edge.md), pinned once.

``BUILT_IN_EDGE_PCT``: the expectation of each profile's basic strategy off the top of a fresh shoe,
as `simulators.strategy_edge.house_edge` computes it (resplits approximated: each split hand sees the
shoe less the pair and the up card only): `tests/strategy/test_house_edge.py` checks the
computation gives these (one profile in the default suite, every one under ``slow``: the analysis
takes 3-5 s of CPU a profile), and the simulation is checked against them
(`tests/simulation/test_house_edge.py`).

``EXACT_EDGE_PCT``: the same expectation with resplits valued exactly, as the exact analyser
(`simulators.exact.analyse`, basic strategy) gives it (`tests/strategy/test_exact.py`). The two differ
only where a pair may be split again (ru-standard, ru-surrender, us-holecard: splits to four hands).
A change here must be explained in docs/house-edge.md.
"""

from __future__ import annotations

BUILT_IN_EDGE_PCT: dict[str, float] = {
    "ru-standard": 0.4047,
    "ru-surrender": -0.2290,
    "us-holecard": 0.0004,
    "single-deck-enhc": 0.7172,
}

EXACT_EDGE_PCT: dict[str, float] = {
    "ru-standard": 0.4036,
    "ru-surrender": -0.2302,
    "us-holecard": -0.0006,
    "single-deck-enhc": 0.7172,
}
