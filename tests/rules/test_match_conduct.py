"""Tests for bot.rules.match_conduct: rule VI.D's two clocks, and rules VI.A, VI.D, VI.E,
VI.F and I.E's other decisions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.match_conduct import (
    UsedBreak,
    break_end,
    break_refusal,
    break_used,
    claim_cancelled,
    claim_since,
    counted_forfeits,
    disqualified_by_forfeits,
    forfeit_refusal,
    forfeit_result,
    games_cancel_from,
    left_came_back,
    left_refusal,
    left_return_end,
    noshow_clocks,
    noshow_grace_end,
    noshow_refusal,
    noshow_report_timing,
    noshow_second_message_due,
    played_refusal,
    reschedule_forfeits,
    second_message_early,
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


# --- rules VI.A, VI.D, VI.E, VI.F, I.E: the rest of match conduct -----------------------------


def test_a_break_needs_a_started_undecided_match_and_an_unused_break() -> None:
    """Rule 6.1 (VI.A)."""
    assert break_refusal("negotiating", None, at(18), used=False) == "not_started"
    assert break_refusal("scheduled", at(18), at(17, 59), used=False) == "not_started"
    assert break_refusal("scheduled", None, at(18), used=False) == "not_started"
    assert break_refusal("finished", at(18), at(19), used=False) == "decided"
    assert break_refusal("forfeited", at(18), at(19), used=True) == "decided"
    assert break_refusal("in_progress", at(18), at(18, 30), used=True) == "used"
    assert break_refusal("scheduled", at(18), at(18), used=False) is None
    assert break_end(at(18, 30), 10) == at(18, 40)


def test_one_break_per_player_and_a_left_against_them_counts_as_it() -> None:
    """Rules 6.1 (VI.A) and 6.5 (VI.E): "this counts as their break"."""
    took = UsedBreak("break", "resolved", reporter_id=1, against_id=None)
    left_against_1 = UsedBreak("left", "open", reporter_id=2, against_id=1)
    cancelled_left = UsedBreak("left", "cancelled", reporter_id=2, against_id=1)
    assert break_used([took], 1) and not break_used([took], 2)
    assert break_used([left_against_1], 1) and not break_used([left_against_1], 2)
    assert not break_used([cancelled_left], 1)
    assert not break_used([], 1)


def test_left_needs_a_started_match_and_one_report_at_a_time() -> None:
    """Rule 6.5 (VI.E)."""
    assert left_refusal("scheduled", at(18), at(17), already_reported=False) == "not_started"
    assert left_refusal("bye", at(18), at(19), already_reported=False) == "decided"
    assert left_refusal("in_progress", at(18), at(19), already_reported=True) == (
        "already_reported"
    )
    assert left_refusal("in_progress", at(18), at(19), already_reported=False) is None
    assert left_return_end(at(18, 20), 10) == at(18, 30)
    assert left_came_back(True) and not left_came_back(False)


def test_a_noshow_report_is_refused_with_the_reason_a_player_is_told() -> None:
    """Rule 6.4 (VI.D): no time, decided, a game counted, too early, too late, twice."""

    def refusal(state: str, agreed: datetime | None, now: datetime, **kw: int | bool) -> object:
        args: dict[str, int | bool] = {
            "counted_games": 0,
            "window_minutes": 60,
            "already_reported": False,
        }
        args.update(kw)
        return noshow_refusal(state, agreed, now, **args)  # type: ignore[arg-type]

    assert refusal("negotiating", None, at(18)) == "no_time"
    assert refusal("scheduled", None, at(18)) == "no_time"
    assert refusal("finished", at(18), at(18, 5)) == "decided"
    assert refusal("in_progress", at(18), at(18, 5), counted_games=1) == "games_played"
    assert refusal("in_progress", at(18), at(18, 5)) is None
    assert refusal("scheduled", at(18), at(17, 59)) == "early"
    assert refusal("scheduled", at(18), at(19, 1)) == "late"
    assert refusal("scheduled", at(18), at(18, 5), already_reported=True) == "already_reported"
    assert refusal("scheduled", at(18), at(19)) is None


def test_played_refusal_reads_counted_games_only_in_progress() -> None:
    assert played_refusal("scheduled", 3) is None
    assert played_refusal("in_progress", 0) is None
    assert played_refusal("in_progress", 2) == "games_played"
    assert played_refusal("negotiating", 0) == "decided"


def test_a_game_between_them_cancels_a_claim() -> None:
    """Rules 6.4 (VI.D), 6.5 (VI.E): from the match time less the margin."""
    assert games_cancel_from(at(18), 5) == at(17, 55)
    assert claim_cancelled(["https://lichess.org/abcdefgh"], False)
    assert claim_cancelled(None, True)
    assert not claim_cancelled(None, False) and not claim_cancelled([], False)


def test_the_second_message_waits_for_both_clocks() -> None:
    assert second_message_early(at(18, 14), at(18, 15))
    assert not second_message_early(at(18, 15), at(18, 15))
    assert not second_message_early(at(18, 14), None)


def test_when_a_claim_may_be_made_and_what_cancels_it() -> None:
    """Rule 6.4 (VI.D): a confirmed no-show, not while rescheduling; rule 6.5 (VI.E): a
    /left once the return period is over."""

    def since(kind: str, state: str, now: datetime, **kw: object) -> object:
        args: dict[str, object] = {
            "agreed_time": at(18),
            "rescheduling": False,
            "reported": at(18, 20),
            "return_end": at(18, 30),
            "margin_minutes": 5,
        }
        args.update(kw)
        return claim_since(kind=kind, state=state, now=now, **args)  # type: ignore[arg-type]

    assert since("no_show", "confirmed", at(18, 20)) == at(17, 55)
    assert since("no_show", "confirmed", at(18, 20), rescheduling=True) == "rescheduling"
    assert since("no_show", "open", at(18, 20)) == "closed"
    assert since("left", "open", at(18, 29)) == "still_returning"
    assert since("left", "confirmed", at(18, 30)) == at(18, 20)
    assert since("left", "claimed", at(18, 40)) == "closed"
    assert since("break", "open", at(18, 40)) == "closed"


def test_a_failed_reschedule_forfeits() -> None:
    """Rule 6.4 (VI.D): "if the reschedule fails, the match is forfeited in their favour"."""
    assert reschedule_forfeits(time_agreed_again=False)
    assert not reschedule_forfeits(time_agreed_again=True)


def test_a_forfeit_needs_an_undecided_match_and_one_of_its_players() -> None:
    """Rule 1.5 (I.E)."""
    assert forfeit_refusal(exists=False, players=(0, None), winner_id=1, state="") == "no_match"
    assert forfeit_refusal(exists=True, players=(1, None), winner_id=1, state="bye") == ("no_match")
    assert forfeit_refusal(exists=True, players=(1, 2), winner_id=3, state="scheduled") == (
        "not_a_player"
    )
    assert forfeit_refusal(exists=True, players=(1, 2), winner_id=2, state="finished") == (
        "decided"
    )
    assert forfeit_refusal(exists=True, players=(1, 2), winner_id=2, state="in_progress") is None
    assert forfeit_result((1, 2), 1, win_points=1.0) == (1.0, 0.0)
    assert forfeit_result((1, 2), 2, win_points=1.0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        forfeit_result((1, 2), 3, win_points=1.0)


def test_two_forfeits_disqualify_but_not_those_a_disqualification_caused() -> None:
    """Rule 6.6 (VI.F): "forfeited in two different matches"."""
    assert counted_forfeits([False, True, False]) == 2
    assert counted_forfeits([True, True]) == 0
    assert not disqualified_by_forfeits(1, 2, still_in=True)
    assert disqualified_by_forfeits(2, 2, still_in=True)
    assert not disqualified_by_forfeits(3, 2, still_in=False)
    with pytest.raises(ValueError):
        disqualified_by_forfeits(2, 0, still_in=True)


@given(st.lists(st.booleans()), st.integers(min_value=1, max_value=5))
def test_the_forfeit_count_never_exceeds_the_forfeits(flags: list[bool], threshold: int) -> None:
    counted = counted_forfeits(flags)
    assert 0 <= counted <= len(flags)
    assert disqualified_by_forfeits(counted, threshold, still_in=True) == (counted >= threshold)
