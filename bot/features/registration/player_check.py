"""The entry check of one Lichess account: eligibility facts and the seeding rating.

Shared by `/register` (through the registration service) and `acwc check-player`, so the TD
sees in the terminal exactly what the bot decides in Discord. All Lichess calls happen here,
outside any database transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bot.config import Config
from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessNotFound
from bot.lichess.models import LichessGame, LichessUser
from bot.rules.eligibility import (
    AccountFacts,
    EligibilityRequirements,
    eligibility_problems,
)
from bot.rules.seeding import RatedGamePoint, SeedingResult, compute_seeding

# With `rated`/`perfType` Lichess answers the games export from its search index: `since` and
# `until` filter the game's last move, both inclusive, in whole seconds. A rating counts from
# the game's end (its last move), so the window's bounds already mean what the seeding rule
# means; compute_seeding still checks each game's own `lastMoveAt`. The window starts a day
# early and the two reads may share a game at the boundary second: harmless, the same point.
# (II.A.2's count is `LichessClient.count_rated_games`: played rated games, last move before
# the cut-off.)
_WINDOW_LEAD = timedelta(days=1)
# Games created before the window, newest first, that can hold the rating at `peak_from`.
_HELD_RATING_GAMES = 20


@dataclass(frozen=True)
class PlayerReport:
    """Everything the TD needs to judge an entry, with the evidence behind each figure."""

    requested_name: str
    user: LichessUser | None
    rated_games_before_cutoff: int | None
    problems: list[str]
    seeding: SeedingResult
    games_counted_up_to: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def exists(self) -> bool:
        return self.user is not None

    @property
    def username(self) -> str:
        return self.user.username if self.user else self.requested_name

    @property
    def eligible(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        user = self.user
        return {
            "username": self.username,
            "exists": self.exists,
            "profile_url": user.url if user else None,
            "created_at": _iso(user.created_at) if user else None,
            "closed": bool(user and user.disabled),
            "bot": bool(user and user.is_bot),
            "tos_violation": bool(user and user.tos_violation),
            "rated_games_before_cutoff": self.rated_games_before_cutoff,
            "problems": list(self.problems),
            "eligible": self.eligible,
            "rating_at_cutoff": self.seeding.rating_at_cutoff,
            "rating_at_cutoff_game": self.seeding.rating_at_cutoff_game,
            "peak_rating": self.seeding.peak_rating,
            "peak_rating_game": self.seeding.peak_rating_game,
            "seeding_rating": self.seeding.seeding_rating,
        }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def requirements(config: Config) -> EligibilityRequirements:
    reg = config.registration
    return EligibilityRequirements(
        account_created_before=reg.account_created_before,
        min_rated_games=reg.min_rated_games,
    )


def rating_points(games: list[LichessGame], user_id: str, variant: str) -> list[RatedGamePoint]:
    """The player's rating after each finished rated game of the variant."""
    points = []
    for game in games:
        if not (game.rated and game.variant == variant and game.finished):
            continue
        rating = game.rating_after(user_id)
        if rating is None:
            continue
        points.append(
            RatedGamePoint(
                game_id=game.id, url=game.url, ended_at=game.last_move_at, rating_after=rating
            )
        )
    return points


async def seeding_for(client: LichessClient, config: Config, user: LichessUser) -> SeedingResult:
    """Seeding figures from the player's games: one export for the window, one for before it."""
    variant = config.tournament.variant
    rating_at, peak_from = config.seeding.rating_at, config.seeding.peak_from
    window = await client.export_games(
        user.username,
        since=peak_from - _WINDOW_LEAD,
        until=rating_at,
        rated=True,
        perf_type=variant,
    )
    before = await client.export_games(
        user.username,
        until=peak_from - _WINDOW_LEAD,
        rated=True,
        perf_type=variant,
        max_games=_HELD_RATING_GAMES,
    )
    points = rating_points(window + before, user.id, variant)
    return compute_seeding(points, rating_at=rating_at, peak_from=peak_from)


_NO_SEEDING = SeedingResult(None, None, None, None, None)


async def check_player(client: LichessClient, config: Config, username: str) -> PlayerReport:
    """Run every entry check on one account. Raises the client's errors if Lichess is down."""
    req = requirements(config)
    try:
        user = await client.get_user(username)
    except LichessNotFound:
        problems = eligibility_problems(AccountFacts(exists=False), req)
        return PlayerReport(username, None, None, problems, _NO_SEEDING)
    if user.disabled:
        facts = AccountFacts(exists=True, closed=True)
        return PlayerReport(username, user, None, eligibility_problems(facts, req), _NO_SEEDING)
    counted = await client.count_rated_games(
        user.username,
        perf_type=config.tournament.variant,
        until=config.registration.games_before,
        limit=max(config.registration.min_rated_games, 1),
    )
    seeding = await seeding_for(client, config, user)
    facts = AccountFacts(
        exists=True,
        closed=False,
        is_bot=user.is_bot,
        tos_violation=user.tos_violation,
        created_at=user.created_at,
        rated_games_before_cutoff=counted,
    )
    return PlayerReport(username, user, counted, eligibility_problems(facts, req), seeding)
