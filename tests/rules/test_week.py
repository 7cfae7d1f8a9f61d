"""Tests for bot.rules.week: each edition's week (IV.E-F, V.C, V.H; 2020-2024 Timeline)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import negotiation
from bot.rules.week import (
    WEEK_2019,
    WEEK_2020,
    WEEK_2021,
    Boundary,
    RoundOffsets,
    Week,
    first_start_on_or_after,
    next_start,
    round_offsets,
    round_window,
    stage_start_after,
)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def test_2019_offsets_are_the_negotiation_defaults() -> None:
    assert round_offsets(WEEK_2019) == RoundOffsets(
        negotiation.DEFAULT_OFFERS_DUE_OFFSET,
        negotiation.DEFAULT_WEEKEND_OFFSET,
        negotiation.DEFAULT_ROUND_END_OFFSET,
    )


def test_2019_first_round() -> None:
    # Monday 30 September 2019 to Sunday 6 October 23:59:59; offers before Thursday 3 October.
    start = first_start_on_or_after(WEEK_2019, date(2019, 9, 30))
    assert start == utc(2019, 9, 30)
    w = round_window(WEEK_2019, start, 1)
    assert w.round_end == utc(2019, 10, 6, 23, 59, 59)
    assert w.offers_due == utc(2019, 10, 3) - timedelta(seconds=1)
    assert w.weekend == utc(2019, 10, 5)
    off = round_offsets(WEEK_2019)
    d = negotiation.deadlines(
        start,
        offers_due_offset=off.offers_due,
        weekend_offset=off.weekend,
        round_end_offset=off.round_end,
    )
    assert (d.offers_due, d.weekend, d.round_end) == (w.offers_due, w.weekend, w.round_end)


def test_2020_first_round() -> None:
    # First pairings Wednesday 23 September 2020; done by the following Wednesday 00:00.
    start = first_start_on_or_after(WEEK_2020, date(2020, 9, 21))  # a Monday
    assert start == utc(2020, 9, 23)
    w = round_window(WEEK_2020, start, 1)
    assert w.round_end == utc(2020, 9, 30)  # exactly 7 days
    assert w.offers_due == utc(2020, 9, 26, 23, 59, 59)  # "by Saturday": its end
    assert w.weekend == utc(2020, 9, 26)
    # Offers are due after the weekend started: 3 d 23:59:59 against 3 d.
    off = round_offsets(WEEK_2020)
    assert off.offers_due - off.weekend == timedelta(hours=23, minutes=59, seconds=59)
    # Round 2 starts at the instant round 1 ends.
    assert round_window(WEEK_2020, start, 2).start == w.round_end
    assert next_start(WEEK_2020, w.round_end) == w.round_end


def test_2024_first_round() -> None:
    # "published on Tuesday 8th October ... completed by the following Monday 23:59 UTC",
    # offers "by Friday 23:59 UTC".
    assert first_start_on_or_after(WEEK_2021, date(2024, 10, 3)) == utc(2024, 10, 8)
    start = first_start_on_or_after(WEEK_2021, date(2024, 10, 8))
    assert start == utc(2024, 10, 8)
    w = round_window(WEEK_2021, start, 1)
    assert w.round_end == utc(2024, 10, 14, 23, 59, 59)
    assert w.offers_due == utc(2024, 10, 11, 23, 59, 59)
    assert w.weekend == utc(2024, 10, 12)
    assert round_offsets(WEEK_2021) == RoundOffsets(
        timedelta(days=3, hours=23, minutes=59, seconds=59),
        timedelta(days=4),
        timedelta(days=6, hours=23, minutes=59, seconds=59),
    )


def test_2024_break_week_after_a_seven_round_swiss() -> None:
    start = utc(2024, 10, 8)
    # Round 7 starts 6 weeks later: 8 Oct + 42 days = 19 Nov (23 days to 31 Oct, 19 more).
    last = round_window(WEEK_2021, start, 7)
    assert last.start == utc(2024, 11, 19)
    assert last.round_end == utc(2024, 11, 25, 23, 59, 59)
    # The break week is Tuesday 26 Nov to Monday 2 Dec; the Candidates start Tuesday 3 Dec.
    assert stage_start_after(WEEK_2021, last.round_end, break_weeks=1) == utc(2024, 12, 3)
    assert round_window(WEEK_2021, start, 8, breaks=[8]).start == utc(2024, 12, 3)
    assert round_window(WEEK_2021, start, 8, breaks=[8, 8]).start == utc(2024, 12, 10)
    assert round_window(WEEK_2021, start, 7, breaks=[8]).start == last.start


def test_2019_stages_follow_without_a_break() -> None:
    # A round ends Sunday 6 October 23:59:59; the next stage starts Monday 7 October.
    assert stage_start_after(WEEK_2019, utc(2019, 10, 6, 23, 59, 59), break_weeks=0) == utc(
        2019, 10, 7
    )


def test_next_start() -> None:
    tuesday = utc(2024, 10, 8)
    assert next_start(WEEK_2021, tuesday) == tuesday  # a start is its own
    assert next_start(WEEK_2021, tuesday + timedelta(seconds=1)) == utc(2024, 10, 15)
    assert next_start(WEEK_2021, utc(2024, 10, 7, 12)) == tuesday  # Monday noon


def test_bad_input_raises() -> None:
    with pytest.raises(ValueError):
        round_window(WEEK_2021, utc(2024, 10, 7), 1)  # a Monday
    with pytest.raises(ValueError):
        round_window(WEEK_2021, utc(2024, 10, 8, 1), 1)  # not 00:00
    with pytest.raises(ValueError):
        round_window(WEEK_2021, datetime(2024, 10, 8), 1)  # naive
    with pytest.raises(ValueError):
        round_window(WEEK_2021, utc(2024, 10, 8), 0)
    with pytest.raises(ValueError):
        round_window(WEEK_2021, utc(2024, 10, 8), 2, breaks=[1])
    with pytest.raises(ValueError):
        stage_start_after(WEEK_2021, utc(2024, 10, 8), break_weeks=-1)
    with pytest.raises(ValueError):
        first_start_on_or_after(WEEK_2021, utc(2024, 10, 8))  # a datetime, not a date
    with pytest.raises(ValueError):
        round_offsets(Week(Boundary(7), Boundary(0), Boundary(0), Boundary(0)))
    with pytest.raises(ValueError):
        round_offsets(Week(Boundary(0), Boundary(0, time(1, tzinfo=UTC)), Boundary(0), Boundary(0)))


weeks = st.sampled_from([WEEK_2019, WEEK_2020, WEEK_2021])
moments = st.datetimes(
    min_value=datetime(2019, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)


@given(weeks, moments)
def test_next_start_is_the_first_start_at_or_after(week: Week, moment: datetime) -> None:
    found = next_start(week, moment)
    assert moment <= found < moment + timedelta(days=7)
    assert found.weekday() == week.start.weekday and found.time() == week.start.at


@given(weeks, st.integers(min_value=1, max_value=20))
def test_rounds_are_a_week_apart_and_in_the_week(week: Week, number: int) -> None:
    start = first_start_on_or_after(week, date(2024, 1, 1))
    one, two = round_window(week, start, number), round_window(week, start, number + 1)
    assert two.start - one.start == timedelta(days=7)
    assert one.start < one.weekend and one.start < one.offers_due <= one.round_end
    assert one.round_end - one.start <= timedelta(days=7)
    assert one.offers_due.weekday() == week.offers_due.weekday
    assert one.round_end.weekday() == week.round_end.weekday
