"""Wording of the match-time negotiation (rule V): replies, thread posts, DMs, TD alerts.

Every time shown to a user goes through `discord_time` (each reader sees their local time,
with the UTC value beside it, as rule V.B speaks UTC).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from discord.utils import format_dt

from bot.config import NegotiationConfig
from bot.features.matches.text import progress_board
from bot.features.negotiation.types import MatchView, OfferInfo
from bot.rules.negotiation import TimeRefusal
from bot.timefmt import deadline_time, discord_time, utc_text
from db.models import OfferKind, OfferState, Round

KIND_LABELS = {
    OfferKind.OFFER: "offer",
    OfferKind.RESCHEDULE: "reschedule",
    OfferKind.CHOSEN: "chosen (rule V.E)",
    OfferKind.ASSIGNED: "assigned by the TD",
}
STATE_LABELS = {
    OfferState.OPEN: "open",
    OfferState.ACCEPTED: "accepted",
    OfferState.SUPERSEDED: "superseded",
    OfferState.WITHDRAWN: "withdrawn",
    OfferState.EXPIRED: "expired",
}

# A UTC instant as the rules engine writes it (`fmt_utc`).
_UTC_TEXT = re.compile(r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?) UTC")


def with_discord_times(message: str) -> str:
    """Show every `YYYY-MM-DD HH:MM UTC` of a rules-engine message as a Discord timestamp."""

    def replace(match: re.Match[str]) -> str:
        raw = match.group(1)
        fmt = "%Y-%m-%d %H:%M:%S" if raw.count(":") == 2 else "%Y-%m-%d %H:%M"
        return discord_time(datetime.strptime(raw, fmt).replace(tzinfo=UTC))

    return _UTC_TEXT.sub(replace, message)


def bullet_list(items: Iterable[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


# --- who and what ---------------------------------------------------------------------


def not_a_player() -> str:
    return "You are not a player in the championship, so you have no match to negotiate."


def no_current_match() -> str:
    return "You have no match in a published round right now."


def bye() -> str:
    return "You have a bye this round: there is no match time to agree."


def match_over() -> str:
    return "This match is already over; its time can no longer change."


def not_your_match() -> str:
    return "This is not your match: only its two players (and the TD) can act on it."


def nth(n: int) -> str:
    """1st, 2nd, 3rd, 4th... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def offer_ref(number: int, by: str | None = None) -> str:
    """An offer as players read it: its number among its offerer's offers in the match
    ("KaiLund78's 2nd offer"), never the global row id."""
    return f"{by}'s {nth(number)} offer" if by else f"your {nth(number)} offer"


def no_such_offer_row() -> str:
    return "This offer no longer exists. Use /match to see the offers of your match."


def no_such_offer(number: int) -> str:
    return (
        f"Your opponent has no {nth(number)} offer in your current match. Use /match to "
        "see its offers."
    )


def no_such_match(match_id: int) -> str:
    return f"There is no match {match_id}."


# --- offers -----------------------------------------------------------------------------


def already_agreed(agreed: datetime) -> str:
    return (
        f"Your match time is already agreed: {discord_time(agreed)}. "
        "To propose a different time, use /reschedule."
    )


def nothing_to_reschedule() -> str:
    return "Your match has no agreed time yet: make offers with /offer instead."


def offer_refused(problems: Sequence[str]) -> str:
    return "Offer refused; nothing was changed:\n" + bullet_list(problems)


def time_refused(
    refusal: TimeRefusal, t: datetime, round_: Round, negotiation: NegotiationConfig
) -> str:
    """Why `t` cannot be the match time (rule IV.F)."""
    if refusal is TimeRefusal.IN_PAST:
        return in_the_past(t)
    if refusal is TimeRefusal.BEFORE_ROUND:
        return before_round(t, round_.starts_at)
    if refusal is TimeRefusal.AFTER_ROUND:
        return after_round(t, round_.deadline)
    return too_late(t, round_.deadline, negotiation.finish_margin_minutes)


def in_the_past(t: datetime) -> str:
    return f"{discord_time(t)} is in the past."


def before_round(t: datetime, starts_at: datetime) -> str:
    return f"{discord_time(t)} is before the round starts ({discord_time(starts_at)})."


def after_round(t: datetime, deadline: datetime) -> str:
    return f"{discord_time(t)} is after the round ends ({discord_time(deadline)}, rule IV.F)."


def too_late(t: datetime, deadline: datetime, minutes: int) -> str:
    return (
        f"{discord_time(t)} is too late: allowing {minutes} minutes for the match, it would "
        f"not finish by the round deadline {discord_time(deadline)} (rule IV.F)."
    )


def twice_in_message(t: datetime) -> str:
    return f"{discord_time(t)} is given twice in this message."


def own_duplicate(t: datetime, number: int) -> str:
    return f"You already offered {discord_time(t)} ({offer_ref(number)}, still open)."


def opponent_offered(t: datetime, number: int) -> str:
    return (
        f"Your opponent already offered {discord_time(t)}: accept it with "
        f"`/accept offer:{number}` instead."
    )


def same_as_agreed(t: datetime) -> str:
    return f"{discord_time(t)} is already the agreed time."


def offers_made(
    result_offers: Sequence[OfferInfo],
    opponent: str,
    owed: int,
    due: datetime,
    read_in: str | None = None,
) -> str:
    lines = [f"Offered to **{opponent}**:"]
    lines += [f"- {offer_ref(o.number)}: {discord_time(o.time)}" for o in result_offers]
    if owed:
        lines.append(
            f"You still owe {owed} offer{'s' if owed != 1 else ''} by {deadline_time(due)} "
            "(rule V.C)."
        )
    lines.append(f"{opponent} can accept with the button or /accept.")
    lines.append(recorded_in_utc(read_in))
    return "\n".join(lines)


def recorded_in_utc(read_in: str | None) -> str:
    """The rules record UTC (rule V.B): said with every time a player's typing set."""
    if read_in:
        return (
            f"Times you gave without a zone were read in **{read_in}** (your /timezone); the "
            "rules record the UTC time shown in brackets (rule V.B)."
        )
    return "The rules record the UTC time shown in brackets (rule V.B)."


# --- /timezone ---------------------------------------------------------------------------------


def bad_zone(problem: str) -> str:
    return f"Time zone not changed. {problem}"


def zone_set_reply(zone: str | None, previous: str | None, example_utc: datetime) -> str:
    if zone is None:
        was = f" (was {previous})" if previous else ""
        return (
            f"Your times are read in UTC again{was}: `wed 18:00` means 18:00 UTC, as the rules "
            "record it (rule V.B)."
        )
    return (
        f"Your times are now read in **{zone}** when you give no zone: `wed 18:00` means "
        f"18:00 in {zone}, and the rules record it in UTC (rule V.B): 18:00 today in {zone} "
        f"is {utc_text(example_utc)}. Every reply shows the UTC time beside yours. "
        "`/timezone zone:UTC` goes back to UTC."
    )


def offer_posted(offerer: str, opponent: str, t: datetime, number: int) -> str:
    """The offer's one copy: the round thread's post, `opponent` a mention (it notifies)."""
    ref = offer_ref(number, offerer)
    return (
        f"**{offerer}** offers {opponent} a match time: {discord_time(t)} ({ref}). "
        "Press Accept, or offer other times with /offer (rule V.G)."
    )


def reschedule_posted(
    proposer: str, opponent: str, t: datetime, current: datetime, number: int
) -> str:
    """`opponent` is a mention: the thread post is the one copy they get."""
    return (
        f"**{proposer}** proposes to move the match with {opponent} from "
        f"{discord_time(current)} to {discord_time(t)} ({offer_ref(number, proposer)}). It "
        "only takes effect "
        "if they press Accept before the round deadline."
    )


def reschedule_made(t: datetime, current: datetime, opponent: str) -> str:
    return (
        f"Proposed to move your match from {discord_time(current)} to {discord_time(t)}. "
        f"The agreed time stays {discord_time(current)} until {opponent} accepts."
    )


def unanswered_reminder(offerer: str, offers: list[tuple[datetime, int]]) -> str:
    """One reminder for every offer of `offerer` still open in the match: a player who made
    three offers at once does not reach the opponent as three reminders. Each offer is
    `(time, its number among the offerer's offers)`."""
    if len(offers) == 1:
        ((t, number),) = offers
        return (
            f"Reminder: **{offerer}**'s {nth(number)} offer, {discord_time(t)}, is still "
            "unanswered. Accept it, or make a counter-offer with /offer (rule V.G)."
        )
    listed = "; ".join(f"{discord_time(t)} ({nth(n)} offer)" for t, n in offers)
    return (
        f"Reminder: **{offerer}**'s {len(offers)} offers are still unanswered: {listed}. "
        "Accept one (the button takes the first; `/accept offer:<its number>` any), or make "
        "a counter-offer with /offer (rule V.G)."
    )


# --- accepting ----------------------------------------------------------------------------


def own_offer() -> str:
    return "You made this offer yourself: your opponent is the one who can accept it."


def only_opponent_accepts(opponent: str) -> str:
    return f"Only {opponent} can accept this offer."


def no_open_offer() -> str:
    return "Your opponent has no open offer to accept. Use /match to see your match."


def several_open(offers: Sequence[OfferInfo]) -> str:
    lines = ["Your opponent has several open offers; say which one with `/accept offer:<number>`:"]
    lines += [f"- {offer_ref(o.number, o.by_name)}: {discord_time(o.time)}" for o in offers]
    return "\n".join(lines)


def offer_closed(agreed: datetime | None) -> str:
    if agreed is not None:
        return f"This offer is no longer open. The match time agreed is {discord_time(agreed)}."
    return "This offer is no longer open. Use /match to see the open offers."


def lost_race(agreed: datetime) -> str:
    return (
        "Too late: another time was agreed a moment before. "
        f"The match time agreed is {discord_time(agreed)}."
    )


def time_passed(t: datetime) -> str:
    return f"{discord_time(t)} has already passed; offer a new time with /offer."


def round_over(deadline: datetime) -> str:
    return f"The round ended at {discord_time(deadline)}; the time can no longer change."


def agreed_reply(t: datetime, previous: datetime | None) -> str:
    if previous is not None:
        return f"Done: your match moves from {discord_time(previous)} to {discord_time(t)}."
    return f"Done: your match time is {discord_time(t)}."


HOW = {
    OfferKind.OFFER: "offer accepted",
    OfferKind.RESCHEDULE: "reschedule accepted",
    OfferKind.CHOSEN: "chosen under rule V.E",
    OfferKind.ASSIGNED: "assigned by the TD",  # the reason: `assigned_how`
}
HOW_AFTER_RULING = "chosen under rule V.I"  # a choice after the TD found fault (rule V.H)


def agreed_post(
    a: str,
    b: str,
    t: datetime,
    previous: datetime | None,
    kind: OfferKind,
    bound: tuple[str, str, bool] | None = None,
    assigned: str | None = None,
) -> str:
    """The agreement's one copy, `a` and `b` mentions; `kind` says how the time was set.
    `bound`: (chooser, bound player, after a TD's ruling?) when a choice binds a player
    (rule V.E, or V.H and V.I); `assigned`: a TD's time, with why (`assigned_how`)."""
    how = HOW_AFTER_RULING if bound is not None and bound[2] else assigned or HOW[kind]
    if previous is not None:
        text = (
            f"Match time of {a} vs {b} moved from {discord_time(previous)} to "
            f"{discord_time(t)} ({how})."
        )
    else:
        text = f"Match time of {a} vs {b} fixed: {discord_time(t)} ({how})."
    if bound is not None:
        chooser, player, ruled = bound
        if ruled:
            why, rule = f"the TD found {player} at fault (rule V.H)", "rule V.I"
        else:
            why, rule = f"{player} had not made the required offers in time", "rule V.E"
        text += f" {chooser} chose it; because {why}, this choice binds them ({rule})."
    return text


def reminders_reply(on: bool, changed: bool) -> str:
    """/notify's answer: what the player will and will not get."""
    now = "" if changed else "already "
    if on:
        return (
            f"Reminders are {now}**on**: you are mentioned in your match's thread before each "
            "agreed match time, and get a DM when an offer to you is unanswered for a day. "
            "`/notify reminders:off` mutes them."
        )
    return (
        f"Reminders are {now}**off**: no reminders before your matches or about unanswered "
        "offers. Offers, agreed times, game links and decisions about your matches still "
        "reach you (they are not reminders). `/notify reminders:on` turns them back on."
    )


def match_reminder(mentions: list[str], a: str, b: str, t: datetime) -> str:
    """ "starts in 1 hour, at <your time> (UTC)": the relative time, then the time once; one
    post in the match's thread mentions the players who want reminders."""
    return (
        f"Reminder: {' '.join(mentions)}, **{a}** vs **{b}** starts {format_dt(t, 'R')}, "
        f"at {discord_time(t)}."
    )


# --- choosing and the TD ---------------------------------------------------------------------


def not_chooser(chooser: str | None, td_assigns: bool) -> str:
    if td_assigns:
        return "The TD assigns the time of this match (rules V.F, V.I); you cannot choose it."
    if chooser:
        return f"Only {chooser} can choose the time of this match (rules V.E, V.I)."
    return (
        "Nobody chooses the time of this match: agree on it with your opponent "
        "through /offer and /accept."
    )


def choose_request(at_fault: str, deadline: datetime, reason: str) -> str:
    return (
        f"{reason} You choose the time of your match against **{at_fault}**: use "
        f"`/choose time:` (e.g. `/choose time: sat 18:00`). Your choice binds them; "
        f"it must let the match finish before the round deadline {discord_time(deadline)}."
    )


def opponent_missed_offers(at_fault: str) -> str:
    return f"{at_fault} did not make the required offers in time (rule V.E)."


def opponent_ruled_at_fault(at_fault: str) -> str:
    return f"The TD ruled {at_fault} at fault for the failed negotiation (rule V.I)."


NO_OFFERS_RULE = (
    '"the match will count as a draw and both players will count as having forfeited a game"'
)
NO_FAULT_RULE = '"if no player is at fault then the match will be ruled as a draw"'


def _score(a: float, b: float) -> str:
    return f"{a:g}-{b:g}"


def no_offers_draw(a: str, b: str, score_a: float, score_b: float) -> str:
    """Both made no offers by the deadline and the format rules a draw (2020 on): told once
    in the match's thread, `a` and `b` being mentions (by DM without a thread)."""
    return (
        f"{a} and {b}: neither of you made the required offers by the deadline (rule V.C), "
        f"so under this championship's rules {NO_OFFERS_RULE}. The match is recorded as a "
        f"draw, {_score(score_a, score_b)}, and each of you has one forfeit on record: a "
        "player who forfeits in two different matches is disqualified (rule VI.F)."
    )


def no_fault_draw(a: str, b: str, score_a: float, score_b: float) -> str:
    """The TD found nobody at fault and the format rules a draw (2020 on): told once in the
    match's thread, `a` and `b` being mentions (by DM without a thread)."""
    return (
        f"{a} and {b}: the TD ruled that nobody is at fault for the failed negotiation, and "
        f"under this championship's rules {NO_FAULT_RULE}. The match is recorded as a draw, "
        f"{_score(score_a, score_b)}; no forfeit is counted."
    )


# --- /match -----------------------------------------------------------------------------------


def match_view(view: MatchView) -> str:
    if view.opponent is None:
        return f"Round {view.round_number}: you have a bye."
    lines = [
        f"**Round {view.round_number}, board {view.board}** (match {view.match_id}): "
        f"**{view.me}** vs **{view.opponent}**",
        f"Round deadline: {discord_time(view.round_deadline)}",
    ]
    progress = view.progress
    if progress is not None and (view.started or progress.games or progress.decided):
        # Match day: the score comes first, then what was arranged.
        lines.insert(1, progress_board(progress))
        if progress.decided:
            return "\n".join(lines)
        if progress.challenge_url:
            white = progress.link_white
            side = f" (**{white}** has White in its first game)" if white else ""
            lines.insert(2, f"Game link: {progress.challenge_url}{side}")
        if progress.live_game:
            lines.insert(2, f"Game in progress: {progress.live_game}")
    if view.agreed_time is not None:
        lines.append(f"Agreed time: {discord_time(view.agreed_time)}")
    else:
        lines.append("Agreed time: none yet")
        lines.append(
            f"Offers still owed by {deadline_time(view.offers_due)} (rule V.C): you "
            f"{view.my_offers_owed}, {view.opponent} {view.opponent_offers_owed}"
        )
        if view.td_assigns:
            lines.append("The TD assigns the time (rules V.F, V.I).")
        elif view.chooser is not None:
            who = "You choose" if view.i_choose else f"{view.chooser} chooses"
            lines.append(f"{who} the time (rules V.E, V.I); see /choose.")
    mine = [o for o in view.offers if o.mine]
    theirs = [o for o in view.offers if not o.mine and o.by_player_id is not None]
    for title, offers in (("Your offers", mine), (f"{view.opponent}'s offers", theirs)):
        lines.append(f"{title}:" if offers else f"{title}: none")
        lines += [
            f"- {nth(o.number)} offer: {discord_time(o.time)} · "
            f"{KIND_LABELS[o.kind]}, {STATE_LABELS[o.state]}"
            for o in offers
        ]
    return "\n".join(lines)  # a long one is replied in parts (cogs.common.reply_in_parts)


def final_session_score(a: str, b: str, score_a: float, score_b: float) -> str:
    """The Final's score when a session ends and the next one is being arranged."""
    return (
        f"👑 Final, end of a session: **{a}** {score_a:g}–{score_b:g} **{b}**. The finalists "
        "are arranging the next session."
    )
