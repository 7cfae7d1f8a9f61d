"""Match conduct (rule VI): breaks (VI.A), no-shows (VI.D), leaving (VI.E), forfeits
(VI.F, and rule I.E's forfeit at the TD's discretion).

Match and incident states are the strings the database stores (db.models.MatchState,
IncidentKind, IncidentState values); the service reads the rows and applies the answer.

Rule 6.4 (VI.D): the no-show's two clocks.

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

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

__all__ = [
    "ClaimRefusal",
    "ForfeitRefusal",
    "NoShowClocks",
    "NoShowRefusal",
    "PlayRefusal",
    "StartRefusal",
    "UsedBreak",
    "break_end",
    "break_refusal",
    "break_used",
    "claim_cancelled",
    "claim_since",
    "counted_forfeits",
    "disqualified_by_forfeits",
    "forfeit_refusal",
    "forfeit_result",
    "games_cancel_from",
    "left_came_back",
    "left_refusal",
    "left_return_end",
    "noshow_clocks",
    "noshow_grace_end",
    "noshow_refusal",
    "noshow_report_timing",
    "noshow_second_message_due",
    "played_refusal",
    "reschedule_forfeits",
    "second_message_early",
    "start_refusal",
]

# Match states (db.models.MatchState values).
NEGOTIATING, SCHEDULED, IN_PROGRESS = "negotiating", "scheduled", "in_progress"
FINISHED, FORFEITED, BYE = "finished", "forfeited", "bye"
PLAYING = frozenset({SCHEDULED, IN_PROGRESS})
DECIDED = frozenset({FINISHED, FORFEITED, BYE})
# Incident kinds and states (db.models.IncidentKind, IncidentState values).
NO_SHOW, BREAK, LEFT = "no_show", "break", "left"
OPEN, CONFIRMED, CANCELLED = "open", "confirmed", "cancelled"
LIVE = frozenset({OPEN, CONFIRMED})


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
    """Rule 6.4 (VI.D): when the absent player's grace period ends: the match time plus the
    grace, however late the appearing player reports them."""
    return _utc(match_time, "match_time") + _minutes(grace_minutes, "grace_minutes")


def noshow_second_message_due(first_message: datetime, interval_minutes: int) -> datetime:
    """Rule 6.4 (VI.D): when the appearing player's second message to the TD is due: this
    long after their first message."""
    return _utc(first_message, "first_message") + _minutes(interval_minutes, "interval_minutes")


@dataclass(frozen=True)
class NoShowClocks:
    """Rule 6.4 (VI.D): the two instants for one claim, and when the claimant is asked to
    confirm."""

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
    """Rule 6.4 (VI.D): both clocks of a no-show claimed at ``first_message`` for a match at
    ``match_time``.

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
    """Rule 6.4 (VI.D): whether a no-show may be reported at ``now``: not before the match
    time (nobody is absent yet), and not more than ``window_minutes`` after it (the TD
    handles later reports; the window is the bot's, the rules name none). Both ends are
    inclusive."""
    start = _utc(match_time, "match_time")
    at = _utc(now, "now")
    if at < start:
        return "early"
    if at > start + _minutes(window_minutes, "window_minutes"):
        return "late"
    return "in_time"


# --- what every claim shares ----------------------------------------------------------------

PlayRefusal = Literal["decided", "games_played"]


def played_refusal(state: str, counted_games: int) -> PlayRefusal | None:
    """Rule 6.4 (VI.D), rule 6.5 (VI.E): a decided match, or one where a game already
    counted, has no no-show or absence left to claim. ``counted_games`` is read only for a
    match in progress."""
    if state not in PLAYING:
        return "decided"
    if state == IN_PROGRESS and counted_games > 0:
        return "games_played"
    return None


def games_cancel_from(match_time: datetime, margin_minutes: int) -> datetime:
    """Rule 6.4 (VI.D): a game between the two created from this instant on (the match
    time less the margin Lichess's clocks allow) shows both came: it cancels a no-show."""
    return _utc(match_time, "match_time") - _minutes(margin_minutes, "margin_minutes")


def claim_cancelled(found_on_lichess: Iterable[str] | None, counted_by_the_bot: bool) -> bool:
    """Rule 6.4 (VI.D), rule 6.5 (VI.E): a game between the two since the claim started
    (on Lichess, in progress or not, or already counted by the bot) means nobody is absent:
    the claim is off."""
    return counted_by_the_bot or bool(list(found_on_lichess or ()))


# --- rule 6.1 (VI.A): breaks ----------------------------------------------------------------

StartRefusal = Literal["not_started", "decided"]


def start_refusal(state: str, agreed_time: datetime | None, now: datetime) -> StartRefusal | None:
    """Rule 6.1 (VI.A), rule 6.5 (VI.E): a break or a /left needs a match that has started
    (its agreed time has come) and is not decided."""
    if state == NEGOTIATING:
        return "not_started"
    if state not in PLAYING:
        return "decided"
    if agreed_time is None or _utc(now, "now") < _utc(agreed_time, "agreed_time"):
        return "not_started"
    return None


@dataclass(frozen=True)
class UsedBreak:
    """Rule 6.1 (VI.A): an incident of the match as the rule reads it: its kind, its state,
    who reported it and against whom."""

    kind: str
    state: str
    reporter_id: int
    against_id: int | None


def break_used(incidents: Iterable[UsedBreak], player_id: int) -> bool:
    """Rule 6.1 (VI.A), rule 6.5 (VI.E): the player's one break is used by a break they
    took, or by a /left reported against them ("this counts as their break"); a cancelled
    one does not count."""
    return any(
        i.state != CANCELLED
        and (
            (i.kind == BREAK and i.reporter_id == player_id)
            or (i.kind == LEFT and i.against_id == player_id)
        )
        for i in incidents
    )


def break_refusal(
    state: str, agreed_time: datetime | None, now: datetime, *, used: bool
) -> StartRefusal | Literal["used"] | None:
    """Rule 6.1 (VI.A): "each player may call one break": the match must have started and
    be undecided (:func:`start_refusal`), and the player's break must be unused."""
    refusal = start_refusal(state, agreed_time, now)
    if refusal is not None:
        return refusal
    return "used" if used else None


def break_end(start: datetime, break_minutes: int) -> datetime:
    """Rule 6.1 (VI.A): a break lasts "a maximum of 10 minutes" (configured) from its call."""
    return _utc(start, "start") + _minutes(break_minutes, "break_minutes")


# --- rule 6.5 (VI.E): leaving mid-match ---------------------------------------------------


def left_refusal(
    state: str, agreed_time: datetime | None, now: datetime, *, already_reported: bool
) -> StartRefusal | Literal["already_reported"] | None:
    """Rule 6.5 (VI.E): a player may report the opponent gone once the match has started,
    and not twice at once."""
    refusal = start_refusal(state, agreed_time, now)
    if refusal is not None:
        return refusal
    return "already_reported" if already_reported else None


def left_return_end(reported: datetime, return_minutes: int) -> datetime:
    """Rule 6.5 (VI.E): the player who left has 10 minutes (configured) to come back."""
    return _utc(reported, "reported") + _minutes(return_minutes, "return_minutes")


def left_came_back(game_since_report: bool) -> bool:
    """Rule 6.5 (VI.E): "if they don't come back in time" the opponent may claim; a game of
    the match played since the report shows they came back, and the claim is not offered."""
    return game_since_report


# --- rule 6.4 (VI.D): no-shows --------------------------------------------------------------

NoShowRefusal = Literal["no_time", "decided", "games_played", "early", "late", "already_reported"]


def noshow_refusal(
    state: str,
    agreed_time: datetime | None,
    now: datetime,
    *,
    counted_games: int,
    window_minutes: int,
    already_reported: bool,
) -> NoShowRefusal | None:
    """Rule 6.4 (VI.D): a no-show can be reported once a time is agreed, while no game has
    counted and the match is undecided, from the match time for ``window_minutes``
    (:func:`noshow_report_timing`), and once per match at a time."""
    if state == NEGOTIATING:
        return "no_time"
    played = played_refusal(state, counted_games)
    if played is not None:
        return played
    if agreed_time is None:
        return "no_time"
    timing = noshow_report_timing(agreed_time, now, window_minutes=window_minutes)
    if timing != "in_time":
        return timing
    return "already_reported" if already_reported else None


def second_message_early(now: datetime, confirm_from: datetime | None) -> bool:
    """Rule 6.4 (VI.D): true while the second message to the TD is not yet due (both
    clocks must have run out, :attr:`NoShowClocks.confirm_from`)."""
    return confirm_from is not None and _utc(now, "now") < _utc(confirm_from, "confirm_from")


ClaimRefusal = Literal["rescheduling", "still_returning", "closed"]


def claim_since(
    *,
    kind: str,
    state: str,
    now: datetime,
    agreed_time: datetime | None,
    rescheduling: bool,
    reported: datetime,
    return_end: datetime | None,
    margin_minutes: int,
) -> datetime | ClaimRefusal:
    """Rule 6.4 (VI.D), rule 6.5 (VI.E): whether the claimant may now claim the win (or,
    for a no-show, reschedule), and from when games between the two would cancel it.

    A no-show: once confirmed (the second message), unless the claimant chose to
    reschedule; games from the match time (:func:`games_cancel_from`) cancel it. A /left:
    once the return period is over; games since the report cancel it.
    """
    if kind == NO_SHOW and state == CONFIRMED and agreed_time is not None:
        if rescheduling:
            return "rescheduling"
        return games_cancel_from(agreed_time, margin_minutes)
    if kind == LEFT and state in LIVE:
        if return_end is not None and _utc(now, "now") < _utc(return_end, "return_end"):
            return "still_returning"
        return _utc(reported, "reported")
    return "closed"


def reschedule_forfeits(time_agreed_again: bool) -> bool:
    """Rule 6.4 (VI.D): "if the reschedule fails, the match is forfeited in their favour":
    at the round deadline a rescheduled match with no new agreed time is forfeited to the
    player who appeared."""
    return not time_agreed_again


# --- rule 6.6 (VI.F) and rule 1.5 (I.E): forfeits -------------------------------------------

ForfeitRefusal = Literal["no_match", "not_a_player", "decided"]


def forfeit_refusal(
    *, exists: bool, players: tuple[int, int | None], winner_id: int, state: str
) -> ForfeitRefusal | None:
    """Rule 1.5 (I.E), rule 6.6 (VI.F): only an undecided match between two players can be
    forfeited, and only to one of them."""
    if not exists or players[1] is None:
        return "no_match"
    if winner_id not in players:
        return "not_a_player"
    if state in DECIDED:
        return "decided"
    return None


def forfeit_result(
    players: tuple[int, int], winner_id: int, *, win_points: float
) -> tuple[float, float]:
    """Rule 1.5 (I.E): a forfeited match is a win for the winner and nothing for the loser,
    as (points of the first player, points of the second)."""
    if winner_id not in players:
        raise ValueError(f"{winner_id} does not play this match")
    return (win_points, 0.0) if winner_id == players[0] else (0.0, win_points)


def counted_forfeits(by_disqualification: Iterable[bool]) -> int:
    """Rule 6.6 (VI.F): the player's forfeited matches that count towards disqualification,
    one flag per match they lost by forfeit: those a disqualification or a withdrawal gave
    away (rule VIII.A.1) are the consequence of leaving, not of a forfeit, and do not count."""
    return sum(1 for flag in by_disqualification if not flag)


def disqualified_by_forfeits(forfeits: int, threshold: int, *, still_in: bool) -> bool:
    """Rule 6.6 (VI.F): "forfeited in two different matches" (configured) disqualifies a
    player who is still in the championship."""
    if isinstance(threshold, bool) or threshold < 1:
        raise ValueError(f"threshold must be a positive whole number, got {threshold!r}")
    return still_in and forfeits >= threshold
