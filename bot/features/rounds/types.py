"""What the round use cases return, shared by the service and its wording."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.errors import WrongStage


class PairingFailed(WrongStage):
    """The next Swiss round could not be paired (no valid pairing, or not in time): the TD
    is told, the result that completed the round stands, and nothing is published."""


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
    # The Swiss round whose next round is paired once this transaction has committed
    # (`bot.features.rounds.next_round`): never inside it.
    pair_after: int | None = None
    # The match as the TD's reply names it: its place and players (no row id: issue 32).
    match: str = ""


@dataclass(frozen=True)
class TieChoice:
    """The TD broke (part of) a tie; `done` once the stage could go on."""

    player: str
    done: bool


@dataclass(frozen=True)
class PendingEntry:
    """A registration the TD has not decided: it blocks round 1."""

    registration_id: int
    lichess_username: str


@dataclass(frozen=True)
class SwissStart:
    """What `/td round start` finds: round 1 is previewed only once registration is closed,
    and published only once no registration is pending."""

    registration_open: bool
    pending: list[PendingEntry]
    preview: RoundPreview | None  # None while registration is open

    @property
    def can_publish(self) -> bool:
        return not self.registration_open and not self.pending and self.preview is not None
