"""A format's week: when a round starts, when offers are due, when the weekend starts and
when the round ends, as plain data (a weekday and a UTC time for each boundary).

* 2019 (rules IV.E-F, V.C, V.H): Monday 00:00 to Sunday 23:59:59; offers by Wednesday (its
  last second, 23:59:59, as `bot.rules.negotiation.DEFAULT_OFFERS_DUE_OFFSET`); the weekend
  from Saturday 00:00.
* 2020 rules, Timeline: from Wednesday, "All matches must be completed by the following
  Wednesday 00:00 UTC" (exactly 7 days); Match negotiations: offers "by Saturday at the
  latest", read as the end of Saturday (23:59:59). Offers are then due after the weekend has
  started (Saturday 00:00): :func:`round_offsets` gives them in that order, which
  `bot.rules.negotiation.deadlines` (offers due before the weekend) refuses.
* 2021-2024 rules: from Tuesday, "completed by the following Monday 23:59 UTC"; offers "by
  Friday 23:59 UTC". "23:59" is read as the whole minute, to 23:59:59 (a design choice: the
  end of the day, written the 2019 way; the next round starts at 00:00).

Every boundary is the first time its weekday and time come strictly after the round's start
(a round end on the start's weekday at the same time is 7 days later: 2020). Breaks between
stages are whole weeks: 2020-2024 rules, Timeline, "a 1-week break between the Qualification
and [the next] round, and between the Candidates round and [the next]".
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

__all__ = [
    "WEEK_2019",
    "WEEK_2020",
    "WEEK_2021",
    "Boundary",
    "RoundOffsets",
    "RoundWindow",
    "Week",
    "first_start_on_or_after",
    "next_start",
    "round_offsets",
    "round_window",
    "stage_start_after",
]

MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY, SATURDAY, SUNDAY = range(7)
_WEEK = timedelta(days=7)
_LAST_SECOND = time(23, 59, 59)


@dataclass(frozen=True)
class Boundary:
    """A weekday (0 = Monday, as `datetime.weekday`) and a UTC time of day."""

    weekday: int
    at: time = time(0, 0)


@dataclass(frozen=True)
class Week:
    """A format's week: ``start`` opens a round; ``offers_due`` is the last instant offers
    count (inclusive); ``weekend`` is when the TD looks for fault; ``round_end`` is the last
    instant of the round (inclusive)."""

    start: Boundary
    offers_due: Boundary
    weekend: Boundary
    round_end: Boundary


WEEK_2019 = Week(
    Boundary(MONDAY),
    Boundary(WEDNESDAY, _LAST_SECOND),
    Boundary(SATURDAY),
    Boundary(SUNDAY, _LAST_SECOND),
)
WEEK_2020 = Week(
    Boundary(WEDNESDAY),
    Boundary(SATURDAY, _LAST_SECOND),
    Boundary(SATURDAY),
    Boundary(WEDNESDAY),
)
WEEK_2021 = Week(
    Boundary(TUESDAY),
    Boundary(FRIDAY, _LAST_SECOND),
    Boundary(SATURDAY),
    Boundary(MONDAY, _LAST_SECOND),
)


@dataclass(frozen=True)
class RoundOffsets:
    """The boundaries as offsets from the round's start, as `bot.rules.negotiation.deadlines`
    takes them (``offers_due_offset``, ``weekend_offset``, ``round_end_offset``)."""

    offers_due: timedelta
    weekend: timedelta
    round_end: timedelta


@dataclass(frozen=True)
class RoundWindow:
    """One round's instants (aware, UTC)."""

    start: datetime
    offers_due: datetime
    weekend: datetime
    round_end: datetime


def _check_week(week: Week) -> None:
    for name in ("start", "offers_due", "weekend", "round_end"):
        b = getattr(week, name)
        if not isinstance(b, Boundary) or not isinstance(b.at, time) or b.at.tzinfo is not None:
            raise ValueError(f"{name} must be a Boundary with a naive (UTC) time, got {b!r}")
        if isinstance(b.weekday, bool) or b.weekday not in range(7):
            raise ValueError(f"{name}'s weekday must be 0 (Monday) to 6, got {b.weekday!r}")


def _offset(start: Boundary, b: Boundary) -> timedelta:
    """From ``start`` to the first time ``b`` comes strictly after it."""
    at = timedelta(hours=b.at.hour, minutes=b.at.minute, seconds=b.at.second)
    since = timedelta(hours=start.at.hour, minutes=start.at.minute, seconds=start.at.second)
    out = timedelta(days=(b.weekday - start.weekday) % 7) + at - since
    return out if out > timedelta(0) else out + _WEEK


def round_offsets(week: Week) -> RoundOffsets:
    """The offsets of the week's boundaries from a round's start (2019: 2 d 23:59:59, 5 d,
    6 d 23:59:59, the negotiation module's defaults)."""
    _check_week(week)
    return RoundOffsets(
        _offset(week.start, week.offers_due),
        _offset(week.start, week.weekend),
        _offset(week.start, week.round_end),
    )


def _utc(value: datetime, name: str) -> datetime:
    if not isinstance(value, datetime) or value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be an aware datetime, got {value!r}")
    return value.astimezone(UTC)


def _is_start(week: Week, moment: datetime) -> bool:
    return moment.weekday() == week.start.weekday and moment.time() == week.start.at


def round_window(
    week: Week, first_start: datetime, number: int, *, breaks: Collection[int] = ()
) -> RoundWindow:
    """Round ``number`` (from 1) of rounds played one a week from ``first_start`` (a start of
    ``week``, else ``ValueError``). ``breaks`` are the round numbers a week's break comes
    before (a number given twice, two weeks): round 8 after a 7-round Swiss and a break is
    ``round_window(week, start, 8, breaks=[8])``."""
    _check_week(week)
    start0 = _utc(first_start, "first_start")
    if not _is_start(week, start0):
        raise ValueError(f"first_start must be a start of the week, got {start0.isoformat()}")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"number must be a round number from 1, got {number!r}")
    for b in breaks:
        if isinstance(b, bool) or not isinstance(b, int) or b < 2:
            raise ValueError(f"a break comes before round 2 or later, got {b!r}")
    skipped = sum(1 for b in breaks if b <= number)
    start = start0 + (number - 1 + skipped) * _WEEK
    off = round_offsets(week)
    return RoundWindow(start, start + off.offers_due, start + off.weekend, start + off.round_end)


def next_start(week: Week, after: datetime) -> datetime:
    """The first start of ``week`` at or after ``after`` (a moment that is a start is its
    own: 2020's rounds end at the Wednesday 00:00 the next one starts)."""
    _check_week(week)
    moment = _utc(after, "after")
    day = datetime.combine(moment.date(), week.start.at, tzinfo=UTC)
    candidate = day + timedelta(days=(week.start.weekday - day.weekday()) % 7)
    return candidate if candidate >= moment else candidate + _WEEK


def stage_start_after(week: Week, last_round_end: datetime, *, break_weeks: int) -> datetime:
    """The next stage's first round start: the week start at or after the last round's end,
    then ``break_weeks`` whole weeks later (2024: the Swiss ends Monday 23:59:59, the break
    week runs Tuesday to Monday, the Candidates start the Tuesday after)."""
    if isinstance(break_weeks, bool) or not isinstance(break_weeks, int) or break_weeks < 0:
        raise ValueError(f"break_weeks must be a whole number of weeks, got {break_weeks!r}")
    return next_start(week, last_round_end) + break_weeks * _WEEK


def first_start_on_or_after(week: Week, day: date) -> datetime:
    """The first round start of ``week`` on or after ``day`` (UTC), e.g. the first
    pairings' Tuesday 8 October 2024."""
    if not isinstance(day, date) or isinstance(day, datetime):
        raise ValueError(f"day must be a date, got {day!r}")
    _check_week(week)
    return next_start(week, datetime.combine(day, time(0, 0), tzinfo=UTC))
