"""Seeding rating (ACWC rules, III.E.3).

"Your seeding rating is equal to the average of your Antichess rating at
September 1, 2019, 00:00 CEST and your highest Antichess rating between
September 1, 2018, 00:00 CEST and September 1, 2019, 00:00 CEST."

Lichess has no rating-at-an-instant endpoint, so the rating is rebuilt exactly
from the player's rated games of the variant: after a game the player holds
``rating + ratingDiff`` from that game's end (``lastMoveAt``) until their next
game ends.  Pure functions, no I/O, no clock; the instants are parameters.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = [
    "DEFAULT_PEAK_FROM",
    "DEFAULT_RATING_AT",
    "RatedGamePoint",
    "SeedingResult",
    "compute_seeding",
]

#: 2019-09-01 00:00 CEST (UTC+2): the instant the "current" rating is taken.
DEFAULT_RATING_AT = datetime(2019, 8, 31, 22, 0, tzinfo=UTC)
#: 2018-09-01 00:00 CEST (UTC+2): start of the peak-rating window.
DEFAULT_PEAK_FROM = datetime(2018, 8, 31, 22, 0, tzinfo=UTC)


@dataclass(frozen=True)
class RatedGamePoint:
    """Rule 3.5.3 (III.E.3): the player's rating right after one rated game of the variant."""

    game_id: str
    url: str
    ended_at: datetime  # aware UTC (lastMoveAt)
    rating_after: int  # the player's rating + ratingDiff


@dataclass(frozen=True)
class SeedingResult:
    """Rule 3.5.3 (III.E.3): both components of the seeding rating, with the games that prove them.

    Everything is ``None`` when the player finished no game at or before
    ``rating_at`` (they had no rating then).  ``seeding_rating`` is the exact
    mean, e.g. ``2150.5``; rounding, if any, is the caller's decision.
    """

    rating_at_cutoff: int | None
    rating_at_cutoff_game: str | None  # url of the game that produced it
    peak_rating: int | None
    peak_rating_game: str | None
    seeding_rating: float | None


_NO_RATING = SeedingResult(None, None, None, None, None)


def _require_aware(value: datetime, name: str) -> None:
    """Reject naive datetimes: they cannot be placed relative to CEST/UTC cut-offs."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be a timezone-aware datetime, got {value!r}")


def _chronological(points: Iterable[RatedGamePoint]) -> list[RatedGamePoint]:
    """De-duplicate by game_id and order games oldest first.

    The first occurrence of a game_id wins.  Games ending at the same instant
    are ordered by input position, *reversed*: Lichess exports newest first, so
    the game listed first is taken as the later one.  The order therefore does
    not depend on anything but the input, and is deterministic.
    """
    seen: set[str] = set()
    unique: list[RatedGamePoint] = []
    for point in points:
        if point.game_id in seen:
            continue
        _require_aware(point.ended_at, f"ended_at of game {point.game_id}")
        seen.add(point.game_id)
        unique.append(point)
    indexed = sorted(enumerate(unique), key=lambda item: (item[1].ended_at, -item[0]))
    return [point for _, point in indexed]


def compute_seeding(
    points: Iterable[RatedGamePoint],
    *,
    rating_at: datetime = DEFAULT_RATING_AT,
    peak_from: datetime = DEFAULT_PEAK_FROM,
) -> SeedingResult:
    """Rule 3.5.3 (III.E.3): compute the seeding rating from a player's rated games.

    - ``points`` may be in any order and contain duplicates (a game_id counts
      once, first occurrence kept).  Games ending after ``rating_at`` are
      ignored, even if they started before it: the rating changes at the end.
    - Rating at cutoff: ``rating_after`` of the game with the latest
      ``ended_at <= rating_at``.  On a tie in ``ended_at`` the game appearing
      first in the input is taken as the later one (Lichess exports newest
      first).
    - Peak: the maximum of the rating already held at ``peak_from`` (from the
      last game ending at or before it) and of every game with
      ``peak_from < ended_at <= rating_at``.  The peak game is the earliest
      game reaching that maximum, in the same chronological order.
    - A player whose games all ended at or before ``peak_from`` held one rating
      through the window: it is both the cutoff and the peak rating, and both
      point to the same game.
    - No game ending at or before ``rating_at``: every field is ``None``.
    """
    _require_aware(rating_at, "rating_at")
    _require_aware(peak_from, "peak_from")
    if peak_from > rating_at:
        raise ValueError(f"peak_from ({peak_from}) is after rating_at ({rating_at})")

    games = [p for p in _chronological(points) if p.ended_at <= rating_at]
    if not games:
        return _NO_RATING

    at_cutoff = games[-1]

    # The window starts with the rating held at peak_from (if any), followed by
    # every game inside (peak_from, rating_at], oldest first.
    held_at_start = [p for p in games if p.ended_at <= peak_from][-1:]
    window = held_at_start + [p for p in games if p.ended_at > peak_from]

    peak = window[0]
    for point in window[1:]:
        if point.rating_after > peak.rating_after:  # strict: keep the earliest
            peak = point

    return SeedingResult(
        rating_at_cutoff=at_cutoff.rating_after,
        rating_at_cutoff_game=at_cutoff.url,
        peak_rating=peak.rating_after,
        peak_rating_game=peak.url,
        seeding_rating=(at_cutoff.rating_after + peak.rating_after) / 2,
    )
