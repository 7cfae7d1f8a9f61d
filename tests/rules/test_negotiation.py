"""Tests for bot.rules.negotiation (rules IV and V)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.negotiation import (
    AcceptRefusal,
    Deadlines,
    NegotiationRefusal,
    OfferRecord,
    TimeRefusal,
    acceptance_refusal,
    answer_reminder_due,
    counted_offer_problems,
    counted_offer_times,
    deadlines,
    fault_at_offers_due,
    fault_outcome,
    in_past,
    negotiation_refusal,
    offer_problems,
    offers_that_count,
    offers_to_remind,
    proposed_time_refusal,
    round_deadlines,
    too_late,
    weekend_goes_to_td,
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


def test_proposed_time_refusal_in_the_order_a_player_is_told() -> None:
    """Rule IV.F: within the round, done by its end (2 hours allowed), not passed."""
    start, end = utc(30, month=9), utc(6, 23, 59, 59)

    def refusal(t: datetime, now: datetime | None = None) -> TimeRefusal | None:
        now = now or utc(2, 12)
        return proposed_time_refusal(t, now=now, round_start=start, round_end=end)

    assert refusal(utc(4, 18)) is None
    assert refusal(utc(6, 21, 59, 59)) is None  # the last start that finishes in time
    assert refusal(utc(1, 18)) is TimeRefusal.IN_PAST
    assert refusal(utc(29, 18, month=9), now=utc(28, month=9)) is TimeRefusal.BEFORE_ROUND
    assert refusal(utc(7, 18)) is TimeRefusal.AFTER_ROUND
    assert refusal(datetime(9999, 12, 31, 23, 59, tzinfo=UTC)) is TimeRefusal.AFTER_ROUND
    assert refusal(utc(6, 23)) is TimeRefusal.TOO_LATE
    assert refusal(utc(6, 22)) is TimeRefusal.TOO_LATE
    # A time both passed and out of the round is told as passed first.
    assert refusal(utc(29, 18, month=9)) is TimeRefusal.IN_PAST


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


# --- rules V.C, V.G, V.H, V.I over a match's offers -------------------------------------------


def offer(
    ident: int,
    by: int | None,
    time: datetime,
    *,
    made_at: datetime | None = None,
    plain: bool = True,
    open_: bool = True,
    withdrawn: bool = False,
) -> OfferRecord:
    return OfferRecord(
        ident=ident,
        by=by,
        plain=plain,
        answerable=by is not None,
        open=open_,
        withdrawn=withdrawn,
        made_at=made_at or utc(1, 12),
        time=time,
    )


def test_round_deadlines_from_the_configured_hours() -> None:
    """Rule V.C: offers by the end of Wednesday (Thursday 00:00, 72 hours); rule V.H: the
    TD looks at the start of Saturday (120 hours)."""
    found = round_deadlines(
        utc(30, month=9), utc(6, 23, 59, 59), offers_due_hours=72, weekend_hours=120
    )
    assert found == Deadlines(utc(3), utc(5), utc(6, 23, 59, 59))


def test_counted_offers_are_own_plain_offers_made_in_time_oldest_first() -> None:
    """Rule V.C: a reschedule, a withdrawn offer, a late one or the opponent's do not count."""
    offers = [
        offer(4, 1, utc(4, 18), made_at=utc(2, 9)),
        offer(2, 1, utc(3, 18), made_at=utc(1, 9)),
        offer(3, 1, utc(5, 18), made_at=utc(3)),  # at the deadline: too late
        offer(5, 1, utc(4, 12), plain=False),  # a reschedule
        offer(6, 1, utc(4, 9), withdrawn=True, open_=False),
        offer(7, 2, utc(4, 20)),
    ]
    assert counted_offer_times(offers, 1, offers_due=utc(3)) == [utc(3, 18), utc(4, 18)]
    assert counted_offer_times(offers, 2, offers_due=utc(3)) == [utc(4, 20)]


def test_the_answer_reminder_is_a_day_after_the_offer() -> None:
    assert answer_reminder_due(utc(1, 12), hours=24) == utc(2, 12)


def test_one_reminder_lists_the_offerers_open_offers_not_reminded_yet() -> None:
    """Rule V.G: "preferably within 24 hours" is one reminder, never a penalty."""
    first, second = offer(1, 1, utc(4, 18)), offer(2, 1, utc(5, 18))
    passed, theirs = offer(3, 1, utc(2, 6)), offer(4, 2, utc(4, 20))
    offers = [second, first, passed, theirs]

    def remind(
        o: OfferRecord,
        reminded: frozenset[int] = frozenset(),
        *,
        agreed: bool = False,
        match_open: bool = True,
        now: datetime | None = None,
    ) -> list[int]:
        return offers_to_remind(
            o,
            offers,
            reminded=reminded,
            agreed=agreed,
            match_open=match_open,
            round_end=utc(6, 23),
            now=now or utc(2, 12),
        )

    assert remind(first) == [1, 2]
    assert remind(second, frozenset({1})) == [2]
    assert remind(first, frozenset({1})) == []  # already in an earlier reminder
    assert remind(passed) == []  # the time has passed
    assert remind(first, agreed=True) == []  # a time was agreed
    assert remind(first, match_open=False) == []
    assert remind(first, now=utc(7)) == []  # the round is over
    assert remind(offer(1, 1, utc(4, 18), open_=False)) == []  # answered
    reschedule = offer(8, 1, utc(4, 12), plain=False)
    assert offers_to_remind(
        reschedule,
        [reschedule],
        reminded=(),
        agreed=True,
        match_open=True,
        round_end=utc(6, 23),
        now=utc(2, 12),
    ) == [8]  # a reschedule moves an agreed time, so it is answered too


def test_the_weekend_check_goes_to_the_td_only_when_both_made_their_offers() -> None:
    """Rule V.H."""
    assert weekend_goes_to_td(3, 3, settled=False, required=3)
    assert weekend_goes_to_td(4, 3, settled=False, required=3)
    assert not weekend_goes_to_td(3, 2, settled=False, required=3)  # rule V.E's business
    assert not weekend_goes_to_td(3, 3, settled=True, required=3)


def test_after_the_fault_ruling_the_opponent_or_the_td_decides() -> None:
    """Rule V.I."""
    assert fault_outcome(1, (1, 2)).chooser == 2
    assert fault_outcome(2, (1, 2)).chooser == 1
    assert not fault_outcome(2, (1, 2)).td_assigns
    nobody = fault_outcome(None, (1, 2))
    assert nobody.chooser is None and nobody.td_assigns
    with pytest.raises(ValueError):
        fault_outcome(3, (1, 2))


def test_a_match_is_negotiated_once_paired_until_a_time_is_agreed() -> None:
    """Rule V.A: a bye has nothing to arrange, a match over cannot change, an agreed time
    stands (a reschedule moves it)."""
    assert negotiation_refusal(bye=False, over=False, agreed=False) is None
    assert negotiation_refusal(bye=True, over=False, agreed=False) is NegotiationRefusal.BYE
    assert negotiation_refusal(bye=True, over=True, agreed=True) is NegotiationRefusal.BYE
    assert negotiation_refusal(bye=False, over=True, agreed=True) is NegotiationRefusal.OVER
    assert negotiation_refusal(bye=False, over=False, agreed=True) is NegotiationRefusal.AGREED
