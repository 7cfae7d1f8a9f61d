"""Tests for bot.rules.match_conduct: rule VI.D's two clocks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.match_conduct import (
    noshow_clocks,
    noshow_grace_end,
    noshow_report_timing,
    noshow_second_message_due,
)


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2019, 10, 2, hour, minute, tzinfo=UTC)


def test_claim_at_18_05_for_an_18_00_match() -> None:
    """The worked example: the absent player starts by 18:10 (match time + 10), not 18:15;
    the second message is due at 18:15 (first message + 10)."""
    clocks = noshow_clocks(at(18), at(18, 5), grace_minutes=10, second_message_minutes=10)
    assert clocks.grace_end == at(18, 10)
    assert clocks.second_message_due == at(18, 15)
    assert clocks.confirm_from == at(18, 15)


def test_claim_at_the_match_time_both_clocks_meet() -> None:
    clocks = noshow_clocks(at(18), at(18), grace_minutes=10, second_message_minutes=10)
    assert clocks.grace_end == clocks.second_message_due == clocks.confirm_from == at(18, 10)


def test_late_claim_grace_already_over() -> None:
    clocks = noshow_clocks(at(18), at(18, 40), grace_minutes=10, second_message_minutes=10)
    assert clocks.grace_end == at(18, 10)
    assert clocks.confirm_from == at(18, 50)


def test_a_longer_grace_than_the_interval_waits_for_the_grace() -> None:
    clocks = noshow_clocks(at(18), at(18, 1), grace_minutes=15, second_message_minutes=5)
    assert clocks.second_message_due == at(18, 6)
    assert clocks.confirm_from == clocks.grace_end == at(18, 15)


def test_each_clock_alone_and_other_zones() -> None:
    berlin = timezone(timedelta(hours=2))
    assert noshow_grace_end(datetime(2019, 10, 2, 20, 0, tzinfo=berlin), 10) == at(18, 10)
    assert noshow_second_message_due(at(18, 7), 10) == at(18, 17)
    assert noshow_grace_end(at(18), 10).tzinfo is UTC


def test_refusals() -> None:
    with pytest.raises(ValueError, match="before the match time"):
        noshow_clocks(at(18), at(17, 59), grace_minutes=10, second_message_minutes=10)
    with pytest.raises(ValueError, match="timezone-aware"):
        noshow_grace_end(datetime(2019, 10, 2, 18), 10)
    with pytest.raises(ValueError, match="minutes"):
        noshow_second_message_due(at(18), -1)
    with pytest.raises(ValueError, match="minutes"):
        noshow_grace_end(at(18), True)


def test_report_timing() -> None:
    assert noshow_report_timing(at(18), at(17, 59), window_minutes=120) == "early"
    assert noshow_report_timing(at(18), at(18), window_minutes=120) == "in_time"
    assert noshow_report_timing(at(18), at(20), window_minutes=120) == "in_time"
    assert noshow_report_timing(at(18), at(20, 1), window_minutes=120) == "late"


minutes = st.integers(min_value=0, max_value=180)


@given(minutes, minutes, minutes)
def test_the_grace_never_depends_on_the_claim(delay: int, grace: int, interval: int) -> None:
    """However late the claim, the absent player's grace ends at the same instant, and the
    claimant is never asked before either clock has run out."""
    first = at(18) + timedelta(minutes=delay)
    clocks = noshow_clocks(at(18), first, grace_minutes=grace, second_message_minutes=interval)
    assert clocks.grace_end == at(18) + timedelta(minutes=grace)
    assert clocks.second_message_due - first == timedelta(minutes=interval)
    assert clocks.confirm_from >= clocks.grace_end
    assert clocks.confirm_from >= clocks.second_message_due
    assert clocks.confirm_from in (clocks.grace_end, clocks.second_message_due)
