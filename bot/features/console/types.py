"""What the console's use cases return: shared by the service, the export and the wording."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class AuditLine:
    """One audit entry as the TD reads it: when, who or what, what, on which subject."""

    id: int
    at: datetime
    actor_type: str  # player, td, job, system
    actor_id: int | None
    action: str
    subject: str  # "match 3 (Alice–Bob)", "player Alice", ...
    reason: str | None = None


@dataclass(frozen=True)
class AuditPage:
    """The newest entries matching the filter, and how many more matched."""

    scope: str | None  # "Alice", "match 3", "Alice in match 3"; None for the whole log
    lines: list[AuditLine]
    total: int


@dataclass(frozen=True)
class CommandEntry:
    """One slash command for /help."""

    name: str  # "offer", "td round set-score"
    options: tuple[tuple[str, bool], ...]  # (option name, required)
    description: str
    rule: str | None
    td: bool


@dataclass(frozen=True)
class StandingRow:
    """One row of a stage's table; the tiebreak columns a stage (or the format's Swiss
    tiebreak chain) does not use stay None."""

    stage: str
    rank: int
    player_id: int
    player: str
    points: float
    wins_vs_tied: int | None = None  # Swiss (rule III.E.5)
    median_buchholz: float | None = None  # Swiss (rule III.E.5)
    game_points: float | None = None  # Candidates (rule III.F.3)
    matches: int | None = None  # Candidates: matches counted
    withdrawn: bool = False
    # Swiss: the format chain's other tiebreaks (cumulative, kashdan, sonneborn_berger,
    # seed) as (key, value), in the chain's order; the export gives each a column
    tiebreaks: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class FinalGame:
    """One game of the Final with the running score after it (player A's side first)."""

    number: int
    url: str
    white: str
    black: str
    result_a: float
    score_a: float
    score_b: float
    counted: bool


@dataclass(frozen=True)
class StageTable:
    """Where a stage stands: not started, or its table (the Final: the match game by game)."""

    stage: str  # swiss, candidates, final
    state: str  # not_started, planned, running, finished
    rounds_played: int = 0
    total_rounds: int | None = None
    rows: list[StandingRow] = field(default_factory=list)
    final_players: tuple[str, str] | None = None
    final_state: str | None = None
    final_games: list[FinalGame] = field(default_factory=list)

    @property
    def started(self) -> bool:
        return self.state in ("running", "finished")
