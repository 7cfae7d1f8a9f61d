"""The tables' one registry of stage kinds: which table a stage row shows, asked of the
format (`config.format.stage(row.key).kind`), never of the row's engine kind.

A row whose key is not a stage of the format is the 2019 tiebreak matches (rule III.E.5:
key "<swiss key>_tiebreak"), a crosstable that marks no one as through. Everything a reader
needs to tell the kinds apart is here; the service, the wording and the cog ask this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.format.bracket import stage_matches
from bot.format.model import FinalMatchStage, Format, KnockoutStage, Places, PoolPlaces, Top
from db.models import Stage

__all__ = [
    "TIEBREAK",
    "MatchSeats",
    "TableKind",
    "advancing",
    "bracket_shows_whole",
    "match_names",
    "match_places",
    "stage_matches",
    "table_kind",
]

TableKind = Literal["swiss", "crosstable", "tiebreak", "knockout", "final"]
TIEBREAK: TableKind = "tiebreak"

# The format's stage kinds (bot/format/model.py) and the table each one shows.
_BY_FORMAT_KIND: dict[str, TableKind] = {
    "swiss": "swiss",
    "round_robin": "crosstable",
    "knockout": "knockout",
    "final_match": "final",
}


@dataclass(frozen=True)
class _Words:
    """How a table of the kind is titled from its row's name ("Upper pool", "Candidates")."""

    title: str  # "{name}" is the row's name


_WORDS: dict[TableKind, _Words] = {
    "swiss": _Words("{name}"),
    "crosstable": _Words("{name} crosstable"),
    "tiebreak": _Words("{name}"),
    "knockout": _Words("{name}"),
    "final": _Words("{name}"),
}


def table_kind(fmt: Format, row: Stage) -> TableKind:
    """The table `row` shows: by its format stage's kind (a row outside the format: the
    tiebreak matches)."""
    if row.key not in fmt.keys():
        return TIEBREAK
    return _BY_FORMAT_KIND[fmt.stage(row.key).kind]


def title_name(fmt: Format, row: Stage) -> str:
    """The name a table of `row` is titled by: "Candidates crosstable", "Upper pool
    crosstable", "Tiebreak matches", "Semifinals"."""
    return _WORDS[table_kind(fmt, row)].title.format(name=row.name)


def advancing(fmt: Format, row: Stage) -> int:
    """How many of a round robin row's first places a later stage of the format takes by
    its entry rules (2019: the Candidates winner; 2021 on: each pool's top two). A place a
    rule only fills for an absent pre-seeded player is not counted."""
    count = 0
    for stage in fmt.stages:
        for rule in stage.entry:
            if not isinstance(rule, Top | Places | PoolPlaces) or rule.stage != row.key:
                continue
            if isinstance(rule, Top):
                count += rule.count
            elif isinstance(rule, Places):
                count += len(rule.places)
            else:
                count += sum(1 for pool, _ in rule.places if pool == row.pool)
    return count


def match_names(fmt: Format, row: Stage) -> dict[int, str]:
    """A knock-out's match names by board ("Semifinal 1"), the format's pairings in order."""
    if row.key not in fmt.keys():
        return {}
    stage = fmt.stage(row.key)
    if not isinstance(stage, KnockoutStage):
        return {}
    return {board: p.name for board, p in enumerate(stage.pairings, start=1)}


# One match a stage plays: its name and the seats of its two sides among the stage's
# entrants, counted from 1 in entry order (bot.format.model.KnockoutPairing).
MatchSeats = tuple[str, int, int]


def match_places(fmt: Format, key: str) -> tuple[int, int] | None:
    """The places a final match's winner and loser take ((1, 2): the champion's match);
    None for a stage whose matches send players on rather than place them."""
    stage = fmt.stage(key) if key in fmt.keys() else None
    return stage.places if isinstance(stage, FinalMatchStage) else None


def bracket_shows_whole(fmt: Format, row: Stage) -> bool:
    """Whether the bracket `row` is drawn in shows all its table does (a knock-out's
    matches, scores and winners), so that the bracket stands in for the table; a final
    match's table is its games one by one, which the bracket does not show."""
    return table_kind(fmt, row) == "knockout"


def posts_scoreboard(fmt: Format, row: Stage) -> bool:
    """Whether `row` is a final match, whose scoreboard is posted when it ends."""
    return table_kind(fmt, row) == "final"


def pairings_label(fmt: Format, row: Stage, engine_label: str) -> str:
    """/pairings' name of the stage: the Swiss and the tiebreak matches keep their engine
    label ("Swiss", "Tiebreak"); any other stage is named as the format names it, a pool as
    "<stage> · <pool>" ("Candidates · Upper pool")."""
    kind = table_kind(fmt, row)
    if kind in ("swiss", "tiebreak"):
        return engine_label or row.name
    stage = fmt.stage(row.key).name
    return row.name if row.name == stage else f"{stage} · {row.name}"
