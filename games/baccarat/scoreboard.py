"""The scoreboard of a shoe, from its settled coups (pure): the bead plate, the big road, the three derived roads
and the shoe's counts, as baccarat's electronic scoreboards draw them (docs/baccarat.md).

- Bead plate: every coup in order, six rows, filled column by column (B, P or T, with its pairs).
- Big road: one cell per Banker or Player win; a run of one result goes down a column, a change starts a new
  column; a run longer than the six rows (or one that meets a cell already there) turns right along its last row
  (the dragon tail). A tie is not a cell: it is a slash on the last cell (ties before the first cell count on it
  too); pairs are dots on the cell.
- The derived roads read the big road's columns as runs (their logical lengths, not where the tail turned) and
  ask of each new cell whether the road is "regular": big eye boy compares with the column one before, small road
  two before, cockroach pig three before. For a cell at row r > 0 of column c: red if the column c-k has a cell
  at row r or has ended two or more rows above it, blue if it ended just above it (its length is r); for the
  first cell of a column c: red if the columns c-1 and c-1-k have the same length, else blue. A road starts with
  the first cell that has a column to compare with (big eye boy: the second cell of the second column, or the
  first cell of the third). Each derived road is drawn like the big road (red and blue for Banker and Player).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

ROWS = 6
DERIVED = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


@dataclass
class Cell:
    """One mark on a road: ``mark`` (B/P/T on the bead plate and the big road; R/B on a derived road) at
    ``column``, ``row``; the big road's ties (slashes) and pairs (dots)."""

    column: int
    row: int
    mark: str
    ties: int = 0
    banker_pair: bool = False
    player_pair: bool = False
    natural: bool = False

    def as_dict(self) -> dict[str, Any]:
        """As plain data (only what is set)."""
        out: dict[str, Any] = {"column": self.column, "row": self.row, "mark": self.mark}
        for key in ("ties", "banker_pair", "player_pair", "natural"):
            value = getattr(self, key)
            if value:
                out[key] = value
        return out


@dataclass
class Placement:
    """Cells placed on a grid of six rows, runs going down and turning right at the bottom or at a cell."""

    cells: list[Cell] = field(default_factory=list)
    taken: set[tuple[int, int]] = field(default_factory=set)
    runs: list[int] = field(default_factory=list)  # each run's length: the logical columns
    _start: int = -1  # the column where the current run began
    _at: tuple[int, int] = (-1, -1)

    def add(self, mark: str, **marks: Any) -> Cell:
        """Place the next mark: down its run, or a new run in the next free column."""
        if self.cells and self.cells[-1].mark == mark:
            self.runs[-1] += 1
            col, row = self._at
            if row + 1 < ROWS and (col, row + 1) not in self.taken:
                at = (col, row + 1)
            else:
                at = (col + 1, row)  # the dragon tail: turns right along its row
                while at in self.taken:
                    at = (at[0] + 1, at[1])
        else:
            self.runs.append(1)
            self._start += 1
            while (self._start, 0) in self.taken:
                self._start += 1
            at = (self._start, 0)
        cell = Cell(at[0], at[1], mark, **marks)
        self.cells.append(cell)
        self.taken.add(at)
        self._at = at
        return cell


def bead_plate(coups: Iterable[Mapping[str, Any]]) -> list[Cell]:
    """Every coup in order, six rows, column by column."""
    return [Cell(i // ROWS, i % ROWS, c["result"][0].upper(), banker_pair=bool(c.get("banker_pair")),
                 player_pair=bool(c.get("player_pair")), natural=bool(c.get("natural")))
            for i, c in enumerate(coups)]


def big_road(coups: Iterable[Mapping[str, Any]]) -> Placement:
    """The big road: Banker and Player wins as runs; ties slashes on the last cell; pairs dots."""
    road = Placement()
    early_ties = 0
    for c in coups:
        result = c["result"]
        if result == "tie":
            if road.cells:
                road.cells[-1].ties += 1
            else:
                early_ties += 1
            continue
        cell = road.add(result[0].upper(), banker_pair=bool(c.get("banker_pair")),
                        player_pair=bool(c.get("player_pair")))
        if early_ties:
            cell.ties, early_ties = early_ties, 0
    return road


def derived_marks(runs: list[int], k: int) -> list[str]:
    """The derived road of offset ``k`` (1 big eye boy, 2 small road, 3 cockroach pig) from the big road's run
    lengths, in the order the big road's cells came: "R" (red) or "B" (blue)."""
    out: list[str] = []
    for c, length in enumerate(runs):
        for r in range(length):
            if r == 0:
                if c >= k + 1:
                    out.append("R" if runs[c - 1] == runs[c - 1 - k] else "B")
            elif c >= k:
                out.append("B" if runs[c - k] == r else "R")
    return out


def derived_road(runs: list[int], k: int) -> Placement:
    """A derived road drawn as the big road draws its runs."""
    road = Placement()
    for mark in derived_marks(runs, k):
        road.add(mark)
    return road


def counts(coups: list[Mapping[str, Any]]) -> dict[str, int]:
    """The shoe's counts: coups, Banker, Player and Tie wins, Banker and Player pairs, naturals."""
    return {
        "coups": len(coups),
        "banker": sum(c["result"] == "banker" for c in coups),
        "player": sum(c["result"] == "player" for c in coups),
        "tie": sum(c["result"] == "tie" for c in coups),
        "banker_pair": sum(bool(c.get("banker_pair")) for c in coups),
        "player_pair": sum(bool(c.get("player_pair")) for c in coups),
        "natural": sum(bool(c.get("natural")) for c in coups),
    }


def scoreboard(coups: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The whole scoreboard of a shoe's settled coups (oldest first), as plain data."""
    big = big_road(coups)
    return {
        "counts": counts(coups),
        "last": [c["result"] for c in coups[-12:]],
        "bead_plate": [c.as_dict() for c in bead_plate(coups)],
        "big_road": [c.as_dict() for c in big.cells],
        **{name: [c.as_dict() for c in derived_road(big.runs, k).cells] for name, k in DERIVED.items()},
    }


class BaccaratPublic:
    """Baccarat's public reads and pages (the registry's ``public`` part, `tablectl.parts.PublicPart`): the shoe's
    scoreboard at ``GET /api/scoreboard`` and the table-side screen at ``/scoreboard``. Only settled coups are on
    it (under the squeeze a coup settles only once its cards are turned), so it is public."""

    @property
    def reads(self) -> dict[str, Any]:
        """The scoreboard."""
        return {"scoreboard": read_scoreboard}

    @property
    def pages(self) -> dict[str, str]:
        """The table-side screen."""
        return {"scoreboard": "scoreboard.html"}


def read_scoreboard(table: Any) -> dict[str, Any]:
    """The scoreboard of the table's shoe now (its settled coups), with the shoe's id and the game's profile."""
    coups = list(getattr(table.game_state, "coups", []))
    shoe = table.shoe
    return {"shoe_id": shoe.shoe_id if shoe is not None else None, "rules": table.rules.name, **scoreboard(coups)}


PUBLIC = BaccaratPublic()

RESULT_LETTERS = {"banker": "B", "player": "P", "tie": "T"}  # as the bead plate marks them


class BaccaratTile:
    """What the floor's tile shows of a baccarat table (the registry's ``tile`` part, `tablectl.parts.TilePart`):
    the shoe's last results and its counts, from the scoreboard: settled coups only, public at the table."""

    def facts(self, table: Any) -> list[tuple[str, str]]:
        """(label, text): the last results, newest last (B, P, T), then Banker, Player, Tie and the pairs."""
        coups = list(getattr(table.game_state, "coups", []))
        c = counts(coups)
        last = " ".join(RESULT_LETTERS.get(str(x["result"]), "?") for x in coups[-12:])
        return [("Last", last or "–"), ("Banker", str(c["banker"])), ("Player", str(c["player"])),
                ("Tie", str(c["tie"])), ("Banker pair", str(c["banker_pair"])),
                ("Player pair", str(c["player_pair"]))]


TILE = BaccaratTile()
