"""The scoreboard's roads on a worked shoe, derived by hand from the roads' published rules (the scoreboard
module's docstring states them; docs/baccarat.md cites them), cell by cell."""

from __future__ import annotations

from games.baccarat.scoreboard import bead_plate, big_road, counts, derived_marks, derived_road, scoreboard


def coups(text: str) -> list[dict]:
    names = {"B": "banker", "P": "player", "T": "tie"}
    return [{"result": names[c]} for c in text.split()]


SHOE = coups("B B P P P B T B P B B B B B B B")


def test_the_big_road_runs_ties_and_the_dragon_tail() -> None:
    road = big_road(SHOE)
    assert road.runs == [2, 3, 2, 1, 7]
    cells = [(c.column, c.row, c.mark, c.ties) for c in road.cells]
    assert cells == [(0, 0, "B", 0), (0, 1, "B", 0), (1, 0, "P", 0), (1, 1, "P", 0), (1, 2, "P", 0),
                     (2, 0, "B", 1), (2, 1, "B", 0), (3, 0, "P", 0),
                     (4, 0, "B", 0), (4, 1, "B", 0), (4, 2, "B", 0), (4, 3, "B", 0), (4, 4, "B", 0), (4, 5, "B", 0),
                     (5, 5, "B", 0)]  # the seventh Banker turns right along the bottom row


def test_a_run_that_meets_the_tail_turns_right_above_it() -> None:
    road = big_road(SHOE + coups("P P P P P P"))
    assert [(c.column, c.row) for c in road.cells[-6:]] == [(5, 0), (5, 1), (5, 2), (5, 3), (5, 4), (6, 4)]


def test_ties_before_the_first_win_count_on_the_first_cell() -> None:
    road = big_road(coups("T T P"))
    assert [(c.mark, c.ties) for c in road.cells] == [("P", 2)]


def test_the_three_derived_roads() -> None:
    runs = big_road(SHOE).runs
    assert derived_marks(runs, 1) == list("RBBRBBBRRRRR")  # big eye boy
    assert derived_marks(runs, 2) == list("RRBRBRRRR")  # small road
    assert derived_marks(runs, 3) == list("BRRBRRR")  # cockroach pig
    eye = derived_road(runs, 1)
    assert [(c.column, c.row, c.mark) for c in eye.cells[:7]] == [
        (0, 0, "R"), (1, 0, "B"), (1, 1, "B"), (2, 0, "R"), (3, 0, "B"), (3, 1, "B"), (3, 2, "B")]


def test_bead_plate_and_counts() -> None:
    shoe = [{"result": "banker", "banker_pair": True, "natural": True}] + coups("P T " * 3)
    plate = bead_plate(shoe)
    assert [(c.column, c.row, c.mark) for c in plate] == [(0, 0, "B"), (0, 1, "P"), (0, 2, "T"), (0, 3, "P"),
                                                          (0, 4, "T"), (0, 5, "P"), (1, 0, "T")]
    assert counts(shoe) == {"coups": 7, "banker": 1, "player": 3, "tie": 3, "banker_pair": 1, "player_pair": 0,
                            "natural": 1}
    board = scoreboard(shoe)
    assert board["bead_plate"][0] == {"column": 0, "row": 0, "mark": "B", "banker_pair": True, "natural": True}
    assert set(board) == {"counts", "last", "bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"}
