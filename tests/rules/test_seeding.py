"""Tests for bot.rules.seeding (rule III.E.3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.seeding import (
    DEFAULT_PEAK_FROM,
    DEFAULT_RATING_AT,
    RatedGamePoint,
    SeedingResult,
    compute_seeding,
)

CEST = timezone(timedelta(hours=2))
RATING_AT = datetime(2019, 9, 1, 0, 0, tzinfo=CEST)
PEAK_FROM = datetime(2018, 9, 1, 0, 0, tzinfo=CEST)


def game(gid: str, ended_at: datetime, rating: int) -> RatedGamePoint:
    return RatedGamePoint(gid, f"https://lichess.org/{gid}", ended_at, rating)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def seed(points: list[RatedGamePoint]) -> SeedingResult:
    return compute_seeding(points, rating_at=RATING_AT, peak_from=PEAK_FROM)


def test_defaults_are_cest_midnight() -> None:
    assert DEFAULT_RATING_AT == utc(2019, 8, 31, 22, 0) == RATING_AT
    assert DEFAULT_PEAK_FROM == utc(2018, 8, 31, 22, 0) == PEAK_FROM
    assert DEFAULT_RATING_AT.utcoffset() == timedelta(0)
    assert DEFAULT_PEAK_FROM.utcoffset() == timedelta(0)


def test_basic_average() -> None:
    points = [
        game("a", utc(2018, 10, 1), 2100),
        game("b", utc(2019, 3, 1), 2201),
        game("c", utc(2019, 8, 1), 2150),
    ]
    result = seed(points)
    assert result == SeedingResult(
        rating_at_cutoff=2150,
        rating_at_cutoff_game="https://lichess.org/c",
        peak_rating=2201,
        peak_rating_game="https://lichess.org/b",
        seeding_rating=2175.5,
    )


def test_cest_cutoff() -> None:
    before = game("before", utc(2019, 8, 31, 21, 59), 2000)
    after = game("after", utc(2019, 8, 31, 22, 30), 2500)
    result = seed([after, before])
    # 22:30Z is already 00:30 CEST on September 1: it does not count.
    assert result.rating_at_cutoff == 2000
    assert result.rating_at_cutoff_game == before.url
    assert result.peak_rating == 2000
    assert result.seeding_rating == 2000


def test_game_ending_exactly_at_rating_at_counts() -> None:
    result = seed([game("x", utc(2019, 1, 1), 1900), game("y", RATING_AT, 2000)])
    assert result.rating_at_cutoff == 2000
    assert result.peak_rating == 2000


def test_game_started_before_but_ended_after_cutoff_does_not_count() -> None:
    # The game began at 21:58Z but its last move came at 22:01Z (00:01 CEST).
    straddling = game("straddle", utc(2019, 8, 31, 22, 1), 2600)
    result = seed([straddling, game("old", utc(2019, 8, 1), 2050)])
    assert result.rating_at_cutoff == 2050
    assert result.peak_rating == 2050


def test_no_games_in_peak_window_uses_held_rating() -> None:
    older = game("older", utc(2018, 1, 1), 1800)
    last = game("last", utc(2018, 6, 1), 1750)
    result = seed([last, older])
    assert result == SeedingResult(1750, last.url, 1750, last.url, 1750.0)


def test_held_rating_at_peak_from_can_be_the_peak() -> None:
    held = game("held", utc(2018, 8, 1), 2300)
    result = seed([held, game("w1", utc(2018, 12, 1), 2200), game("w2", utc(2019, 5, 1), 2250)])
    assert result.peak_rating == 2300
    assert result.peak_rating_game == held.url
    assert result.rating_at_cutoff == 2250
    assert result.seeding_rating == 2275.0


def test_only_last_game_before_peak_from_counts() -> None:
    # A higher rating earlier than the held one is outside the window.
    points = [
        game("ancient", utc(2017, 1, 1), 2400),
        game("held", utc(2018, 8, 30), 2000),
        game("w", utc(2019, 1, 1), 2100),
    ]
    result = seed(points)
    assert result.peak_rating == 2100
    assert result.peak_rating_game == "https://lichess.org/w"


def test_peak_exactly_at_peak_from_boundary() -> None:
    # A game ending exactly at 2018-09-01 00:00 CEST sets the rating held at peak_from.
    boundary = game("boundary", PEAK_FROM, 2400)
    points = [
        game("earlier", utc(2018, 7, 1), 2000),
        boundary,
        game("w", utc(2019, 2, 1), 2300),
    ]
    result = seed(points)
    assert result.peak_rating == 2400
    assert result.peak_rating_game == boundary.url
    assert result.rating_at_cutoff == 2300
    assert result.seeding_rating == 2350.0


def test_just_before_peak_from_is_superseded_by_boundary_game() -> None:
    points = [
        game("before", PEAK_FROM - timedelta(minutes=1), 2500),
        game("boundary", PEAK_FROM, 2000),
        game("w", utc(2019, 2, 1), 2100),
    ]
    result = seed(points)
    assert result.peak_rating == 2100


def test_peak_game_is_earliest_reaching_max() -> None:
    points = [
        game("late", utc(2019, 6, 1), 2200),
        game("early", utc(2019, 1, 1), 2200),
        game("end", utc(2019, 8, 1), 2100),
    ]
    result = seed(points)
    assert result.peak_rating_game == "https://lichess.org/early"


def test_duplicates_count_once() -> None:
    a = game("a", utc(2019, 1, 1), 2000)
    b = game("b", utc(2019, 2, 1), 2100)
    assert seed([a, b, a, b, b]) == seed([a, b])
    # The first occurrence of a game_id wins.
    conflicting = RatedGamePoint("b", b.url, utc(2019, 3, 1), 9999)
    assert seed([a, b, conflicting]) == seed([a, b])


def test_unsorted_input() -> None:
    points = [
        game("c", utc(2019, 8, 1), 2150),
        game("a", utc(2018, 10, 1), 2100),
        game("d", utc(2019, 9, 5), 2500),
        game("b", utc(2019, 3, 1), 2201),
    ]
    result = seed(points)
    assert result.rating_at_cutoff_game == "https://lichess.org/c"
    assert result.peak_rating_game == "https://lichess.org/b"
    assert result.seeding_rating == 2175.5


def test_same_end_time_first_in_input_is_latest() -> None:
    # Lichess exports newest first: on a tie, the first listed is the later game.
    newer = game("newer", utc(2019, 8, 1, 12, 0), 2010)
    older = game("older", utc(2019, 8, 1, 12, 0), 1990)
    result = seed([newer, older])
    assert result.rating_at_cutoff == 2010
    assert result.rating_at_cutoff_game == newer.url
    assert seed([older, newer]).rating_at_cutoff_game == older.url


def test_no_games_before_rating_at() -> None:
    assert seed([]) == SeedingResult(None, None, None, None, None)
    only_late = [game("late", utc(2019, 9, 2), 2000)]
    assert seed(only_late) == SeedingResult(None, None, None, None, None)


def test_naive_datetimes_rejected() -> None:
    with pytest.raises(ValueError):
        seed([game("n", datetime(2019, 1, 1), 2000)])
    with pytest.raises(ValueError):
        compute_seeding([], rating_at=datetime(2019, 9, 1), peak_from=PEAK_FROM)


def test_peak_from_after_rating_at_rejected() -> None:
    with pytest.raises(ValueError):
        compute_seeding([], rating_at=PEAK_FROM, peak_from=RATING_AT)


# --- properties ----------------------------------------------------------------

_MINUTES = int((utc(2020, 1, 1) - utc(2017, 6, 1)).total_seconds() // 60)


@st.composite
def game_lists(draw: st.DrawFn) -> list[RatedGamePoint]:
    """Distinct games with distinct end minutes (so input order cannot matter)."""
    offsets = draw(st.lists(st.integers(0, _MINUTES), unique=True, max_size=30))
    ratings = draw(st.lists(st.integers(600, 3000), min_size=len(offsets), max_size=len(offsets)))
    start = utc(2017, 6, 1)
    return [
        game(f"g{i}", start + timedelta(minutes=off), rating)
        for i, (off, rating) in enumerate(zip(offsets, ratings, strict=True))
    ]


@given(game_lists())
def test_prop_peak_at_least_cutoff_and_seeding_between(points: list[RatedGamePoint]) -> None:
    result = seed(points)
    if result.rating_at_cutoff is None:
        assert result == SeedingResult(None, None, None, None, None)
        assert all(p.ended_at > RATING_AT for p in points)
        return
    assert result.peak_rating is not None and result.seeding_rating is not None
    assert result.peak_rating >= result.rating_at_cutoff
    assert result.rating_at_cutoff <= result.seeding_rating <= result.peak_rating
    assert result.seeding_rating * 2 == result.rating_at_cutoff + result.peak_rating


@given(game_lists(), st.randoms(use_true_random=False))
def test_prop_independent_of_input_order(points: list[RatedGamePoint], rnd: Random) -> None:
    shuffled = list(points)
    rnd.shuffle(shuffled)
    assert seed(shuffled) == seed(points)
    assert seed(points + shuffled) == seed(points)  # duplicates too


@given(
    game_lists(),
    st.integers(min_value=0, max_value=10**6),
    st.integers(600, 3000),
)
def test_prop_game_after_rating_at_changes_nothing(
    points: list[RatedGamePoint], minutes_after: int, rating: int
) -> None:
    late = game("late-extra", RATING_AT + timedelta(minutes=minutes_after, microseconds=1), rating)
    before = seed(points)
    assert seed([*points, late]) == before
    assert seed([late, *points]) == before


@given(game_lists())
def test_prop_matches_brute_force(points: list[RatedGamePoint]) -> None:
    """Cross-check against a minute-by-minute definition of 'rating held'."""
    result = seed(points)
    counted = sorted((p for p in points if p.ended_at <= RATING_AT), key=lambda p: p.ended_at)
    if not counted:
        assert result.seeding_rating is None
        return

    def held(at: datetime) -> int | None:
        done = [p for p in counted if p.ended_at <= at]
        return done[-1].rating_after if done else None

    assert result.rating_at_cutoff == held(RATING_AT)
    candidates = [held(PEAK_FROM)] + [p.rating_after for p in counted if p.ended_at > PEAK_FROM]
    assert result.peak_rating == max(c for c in candidates if c is not None)
