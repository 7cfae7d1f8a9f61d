"""What the table use cases return: a plain table, the data the builders take, a round's
boards, the bracket of the match stages. The builders, the renderers, the service and the
wording all import these."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, Literal

Align = Literal["left", "right"]


@dataclass(frozen=True)
class Table:
    """A titled grid of cell strings, the same for the picture and the text.

    ``align`` gives each column's alignment (empty: columns whose every cell is a number
    are right-aligned, the others left). ``highlight`` marks rows (qualifiers, say; empty:
    none) and ``highlight_label`` says what a mark means. The last ``total_rows`` rows are
    totals, set apart by a line. ``footnote`` explains the abbreviations.
    """

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[Align, ...] = ()
    highlight: tuple[bool, ...] = ()
    highlight_label: str = ""
    total_rows: int = 0
    footnote: str = ""
    keep_last: int = 0  # body rows at the end the text never cuts (a Final's deciding games)

    def __post_init__(self) -> None:
        width = len(self.headers)
        if width == 0:
            raise ValueError("a table needs at least one column")
        for index, row in enumerate(self.rows):
            if len(row) != width:
                raise ValueError(f"row {index} has {len(row)} cells, the table {width} columns")
        if self.align and len(self.align) != width:
            raise ValueError(f"{len(self.align)} alignments for {width} columns")
        if self.highlight and len(self.highlight) != len(self.rows):
            raise ValueError(f"{len(self.highlight)} highlight flags for {len(self.rows)} rows")
        if not 0 <= self.total_rows <= len(self.rows):
            raise ValueError(f"total_rows must be 0..{len(self.rows)}, got {self.total_rows}")
        if self.keep_last < 0:
            raise ValueError(f"keep_last must be at least 0, got {self.keep_last}")

    def alignments(self) -> tuple[Align, ...]:
        if self.align:
            return self.align
        return tuple(
            "right"
            if any(row[col] for row in self.rows)
            and all(_is_number(row[col]) for row in self.rows if row[col])
            else "left"
            for col in range(len(self.headers))
        )

    def highlighted(self, row: int) -> bool:
        return bool(self.highlight) and self.highlight[row]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values: an outbox row stores the table its picture is drawn from."""
        return {
            "title": self.title,
            "headers": list(self.headers),
            "rows": [list(row) for row in self.rows],
            "align": list(self.align),
            "highlight": list(self.highlight),
            "highlight_label": self.highlight_label,
            "total_rows": self.total_rows,
            "footnote": self.footnote,
            "keep_last": self.keep_last,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        return cls(
            title=str(data["title"]),
            headers=tuple(data["headers"]),
            rows=tuple(tuple(row) for row in data["rows"]),
            align=tuple(data.get("align", ())),
            highlight=tuple(bool(h) for h in data.get("highlight", ())),
            highlight_label=str(data.get("highlight_label", "")),
            total_rows=int(data.get("total_rows", 0)),
            footnote=str(data.get("footnote", "")),
            keep_last=int(data.get("keep_last", 0)),
        )


def _is_number(cell: str) -> bool:
    try:
        return math.isfinite(float(cell))
    except ValueError:
        return False


@dataclass(frozen=True)
class Answer:
    """One /standings reply: the text, the picture and the picture's file name."""

    text: str
    png: bytes
    filename: str


@dataclass(frozen=True)
class SwissPairing:
    """One board of a Swiss round: ``b`` None is a bye. The points are match points
    (1, ½, 0; a bye's points for ``a``), None while the match is undecided."""

    round: int
    a: str
    b: str | None
    points_a: float | None
    points_b: float | None
    forfeit: bool = False


@dataclass(frozen=True)
class FinalGame:
    """One counted game of the Final: ``result_a`` is from side ``a``'s view (1, ½, 0) and
    ``time_control`` is "2+5", "2+0" or "Armageddon"."""

    number: int
    time_control: str
    white: str
    black: str
    result_a: float
    lichess_id: str | None = None


@dataclass(frozen=True)
class BoardLine:
    """One board of a round as /pairings shows it."""

    board: int
    player_a: str
    player_b: str | None  # None: a bye
    state: str  # a MatchState value
    agreed_time: datetime | None
    score_a: float
    score_b: float
    points_a: float | None
    forfeit_winner: str | None
    games: tuple[str, ...]  # Lichess ids of the counted games, in order


@dataclass(frozen=True)
class RoundPairings:
    """A round's boards with its window."""

    stage: str  # "Swiss", "Candidates"...
    number: int
    total_rounds: int | None
    starts_at: datetime
    deadline: datetime
    finished: bool
    boards: tuple[BoardLine, ...]


# --------------------------------------------------------------------------- the bracket


@dataclass(frozen=True)
class Played:
    """One stored match as the bracket reads it: side a first as the stage seats it, the
    score of the games before any Armageddon, who won (None while undecided) and how."""

    a: str
    b: str | None
    score_a: float = 0.0
    score_b: float = 0.0
    winner: str | None = None
    armageddon: bool = False
    forfeit: bool = False


@dataclass(frozen=True)
class Slot:
    """One side of a bracket match. ``player`` is None while nobody is known for the seat;
    ``origin`` is where the seat comes from ("Upper pool 1st", "Winner of Semifinal 1");
    ``score`` is empty before the match has one; ``feeder`` is the (column, row) of the
    bracket match whose winner (or, ``loser``, loser) takes the seat."""

    player: str | None
    origin: str
    score: str = ""
    won: bool = False
    feeder: tuple[int, int] | None = None
    loser: bool = False


@dataclass(frozen=True)
class BracketMatch:
    """A match of the bracket: its name, its two slots, the lines under it (who won and
    how, where the winner and the loser go), and the stages outside the bracket its players
    go on to ("the Candidates"), which the picture points to with an arrow."""

    name: str
    slots: tuple[Slot, Slot]
    notes: tuple[str, ...] = ()
    exits: tuple[str, ...] = ()

    @property
    def decided(self) -> bool:
        return any(slot.won for slot in self.slots)


@dataclass(frozen=True)
class Bracket:
    """The bracket: columns of matches left to right, each column headed by its stages'
    names; ``champion`` once the match for first place is decided."""

    title: str
    headings: tuple[str, ...]
    columns: tuple[tuple[BracketMatch, ...], ...]
    champion: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values: an outbox row stores the bracket its picture is drawn from."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Bracket:
        def slot(s: Mapping[str, Any]) -> Slot:
            feeder = s.get("feeder")
            return Slot(
                s.get("player"),
                str(s["origin"]),
                str(s.get("score", "")),
                bool(s.get("won")),
                None if feeder is None else (int(feeder[0]), int(feeder[1])),
                bool(s.get("loser")),
            )

        columns = tuple(
            tuple(
                BracketMatch(
                    str(m["name"]),
                    (slot(m["slots"][0]), slot(m["slots"][1])),
                    tuple(m.get("notes", ())),
                    tuple(m.get("exits", ())),
                )
                for m in column
            )
            for column in data["columns"]
        )
        return cls(str(data["title"]), tuple(data["headings"]), columns, data.get("champion"))
