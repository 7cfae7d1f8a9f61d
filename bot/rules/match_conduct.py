"""Match conduct (rule VI): the no-show's two clocks (rule VI.D).

Rule VI.D runs two clocks that the bot once merged into one. The absent player's grace
period runs from the match time: "they have a 10 minute grace period to come online",
so at a match agreed for 18:00 they must start by 18:10 whenever the claim was made. The
appearing player's second message is due "10 minutes afterwards", after their own first
message: a claim at 18:05 is repeated at 18:15. The claimant is asked for the second message
once both have passed (with the 2019 minutes the second always comes last, since a claim
cannot be made before the match time).

Pure functions over aware datetimes; the minutes are configuration
(`match_day.noshow_grace_minutes`, `match_day.noshow_second_message_minutes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

__all__ = [
    "NoShowClocks",
    "noshow_clocks",
    "noshow_grace_end",
    "noshow_report_timing",
    "noshow_second_message_due",
]


def _utc(value: datetime, name: str) -> datetime:
    """Reject naive datetimes: the rules speak UTC (rule V.B)."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware (UTC), got naive {value!r}")
    return value.astimezone(UTC)


def _minutes(value: int, name: str) -> timedelta:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative whole number of minutes, got {value!r}")
    return timedelta(minutes=value)


def noshow_grace_end(match_time: datetime, grace_minutes: int) -> datetime:
    """When the absent player's grace period ends (rule VI.D): the match time plus the grace,
    however late the appearing player reports them."""
    return _utc(match_time, "match_time") + _minutes(grace_minutes, "grace_minutes")


def noshow_second_message_due(first_message: datetime, interval_minutes: int) -> datetime:
    """When the appearing player's second message to the TD is due (rule VI.D): this long
    after their first message."""
    return _utc(first_message, "first_message") + _minutes(interval_minutes, "interval_minutes")


@dataclass(frozen=True)
class NoShowClocks:
    """Rule VI.D's two instants for one claim, and when the claimant is asked to confirm."""

    grace_end: datetime
    second_message_due: datetime

    @property
    def confirm_from(self) -> datetime:
        """The second message may be sent once the absent player's grace is over and the
        interval after the first message has passed: the later of the two."""
        return max(self.grace_end, self.second_message_due)


def noshow_clocks(
    match_time: datetime,
    first_message: datetime,
    *,
    grace_minutes: int,
    second_message_minutes: int,
) -> NoShowClocks:
    """Both clocks of a no-show claimed at ``first_message`` for a match at ``match_time``.

    A claim at 18:05 for an 18:00 match with 10 and 10 minutes: the absent player starts by
    18:10, the second message is due at 18:15. A first message before the match time is
    refused (``ValueError``): nobody is absent yet (see :func:`noshow_report_timing`).
    """
    start = _utc(match_time, "match_time")
    first = _utc(first_message, "first_message")
    if first < start:
        raise ValueError("a no-show cannot be reported before the match time")
    return NoShowClocks(
        grace_end=noshow_grace_end(start, grace_minutes),
        second_message_due=noshow_second_message_due(first, second_message_minutes),
    )


def noshow_report_timing(
    match_time: datetime, now: datetime, *, window_minutes: int
) -> Literal["early", "in_time", "late"]:
    """Whether a no-show may be reported at ``now`` (rule VI.D): not before the match time
    (nobody is absent yet), and not more than ``window_minutes`` after it (the TD handles
    later reports; the window is the bot's, the rules name none). Both ends are inclusive."""
    start = _utc(match_time, "match_time")
    at = _utc(now, "now")
    if at < start:
        return "early"
    if at > start + _minutes(window_minutes, "window_minutes"):
        return "late"
    return "in_time"
