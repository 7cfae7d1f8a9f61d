"""Match-time negotiation: offer validity, deadlines and fault (rules IV and V).

A round runs Monday 00:00 UTC to Sunday 23:59:59 UTC (rule IV.F).  Each player
offers at least 3 times by Wednesday (V.C), no two closer than 3 hours and no
more than 2 on one date (V.D).  Whoever misses the offers deadline accepts the
opponent's choice (V.E); if both miss it, the TD assigns a time (V.F).

All instants are aware datetimes; naive ones raise ``ValueError`` because the
rules speak UTC (V.B).  Dates ("one date", "Wednesday") are UTC dates.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

__all__ = [
    "DEFAULT_MAX_PER_DATE",
    "DEFAULT_MIN_GAP",
    "DEFAULT_OFFERS_DUE_OFFSET",
    "DEFAULT_REQUIRED_OFFERS",
    "DEFAULT_ROUND_END_OFFSET",
    "DEFAULT_TOO_LATE_MARGIN",
    "DEFAULT_WEEKEND_OFFSET",
    "AcceptRefusal",
    "Deadlines",
    "FaultOutcome",
    "NegotiationRefusal",
    "OfferRecord",
    "TimeRefusal",
    "acceptance_refusal",
    "answer_reminder_due",
    "counted_offer_problems",
    "counted_offer_times",
    "deadlines",
    "fault_at_offers_due",
    "fault_outcome",
    "fmt_utc",
    "in_past",
    "negotiation_refusal",
    "offer_problems",
    "offers_that_count",
    "offers_to_remind",
    "proposed_time_refusal",
    "round_deadlines",
    "too_late",
    "weekend_goes_to_td",
]

DEFAULT_MIN_GAP = timedelta(hours=3)
DEFAULT_MAX_PER_DATE = 2
DEFAULT_REQUIRED_OFFERS = 3
#: End of Wednesday: its last second, 23:59:59 UTC, inclusive (written like the round's end).
DEFAULT_OFFERS_DUE_OFFSET = timedelta(days=2, hours=23, minutes=59, seconds=59)
#: Start of Saturday 00:00 UTC.
DEFAULT_WEEKEND_OFFSET = timedelta(days=5)
#: Sunday 23:59:59 UTC, the last instant of the round (inclusive, rule IV.F).
DEFAULT_ROUND_END_OFFSET = timedelta(days=6, hours=23, minutes=59, seconds=59)
#: A match should not start later than this before the round ends.
DEFAULT_TOO_LATE_MARGIN = timedelta(hours=2)


def _utc(value: datetime, name: str) -> datetime:
    """Reject naive datetimes and convert aware ones to UTC."""
    if not isinstance(value, datetime):
        raise ValueError(f"{name} must be a datetime, got {value!r}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware (UTC), got naive {value!r}")
    return value.astimezone(UTC)


def fmt_utc(value: datetime) -> str:
    """``2019-10-02 18:00 UTC``; seconds are shown only when not zero."""
    v = value.astimezone(UTC)
    if v.second or v.microsecond:
        return v.strftime("%Y-%m-%d %H:%M:%S UTC")
    return v.strftime("%Y-%m-%d %H:%M UTC")


def _fmt_duration(delta: timedelta) -> str:
    """``3 hours``, ``90 minutes``, ``1 hour``: what a player reads in a problem."""
    seconds = int(delta.total_seconds())
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return f"{hours} hour" if hours == 1 else f"{hours} hours"
    if seconds % 60 == 0:
        minutes = seconds // 60
        return f"{minutes} minute" if minutes == 1 else f"{minutes} minutes"
    return f"{seconds} seconds"


def offer_problems(
    offers: Sequence[datetime],
    *,
    min_gap: timedelta = DEFAULT_MIN_GAP,
    max_per_date: int = DEFAULT_MAX_PER_DATE,
) -> list[str]:
    """What is wrong with one player's offered times (rule V.D); empty = valid.

    Every pair of offers less than ``min_gap`` apart is reported (exactly
    ``min_gap`` is fine; the same time twice counts as too close), then every
    UTC date with more than ``max_per_date`` offers.  Offers are sorted first,
    so the answer does not depend on their order.  Whether there are enough
    offers (rule V.C) is :func:`fault_at_offers_due`'s business.
    """
    if not isinstance(min_gap, timedelta) or min_gap < timedelta(0):
        raise ValueError(f"min_gap must be a non-negative timedelta, got {min_gap!r}")
    if isinstance(max_per_date, bool) or not isinstance(max_per_date, int) or max_per_date < 1:
        raise ValueError(f"max_per_date must be a positive integer, got {max_per_date!r}")
    times = sorted(_utc(o, "offer") for o in offers)
    problems: list[str] = []
    for i, first in enumerate(times):
        for second in times[i + 1 :]:
            if second - first >= min_gap:
                break  # sorted: later offers are further away still
            problems.append(
                f"{fmt_utc(first)} and {fmt_utc(second)} are less than "
                f"{_fmt_duration(min_gap)} apart (rule V.D)"
            )
    by_date: dict[date, list[datetime]] = defaultdict(list)
    for t in times:
        by_date[t.date()].append(t)
    for day in sorted(by_date):
        on_day = by_date[day]
        if len(on_day) > max_per_date:
            listed = ", ".join(fmt_utc(t) for t in on_day)
            problems.append(
                f"{len(on_day)} offers on {day.isoformat()} (UTC): {listed}; "
                f"at most {max_per_date} per date (rule V.D)"
            )
    return problems


def offers_that_count(
    counted: Sequence[datetime],
    new: Sequence[datetime],
    *,
    in_time: bool,
    required: int = DEFAULT_REQUIRED_OFFERS,
) -> list[datetime]:
    """The offers rule V.D constrains once ``new`` is added: "the 3 offered times" a
    player owes (rule V.C), not every time they ever offer.

    ``counted`` are the player's offers that already count (made in time, not withdrawn,
    oldest first); ``new`` are the times offered now, in the order given. The new times
    fill the slots still owed, in order; a time offered once the player owes nothing, or
    after the offers deadline (``in_time`` False), counts for nothing and is not checked.
    Only the first ``required`` of ``counted`` are kept (older data may hold more).
    """
    if isinstance(required, bool) or not isinstance(required, int) or required < 0:
        raise ValueError(f"required must be a non-negative integer, got {required!r}")
    kept = list(counted[:required])
    slots = required - len(kept) if in_time else 0
    return [*kept, *new[:slots]]


def counted_offer_problems(
    counted: Sequence[datetime],
    new: Sequence[datetime],
    *,
    in_time: bool,
    required: int = DEFAULT_REQUIRED_OFFERS,
    min_gap: timedelta = DEFAULT_MIN_GAP,
    max_per_date: int = DEFAULT_MAX_PER_DATE,
) -> list[str]:
    """What rule V.D finds wrong among the offers that count once ``new`` is made (see
    :func:`offers_that_count`); empty = the new offers may be made. A fourth offer close
    to an earlier one is fine: the player already owes nothing."""
    return offer_problems(
        offers_that_count(counted, new, in_time=in_time, required=required),
        min_gap=min_gap,
        max_per_date=max_per_date,
    )


@dataclass(frozen=True)
class Deadlines:
    """The instants of a round that the negotiation rules hang on (all UTC).

    ``offers_due`` is an exclusive boundary: offers made before it are in time
    (default Thursday 00:00, i.e. by the end of Wednesday, rule V.C).
    ``weekend`` is the start of Saturday (rule V.H).  ``round_end`` is the last
    instant of the round, inclusive (Sunday 23:59:59, rule IV.F).
    """

    offers_due: datetime
    weekend: datetime
    round_end: datetime


def deadlines(
    round_start: datetime,
    *,
    offers_due_offset: timedelta = DEFAULT_OFFERS_DUE_OFFSET,
    weekend_offset: timedelta = DEFAULT_WEEKEND_OFFSET,
    round_end_offset: timedelta = DEFAULT_ROUND_END_OFFSET,
) -> Deadlines:
    """The deadlines of a round starting at ``round_start`` (rule IV).

    With the default (2019) offsets the offsets name weekdays relative to a
    Monday, so ``round_start`` must be a Monday 00:00 UTC, else ``ValueError``
    (a Tuesday start would silently move "Wednesday" to Thursday).  Passing any
    non-default offset makes the calendar explicit and lifts that check.
    Offsets must be positive and in order (offers due <= weekend <= round end).
    Naive datetimes raise ``ValueError``.
    """
    start = _utc(round_start, "round_start")
    if not timedelta(0) < offers_due_offset <= weekend_offset <= round_end_offset:
        raise ValueError("need 0 < offers_due_offset <= weekend_offset <= round_end_offset")
    defaults = (
        offers_due_offset == DEFAULT_OFFERS_DUE_OFFSET
        and weekend_offset == DEFAULT_WEEKEND_OFFSET
        and round_end_offset == DEFAULT_ROUND_END_OFFSET
    )
    is_monday_midnight = start.weekday() == 0 and start.time() == datetime.min.time()
    if defaults and not is_monday_midnight:
        raise ValueError(f"a round starts on a Monday 00:00 UTC, got {fmt_utc(start)}")
    return Deadlines(
        offers_due=start + offers_due_offset,
        weekend=start + weekend_offset,
        round_end=start + round_end_offset,
    )


def fault_at_offers_due(
    offers_a: int, offers_b: int, agreed: bool, *, required: int = DEFAULT_REQUIRED_OFFERS
) -> str:
    """Who is at fault when the offers deadline passes (rules V.C, V.E, V.F).

    ``"none"`` when a time was agreed (an accepted offer ends the duty, V.C) or
    both made ``required`` offers; ``"a"`` / ``"b"`` when only that player made
    fewer (they accept the opponent's choice, V.E); ``"both"`` when neither did
    (the TD assigns a time, V.F).  Counts are of valid offers made in time.
    """
    for name, value in (("offers_a", offers_a), ("offers_b", offers_b), ("required", required)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if not isinstance(agreed, bool):
        raise ValueError(f"agreed must be a bool, got {agreed!r}")
    if agreed:
        return "none"
    short_a = offers_a < required
    short_b = offers_b < required
    if short_a and short_b:
        return "both"
    if short_a:
        return "a"
    if short_b:
        return "b"
    return "none"


def in_past(proposed: datetime, now: datetime) -> bool:
    """True if ``proposed`` is strictly before ``now`` (a time that can no longer be played)."""
    return _utc(proposed, "proposed") < _utc(now, "now")


def too_late(
    proposed: datetime, round_end: datetime, *, margin: timedelta = DEFAULT_TOO_LATE_MARGIN
) -> bool:
    """True if a match starting at ``proposed`` would not finish by ``round_end``.

    ``margin`` is the time a match is expected to take; the match must end no
    later than ``round_end`` (inclusive), so a start at exactly
    ``round_end - margin`` is still fine.
    """
    if not isinstance(margin, timedelta) or margin < timedelta(0):
        raise ValueError(f"margin must be a non-negative timedelta, got {margin!r}")
    # Subtract from the round end rather than add to the proposal: a proposal near
    # datetime.max (year 9999) must be refused, not overflow.
    return _utc(proposed, "proposed") > _utc(round_end, "round_end") - margin


class TimeRefusal(enum.Enum):
    """Why a proposed match time cannot be played (rule 4.6, IV.F), in the order a player
    is told."""

    IN_PAST = "in the past"
    BEFORE_ROUND = "before the round starts"
    AFTER_ROUND = "after the round ends"
    TOO_LATE = "would not finish by the round end"


def proposed_time_refusal(
    proposed: datetime,
    *,
    now: datetime,
    round_start: datetime,
    round_end: datetime,
    margin: timedelta = DEFAULT_TOO_LATE_MARGIN,
) -> TimeRefusal | None:
    """Rule 4.6 (IV.F): a match is played within its round and done by the round's end, so
    an offered, chosen or assigned time must lie between the round's start and its end less
    ``margin`` (the time a match takes), and must not have passed. None = playable.

    A time after the round's end is refused before any arithmetic with the margin, so a
    far-off time (year 9999) is an answer, not an overflow."""
    if in_past(proposed, now):
        return TimeRefusal.IN_PAST
    if _utc(proposed, "proposed") < _utc(round_start, "round_start"):
        return TimeRefusal.BEFORE_ROUND
    if proposed > _utc(round_end, "round_end"):
        return TimeRefusal.AFTER_ROUND
    if too_late(proposed, round_end, margin=margin):
        return TimeRefusal.TOO_LATE
    return None


class AcceptRefusal(enum.Enum):
    """Why a player may not accept an offer (rule V.G: the opponent answers an offer)."""

    OWN_OFFER = "own offer"  # the offerer does not answer their own offer
    CLOSED = "closed"  # answered, withdrawn, expired, a chosen or assigned time, or already agreed
    NOT_A_PLAYER = "not a player"  # only the offerer's opponent answers
    ROUND_OVER = "round over"  # no time is agreed after the round's deadline (rule IV.F)
    TIME_PASSED = "time passed"  # the time offered has passed


def acceptance_refusal(
    *,
    accepter: int,
    offered_by: int | None,
    players: Sequence[int],
    answerable: bool,
    replaces_agreed: bool,
    agreed: bool,
    proposed: datetime,
    round_end: datetime,
    now: datetime,
) -> AcceptRefusal | None:
    """Whether `accepter` may accept the offer (rule V.G), or why not, in the order a player
    is told: whose offer it is, whether it is still open, whose match, then the times.

    `answerable`: an open offer or reschedule (not a time chosen or assigned); `replaces_agreed`:
    a reschedule, which may move a time already agreed; `agreed`: the match has a time."""
    if offered_by == accepter:
        return AcceptRefusal.OWN_OFFER
    if offered_by is None:
        return AcceptRefusal.CLOSED
    if accepter not in players:
        return AcceptRefusal.NOT_A_PLAYER
    if not answerable or (agreed and not replaces_agreed):
        return AcceptRefusal.CLOSED
    if now > round_end:
        return AcceptRefusal.ROUND_OVER
    if in_past(proposed, now):
        return AcceptRefusal.TIME_PASSED
    return None


# --- the offers of a match, as rules V.C, V.G, V.H and V.I read them ------------------------


@dataclass(frozen=True)
class OfferRecord:
    """One offer of a match, in plain values: ``by`` is the offerer (None: the TD's);
    ``plain`` an /offer (not a reschedule, a chosen or an assigned time); ``answerable`` an
    /offer or a reschedule, which the opponent answers (rule V.G)."""

    ident: int
    by: int | None
    plain: bool
    answerable: bool
    open: bool
    withdrawn: bool
    made_at: datetime
    time: datetime


def round_deadlines(
    round_start: datetime,
    round_end: datetime,
    *,
    offers_due_hours: float,
    weekend_hours: float,
) -> Deadlines:
    """Rule 5.3 (V.C) and rule 5.8 (V.H): the offers are due ``offers_due_hours`` after the
    round starts (the end of Wednesday, an exclusive boundary: Thursday 00:00), the TD looks
    for fault ``weekend_hours`` after it (the start of Saturday); the round ends at
    ``round_end`` (rule 4.6, IV.F). The configured hours, unlike :func:`deadlines`'s
    weekday offsets, hold for a round of any length."""
    start = _utc(round_start, "round_start")
    return Deadlines(
        offers_due=start + timedelta(hours=offers_due_hours),
        weekend=start + timedelta(hours=weekend_hours),
        round_end=_utc(round_end, "round_end"),
    )


def counted_offer_times(
    offers: Sequence[OfferRecord], player: int, *, offers_due: datetime
) -> list[datetime]:
    """Rule 5.3 (V.C): the offers that count for ``player``'s duty, oldest first: their own
    /offers (not reschedules, chosen or assigned times), not withdrawn, made before the
    offers deadline. Their number is what :func:`fault_at_offers_due` compares; rule V.D
    binds the first ``required`` of them (:func:`offers_that_count`)."""
    due = _utc(offers_due, "offers_due")
    mine = [
        o
        for o in offers
        if o.by == player and o.plain and not o.withdrawn and _utc(o.made_at, "made_at") < due
    ]
    return [o.time for o in sorted(mine, key=lambda o: (o.made_at, o.ident))]


def answer_reminder_due(made_at: datetime, *, hours: float) -> datetime:
    """Rule 5.7 (V.G): an offer is answered "preferably within 24 hours" (``hours``): when
    the opponent is reminded of it if it is still open."""
    return _utc(made_at, "made_at") + timedelta(hours=hours)


def offers_to_remind(
    offer: OfferRecord,
    offers: Sequence[OfferRecord],
    *,
    reminded: Collection[int],
    agreed: bool,
    match_open: bool,
    round_end: datetime,
    now: datetime,
    decided: bool = False,
) -> list[int]:
    """Rule 5.7 (V.G): when ``offer``'s day to answer is up, the offers its opponent is
    reminded of, by id; empty = no reminder. Nothing once the offer is answered, the match
    is over (or a bye) or the round has ended, a plain offer once a time is agreed, or a
    time that has passed. One reminder lists the offerer's open offers not reminded yet
    (offers made together fall due together: the first of them lists the others).

    ``decided``: the offers deadline found a player short (rules V.E, V.F) or the TD ruled
    (V.I): who sets the time is decided, and "accept or make a counter-offer" is no longer
    true for the player at fault; they are told what is (docs/MESSAGES.md)."""
    if decided or not offer.open or offer.by is None or not match_open or now > round_end:
        return []
    if (offer.plain and agreed) or in_past(offer.time, now) or offer.ident in reminded:
        return []
    return sorted(
        o.ident
        for o in offers
        if o.open
        and o.by == offer.by
        and o.answerable
        and not in_past(o.time, now)
        and o.ident not in reminded
    )


def weekend_goes_to_td(counted_a: int, counted_b: int, *, settled: bool, required: int) -> bool:
    """Rule 5.8 (V.H): both players made their ``required`` offers (rule V.C) and nothing is
    agreed before the weekend: a TD looks for fault. ``settled``: a time is agreed, or
    someone is already to choose (rule V.E) or the TD to assign (rule V.F)."""
    return not settled and min(counted_a, counted_b) >= required


@dataclass(frozen=True)
class FaultOutcome:
    """What the TD's finding under rule V.H leads to (rule V.I)."""

    chooser: int | None  # the opponent of the player at fault decides the time
    td_assigns: bool  # nobody at fault: the TD assigns it


def fault_outcome(at_fault: int | None, players: tuple[int, int]) -> FaultOutcome:
    """Rule 5.9 (V.I): a player found at fault accepts the time their opponent decides;
    when nobody is, the TD assigns the time."""
    if at_fault is None:
        return FaultOutcome(chooser=None, td_assigns=True)
    if at_fault not in players:
        raise ValueError(f"player {at_fault} is not in the match {players}")
    a, b = players
    return FaultOutcome(chooser=b if at_fault == a else a, td_assigns=False)


class NegotiationRefusal(enum.Enum):
    """Why a match's time cannot be negotiated now (rule 5.1, V.A)."""

    BYE = "bye"  # no opponent: nothing to arrange
    OVER = "over"  # played, forfeited or under way: the time can no longer change
    AGREED = "agreed"  # a time is agreed: only a reschedule moves it


def negotiation_refusal(*, bye: bool, over: bool, agreed: bool) -> NegotiationRefusal | None:
    """Rule 5.1 (V.A): the players negotiate as soon as they are paired (their round is
    published) and until a time is agreed, which then stands (the pairings post shows it);
    a bye has nothing to arrange and a match over cannot change. ``agreed`` False asks only
    whether the match is open (a reschedule, a choice, the TD's ruling)."""
    if bye:
        return NegotiationRefusal.BYE
    if over:
        return NegotiationRefusal.OVER
    if agreed:
        return NegotiationRefusal.AGREED
    return None
