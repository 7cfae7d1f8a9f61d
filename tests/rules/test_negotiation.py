"""Tests for bot.rules.negotiation (rules IV and V)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.negotiation import (
    AcceptRefusal,
    Deadlines,
    acceptance_refusal,
    counted_offer_problems,
    deadlines,
    fault_at_offers_due,
    in_past,
    offer_problems,
    offers_that_count,
    proposed_time_problems,
    too_late,
)


def utc(day: int, hour: int = 0, minute: int = 0, second: int = 0, month: int = 10) -> datetime:
    return datetime(2019, month, day, hour, minute, second, tzinfo=UTC)


# --- offer_problems (rule V.D) -----------------------------------------------------


def test_valid_offers() -> None:
    assert offer_problems([utc(2, 18), utc(3, 18), utc(4, 12)]) == []
    assert offer_problems([]) == []
    # Exactly three hours apart and two on one date is fine.
    assert offer_problems([utc(2, 15), utc(2, 18), utc(3, 1)]) == []


def test_less_than_three_hours_apart() -> None:
    assert offer_problems([utc(2, 18), utc(2, 20), utc(4, 12)]) == [
        "2019-10-02 18:00 UTC and 2019-10-02 20:00 UTC are less than 3 hours apart (rule V.D)"
    ]
    # Across midnight counts too.
    assert offer_problems([utc(2, 23), utc(3, 1, 30)]) == [
        "2019-10-02 23:00 UTC and 2019-10-03 01:30 UTC are less than 3 hours apart (rule V.D)"
    ]
    # 2:59:59 apart is too close.
    assert len(offer_problems([utc(2, 12), utc(2, 14, 59, 59)])) == 1


def test_duplicates_are_too_close() -> None:
    assert offer_problems([utc(2, 18), utc(2, 18)]) == [
        "2019-10-02 18:00 UTC and 2019-10-02 18:00 UTC are less than 3 hours apart (rule V.D)"
    ]


def test_more_than_two_on_one_date() -> None:
    assert offer_problems([utc(2, 0), utc(2, 12), utc(2, 23)]) == [
        "3 offers on 2019-10-02 (UTC): 2019-10-02 00:00 UTC, 2019-10-02 12:00 UTC, "
        "2019-10-02 23:00 UTC; at most 2 per date (rule V.D)"
    ]


def test_dates_are_utc_dates() -> None:
    # 23:30 at UTC-2 is 01:30 UTC the next day: not a third offer on 2 October.
    minus2 = timezone(timedelta(hours=-2))
    offers = [utc(2, 6), utc(2, 12), datetime(2019, 10, 2, 23, 30, tzinfo=minus2)]
    assert offer_problems(offers) == []
    plus2 = timezone(timedelta(hours=2))
    offers = [utc(2, 6), utc(2, 12), datetime(2019, 10, 3, 1, 0, tzinfo=plus2)]
    assert offer_problems(offers) == [
        "3 offers on 2019-10-02 (UTC): 2019-10-02 06:00 UTC, 2019-10-02 12:00 UTC, "
        "2019-10-02 23:00 UTC; at most 2 per date (rule V.D)"
    ]


def test_both_problems_and_all_close_pairs() -> None:
    problems = offer_problems([utc(2, 18), utc(2, 19), utc(2, 20)])
    assert problems == [
        "2019-10-02 18:00 UTC and 2019-10-02 19:00 UTC are less than 3 hours apart (rule V.D)",
        "2019-10-02 18:00 UTC and 2019-10-02 20:00 UTC are less than 3 hours apart (rule V.D)",
        "2019-10-02 19:00 UTC and 2019-10-02 20:00 UTC are less than 3 hours apart (rule V.D)",
        "3 offers on 2019-10-02 (UTC): 2019-10-02 18:00 UTC, 2019-10-02 19:00 UTC, "
        "2019-10-02 20:00 UTC; at most 2 per date (rule V.D)",
    ]


def test_parameters_and_formatting() -> None:
    assert offer_problems([utc(2, 10), utc(2, 11, 30)], min_gap=timedelta(hours=1)) == []
    assert offer_problems([utc(2, 10), utc(2, 11, 30)], min_gap=timedelta(minutes=90)) == []
    assert offer_problems([utc(2, 10), utc(2, 11, 29, 30)], min_gap=timedelta(minutes=90)) == [
        "2019-10-02 10:00 UTC and 2019-10-02 11:29:30 UTC are less than 90 minutes apart (rule V.D)"
    ]
    assert offer_problems([utc(2, 1), utc(2, 8), utc(2, 16)], max_per_date=3) == []
    with pytest.raises(ValueError):
        offer_problems([], max_per_date=0)
    with pytest.raises(ValueError):
        offer_problems([], min_gap=timedelta(hours=-1))


def test_naive_offers_raise() -> None:
    with pytest.raises(ValueError):
        offer_problems([utc(2, 18), datetime(2019, 10, 3, 18)])


offer_st = st.datetimes(
    min_value=datetime(2019, 9, 30), max_value=datetime(2019, 10, 6, 23, 59)
).map(lambda d: d.replace(second=0, microsecond=0, tzinfo=UTC))


@given(st.lists(offer_st, max_size=7), st.randoms(use_true_random=False))
def test_offer_problems_order_independent(offers: list[datetime], rnd: object) -> None:
    shuffled = list(offers)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert offer_problems(shuffled) == offer_problems(offers)


@given(st.lists(offer_st, max_size=6))
def test_offer_problems_against_definition(offers: list[datetime]) -> None:
    close = any(
        abs(a - b) < timedelta(hours=3) for i, a in enumerate(offers) for b in offers[i + 1 :]
    )
    crowded = any(sum(o.date() == p.date() for o in offers) > 2 for p in offers)
    assert (offer_problems(offers) == []) == (not close and not crowded)


# --- deadlines (rules IV.F, V.C, V.H) -------------------------------------------------


def test_deadlines_first_round_2019() -> None:
    # Round 1 started Monday 30 September 2019.
    d = deadlines(utc(30, month=9))
    assert d == Deadlines(
        offers_due=utc(2, 23, 59, 59),  # end of Wednesday 2 October, inclusive
        weekend=utc(5),  # Saturday 00:00 UTC
        round_end=utc(6, 23, 59, 59),  # Sunday 23:59:59 UTC
    )
    assert d.offers_due.weekday() == 2 and d.weekend.weekday() == 5
    assert d.round_end.weekday() == 6
    assert d.offers_due.tzinfo is UTC


def test_deadlines_accepts_monday_midnight_in_another_zone() -> None:
    minus4 = timezone(timedelta(hours=-4))
    d = deadlines(datetime(2019, 9, 29, 20, 0, tzinfo=minus4))
    assert d.round_end == utc(6, 23, 59, 59)
    assert d.round_end.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "start",
    [utc(1), utc(30, 0, 0, 1, month=9), utc(30, 12, month=9), datetime(2019, 9, 30)],
)
def test_deadlines_reject_non_monday_or_naive(start: datetime) -> None:
    with pytest.raises(ValueError):
        deadlines(start)


def test_deadlines_custom_offsets() -> None:
    # Explicit offsets define the calendar: a round starting on a Tuesday noon.
    d = deadlines(
        utc(1, 12),
        offers_due_offset=timedelta(days=2),
        weekend_offset=timedelta(days=4),
        round_end_offset=timedelta(days=6),
    )
    assert d == Deadlines(utc(3, 12), utc(5, 12), utc(7, 12))
    with pytest.raises(ValueError):
        deadlines(utc(30, month=9), weekend_offset=timedelta(days=1))  # before offers due


# --- fault (rules V.C, V.E, V.F) -------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "agreed", "expected"),
    [
        (3, 3, False, "none"),
        (5, 4, False, "none"),
        (0, 0, True, "none"),  # an accepted offer ends the duty (V.C)
        (1, 2, True, "none"),
        (2, 3, False, "a"),
        (3, 0, False, "b"),
        (2, 2, False, "both"),
        (0, 0, False, "both"),
    ],
)
def test_fault(a: int, b: int, agreed: bool, expected: str) -> None:
    assert fault_at_offers_due(a, b, agreed) == expected


def test_fault_parameters_and_validation() -> None:
    assert fault_at_offers_due(2, 2, False, required=2) == "none"
    assert fault_at_offers_due(1, 2, False, required=2) == "a"
    for bad in ((-1, 3, False), (3, 1.5, False), (True, 3, False), (3, 3, "no")):
        with pytest.raises(ValueError):
            fault_at_offers_due(*bad)  # type: ignore[arg-type]


# --- single proposed times --------------------------------------------------------------


def test_too_late() -> None:
    end = utc(6, 23, 59, 59)
    assert not too_late(utc(6, 21, 59, 59), end)
    assert too_late(utc(6, 22), end)
    assert not too_late(utc(6, 12), end)
    assert too_late(utc(7, 1), end)
    assert not too_late(utc(6, 23), end, margin=timedelta(minutes=30))
    with pytest.raises(ValueError):
        too_late(datetime(2019, 10, 6, 12), end)


def test_in_past() -> None:
    now = utc(2, 12)
    assert in_past(utc(2, 11, 59), now)
    assert not in_past(utc(2, 12), now)
    assert not in_past(utc(2, 13), now)
    with pytest.raises(ValueError):
        in_past(utc(2, 13), datetime(2019, 10, 2, 12))


def test_proposed_time_problems() -> None:
    end = utc(6, 23, 59, 59)
    assert proposed_time_problems(utc(4, 18), now=utc(2, 12), round_end=end) == []
    assert proposed_time_problems(utc(1, 18), now=utc(2, 12), round_end=end) == [
        "2019-10-01 18:00 UTC is in the past"
    ]
    assert proposed_time_problems(utc(6, 23), now=utc(2, 12), round_end=end) == [
        "2019-10-06 23:00 UTC is too late: allowing 2 hours for the match, it would not "
        "finish by the round end 2019-10-06 23:59:59 UTC (rule IV.F)"
    ]


def test_too_late_does_not_overflow_near_the_end_of_time() -> None:
    end = datetime(2019, 10, 6, 23, 59, 59, tzinfo=UTC)
    assert too_late(datetime(9999, 12, 31, 23, 59, tzinfo=UTC), end)


# --- offers_that_count, counted_offer_problems (rules V.C, V.D) ------------------------------


def test_a_fourth_offer_is_not_held_to_rule_v_d() -> None:
    """Three valid offers made: the player owes nothing, so a fourth an hour from the first
    (and a third on that date) is not refused."""
    three = [utc(1, 18), utc(2, 18), utc(3, 18)]
    assert counted_offer_problems(three, [utc(1, 19)], in_time=True) == []
    assert offers_that_count(three, [utc(1, 19)], in_time=True) == three


def test_an_owed_offer_is_held_to_rule_v_d() -> None:
    two = [utc(1, 18), utc(2, 18)]
    assert counted_offer_problems(two, [utc(1, 19)], in_time=True) == [
        "2019-10-01 18:00 UTC and 2019-10-01 19:00 UTC are less than 3 hours apart (rule V.D)"
    ]
    assert counted_offer_problems(two, [utc(4, 12)], in_time=True) == []


def test_new_offers_fill_the_owed_slots_in_order() -> None:
    """One offer owed, two made in one message: the first counts (and is checked), the
    second is an extra."""
    two = [utc(1, 18), utc(2, 18)]
    assert offers_that_count(two, [utc(4, 12), utc(1, 19)], in_time=True) == [*two, utc(4, 12)]
    assert counted_offer_problems(two, [utc(4, 12), utc(1, 19)], in_time=True) == []
    assert counted_offer_problems(two, [utc(1, 19), utc(4, 12)], in_time=True) != []
    # Three owed, all in one message: all three are checked together.
    assert counted_offer_problems([], [utc(1, 18), utc(1, 19)], in_time=True) != []


def test_offers_after_the_deadline_count_for_nothing() -> None:
    assert offers_that_count([utc(1, 18)], [utc(4, 18), utc(4, 19)], in_time=False) == [utc(1, 18)]
    assert counted_offer_problems([utc(1, 18)], [utc(4, 18), utc(4, 19)], in_time=False) == []


def test_only_the_first_required_earlier_offers_count() -> None:
    four = [utc(1, 18), utc(2, 18), utc(3, 18), utc(1, 19)]
    assert offers_that_count(four, [utc(5, 1)], in_time=True) == four[:3]
    with pytest.raises(ValueError):
        offers_that_count([], [], in_time=True, required=-1)


@given(st.lists(offer_st, max_size=4), st.lists(offer_st, max_size=4), st.booleans())
def test_what_counts_is_at_most_required_and_starts_with_the_earlier(
    counted: list[datetime], new: list[datetime], in_time: bool
) -> None:
    got = offers_that_count(counted, new, in_time=in_time, required=3)
    assert len(got) <= 3
    assert got[: min(len(counted), 3)] == counted[:3]
    # What does not count is never a problem: the answer is V.D over what counts.
    assert counted_offer_problems(counted, new, in_time=in_time) == offer_problems(got)


def test_who_may_accept_an_offer() -> None:
    """Rule V.G: the opponent answers an open offer in time; the reasons come in the order a
    player is told them (whose offer, still open, whose match, then the times)."""
    now = datetime(2019, 10, 1, 12, tzinfo=UTC)
    base = {
        "accepter": 2,
        "offered_by": 1,
        "players": [1, 2],
        "answerable": True,
        "replaces_agreed": False,
        "agreed": False,
        "proposed": now + timedelta(days=1),
        "round_end": now + timedelta(days=5),
        "now": now,
    }
    assert acceptance_refusal(**base) is None
    assert acceptance_refusal(**{**base, "accepter": 1}) is AcceptRefusal.OWN_OFFER
    assert acceptance_refusal(**{**base, "offered_by": None}) is AcceptRefusal.CLOSED
    assert acceptance_refusal(**{**base, "accepter": 3}) is AcceptRefusal.NOT_A_PLAYER
    assert acceptance_refusal(**{**base, "answerable": False}) is AcceptRefusal.CLOSED
    assert acceptance_refusal(**{**base, "agreed": True}) is AcceptRefusal.CLOSED
    assert acceptance_refusal(**{**base, "agreed": True, "replaces_agreed": True}) is None
    late = {**base, "now": now + timedelta(days=6), "proposed": now + timedelta(days=7)}
    assert acceptance_refusal(**late) is AcceptRefusal.ROUND_OVER
    past = {**base, "proposed": now - timedelta(hours=1)}
    assert acceptance_refusal(**past) is AcceptRefusal.TIME_PASSED
    # whose offer it is is said first, whatever else is wrong
    assert acceptance_refusal(**{**past, "accepter": 1, "agreed": True}) is AcceptRefusal.OWN_OFFER
