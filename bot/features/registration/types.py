"""What the registration use cases return, and its view kinds: shared by service, text, cog."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.registration_window import WindowState
from db.models import (
    Registration,
    RegistrationState,
)

DECISION_VIEW = "registration_decision"

__all__ = [
    "DECISION_VIEW",
    "FieldEntry",
    "OwnershipStep",
    "RegistrationSummary",
    "WindowState",
]


@dataclass(frozen=True)
class OwnershipStep:
    """What the player must do to prove they own the account."""

    challenge_id: int
    code: str
    lichess_username: str
    profile_url: str
    expires_at: datetime


@dataclass(frozen=True)
class RegistrationSummary:
    """A registration as players and the TD see it."""

    id: int
    discord_id: int | None
    lichess_username: str
    profile_url: str
    state: RegistrationState
    problems: list[str]
    problem_texts: list[str]
    account_created_at: datetime | None
    rated_games_before_cutoff: int | None
    rating_at_cutoff: int | None
    rating_at_cutoff_game: str | None
    peak_rating: int | None
    peak_rating_game: str | None
    seeding_rating: float | None
    exception_reason: str | None
    td_comment: str | None
    decided_by: int | None
    decided_at: datetime | None
    created_at: datetime

    @classmethod
    def of(cls, registration: Registration) -> RegistrationSummary:
        player = registration.player
        return cls(
            id=registration.id,
            discord_id=player.discord_id,
            lichess_username=player.lichess_username,
            profile_url=f"https://lichess.org/@/{player.lichess_username}",
            state=registration.state,
            problems=list(registration.problems),
            problem_texts=list(registration.evidence.get("problem_texts", [])),
            account_created_at=registration.account_created_at,
            rated_games_before_cutoff=registration.rated_games_before_cutoff,
            rating_at_cutoff=registration.rating_at_cutoff,
            rating_at_cutoff_game=registration.rating_at_cutoff_game,
            peak_rating=registration.peak_rating,
            peak_rating_game=registration.peak_rating_game,
            seeding_rating=registration.seeding_rating,
            exception_reason=registration.exception_reason,
            td_comment=registration.td_comment,
            decided_by=registration.decided_by,
            decided_at=registration.decided_at,
            created_at=registration.created_at,
        )


@dataclass(frozen=True)
class FieldEntry:
    """One entrant of the public field post: their seed and the evidence of their rating."""

    seed: int
    lichess_username: str
    seeding_rating: float | None
    rating_at_cutoff: int | None
    rating_at_cutoff_game: str | None
    peak_rating: int | None
    peak_rating_game: str | None
