"""What the round use cases return, shared by the service and its wording."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class PairingLine:
    board: int
    player_a: str
    seed_a: int
    player_b: str | None
    seed_b: int | None


@dataclass(frozen=True)
class RoundPreview:
    """A round as it would be (or was) published."""

    number: int
    total_rounds: int
    players: int
    starts_at: datetime
    deadline: datetime
    lines: list[PairingLine]
    round_id: int | None = None


@dataclass(frozen=True)
class StandingLine:
    rank: int
    player: str
    points: float
    wins_vs_tied: int
    median_buchholz: float
    withdrawn: bool


@dataclass(frozen=True)
class ResultRecorded:
    match_id: int
    round_finished: bool
    next_round: RoundPreview | None
    stage_finished: bool


@dataclass(frozen=True)
class TieChoice:
    """The TD broke (part of) a tie; `done` once the stage could go on."""

    player: str
    done: bool
