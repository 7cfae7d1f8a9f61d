"""What players and the TD read about match-day incidents (rule VI); times via discord_time."""

from __future__ import annotations

from datetime import datetime

from bot.message_text import quote
from bot.timefmt import discord_time


def games_seen(urls: list[str] | None) -> str:
    if urls is None:
        return "Lichess could not be checked right now."
    if not urls:
        return "Lichess shows no game between them since then."
    return "Lichess shows these games between them since then: " + ", ".join(urls)


# --- /noshow --------------------------------------------------------------------------------


def noshow_too_early(t: datetime) -> str:
    return f"Your match starts at {discord_time(t)}; a no-show can only be reported after that."


def noshow_too_late(t: datetime, minutes: int) -> str:
    return (
        f"No-shows must be reported within {minutes} minutes of the agreed time "
        f"({discord_time(t)}). Contact the tournament director."
    )


def noshow_no_time() -> str:
    return "Your match has no agreed time, so nobody can be absent from it yet."


def match_decided(board: str) -> str:
    return f"Your match is already decided, so there is nothing to report or claim.\n{board}"


def games_played(board: str) -> str:
    return (
        "Games of your match have been played and counted, so this is not a no-show "
        f"(rule VI.D). If your opponent left during the match, use /left.\n{board}"
    )


def noshow_open() -> str:
    return "A no-show report for this match is already open."


def in_progress(url: str) -> str:
    """A game link Lichess shows as still being played."""
    return f"{url} (in progress right now)"


def noshow_games_found(urls: list[str]) -> str:
    return (
        "Lichess already shows a game between you since the agreed time, so this is not a "
        "no-show: " + ", ".join(urls)
    )


def noshow_td_first(
    place: str,
    claimant: str,
    absent: str,
    agreed: datetime,
    seen: list[str] | None,
    grace_end: datetime,
) -> str:
    return (
        f"🚩 No-show report, {place} (rule VI.D), first message on behalf of "
        f"**{claimant}**: **{absent}** has not shown up for the match agreed for "
        f"{discord_time(agreed)}; their grace period runs until {discord_time(grace_end, 'T')}. "
        f"{games_seen(seen)}"
    )


def _grace(grace_end: datetime, now: datetime) -> str:
    """The absent player's clock: it runs from the match time, not from the report."""
    when = discord_time(grace_end, "T")
    if now < grace_end:
        return f"has until {when} to come online and start the game"
    return f"had until {when} to come online; that grace period is over"


def noshow_reply(absent: str, grace_end: datetime, ask_at: datetime, now: datetime) -> str:
    return (
        f"Reported: the tournament director has been told that {absent} is not here (your "
        f"first message). {absent} {_grace(grace_end, now)} (rule VI.D: the grace period "
        f"runs from the match time). At {discord_time(ask_at, 'T')} I will ask you "
        "whether they are still absent: that is your second message (rule VI.D)."
    )


def noshow_opponent_dm(claimant: str, grace_end: datetime, ask_at: datetime, now: datetime) -> str:
    if now < grace_end:
        return (
            f"⚠️ {claimant} reports that you have not shown up for your match. Come online and "
            f"start the game by {discord_time(grace_end, 'T')} (rule VI.D: the grace period "
            "runs from the match time), or you may lose the match by forfeit."
        )
    return (
        f"⚠️ {claimant} reports that you have not shown up for your match. Your grace period "
        f"ended at {discord_time(grace_end, 'T')} (rule VI.D: it runs from the match time): "
        f"come online and start the game now. If you are still absent at "
        f"{discord_time(ask_at, 'T')}, {claimant} may claim the win by forfeit."
    )


def noshow_check_dm(absent: str) -> str:
    return (
        f"{absent}'s grace period is over, and so is the wait after your first message. Is "
        f"{absent} still absent? Press a button: confirming sends the tournament director the "
        "second message (rule VI.D)."
    )


def second_message_not_yet(when: datetime) -> str:
    return (
        f"Your second message is due at {discord_time(when, 'T')} (rule VI.D); I will ask you then."
    )


def noshow_td_second(place: str, claimant: str, absent: str, seen: list[str] | None) -> str:
    return (
        f"🚩 No-show, {place} (rule VI.D), second message on behalf of "
        f"**{claimant}**: **{absent}** is still absent after the grace period. "
        f"{games_seen(seen)} {claimant} now chooses to claim the win or to reschedule."
    )


def noshow_choice(absent: str) -> str:
    return (
        f"The tournament director has been told {absent} is still absent. Choose: "
        "**Claim the win** (the match is forfeited in your favour; the TD can overrule) or "
        "**Reschedule** (negotiation reopens; if no new time is agreed by the round deadline, "
        "the match is forfeited in your favour)."
    )


def arrived_reply() -> str:
    return "Good: the no-show report is closed. Enjoy your match!"


def claim_cancelled(urls: list[str]) -> str:
    return "Lichess shows a game between you, so the claim is cancelled: " + ", ".join(urls) + "."


def claimed_reply(opponent: str) -> str:
    return (
        f"You win the match against {opponent} by forfeit. The tournament director can still "
        "overrule this."
    )


def claimed_td(place: str, claimant: str, absent: str, kind: str, called: str) -> str:
    """`called`: the claim as the pick list of `/td incident overrule` names it, so the TD
    knows which entry to pick (no row id: issue 32)."""
    return (
        f"⚖️ {claimant} claimed the win of {place} ({kind}) against {absent}; the match is "
        f"forfeited. Overrule with `/td incident overrule`: pick “{called}”."
    )


def rescheduled_reply(deadline: datetime) -> str:
    return (
        "Negotiation is open again: agree on a new time with /offer and /accept. If no new "
        f"time is agreed by {discord_time(deadline)}, the match is forfeited in your favour "
        "(rule VI.D)."
    )


def rescheduled_post(claimant: str, absent: str, deadline: datetime) -> str:
    return (
        f"🔁 {claimant} chose to reschedule after {absent}'s no-show (rule VI.D). Agree on a "
        f"new time with /offer and /accept by {discord_time(deadline)}; without one, the match "
        f"is forfeited in {claimant}'s favour."
    )


def reschedule_failed_reason() -> str:
    return "no-show, and no new time agreed by the round deadline (rule VI.D)"


# --- /break ---------------------------------------------------------------------------------


def break_used() -> str:
    return "You have already used your break in this match (rule VI.A allows one)."


def match_not_started() -> str:
    return "Your match has not started yet."


def break_post(player: str, ends: datetime, minutes: int) -> str:
    return (
        f"☕ {player} takes their break (rule VI.A): at most {minutes} minutes, until "
        f"{discord_time(ends, 'T')}."
    )


def break_reply(ends: datetime) -> str:
    return f"Your break has started; be back by {discord_time(ends, 'T')}."


def break_over(player: str) -> str:
    return f"⏰ {player}'s break is over: the match continues now."


# --- /left ----------------------------------------------------------------------------------


def left_open() -> str:
    return "There is already an open report that your opponent left."


def left_post(absent: str, ends: datetime, minutes: int) -> str:
    return (
        f"🚪 {absent} left the match (reported by their opponent). They have {minutes} minutes, "
        f"until {discord_time(ends, 'T')}, to come back; this counts as their break (rule VI.E)."
    )


def left_reply(absent: str, ends: datetime) -> str:
    return (
        f"Reported. {absent} has until {discord_time(ends, 'T')} to come back; after that, "
        "if no new game has started, you can claim the win."
    )


def left_dm(claimant: str, ends: datetime) -> str:
    return (
        f"⚠️ {claimant} reports that you left the match. Come back by "
        f"{discord_time(ends, 'T')} (rule VI.E); this counts as your break."
    )


def left_break_used_td(place: str, absent: str, claimant: str) -> str:
    return (
        f"⚠️ {place}: {claimant} reports that {absent} left, and {absent} had "
        "already used their break (rules VI.A, VI.E). Please look into it."
    )


def left_claim_dm(absent: str) -> str:
    return (
        f"{absent}'s time to come back is over. If no new game has started between you, "
        "you may claim the win (rule VI.E)."
    )


# --- the TD ---------------------------------------------------------------------------------


def overruled_post(claim: str, reason: str) -> str:
    """In the match's thread; `claim` is the claim by who against whom."""
    return (
        f"⚖️ The tournament director overruled the {claim}: {quote(reason)}. "
        "Agree on a (new) time with /offer and /accept."
    )


def overrule_reply(claim: str) -> str:
    return f"The {claim} is overruled; both players have been told."


def not_yours() -> str:
    return "This is not your report: only the player who made it can answer."


def incident_gone() -> str:
    """A player's button for a report that no longer exists (its id is never shown)."""
    return "This report no longer exists."


def no_such_incident(incident_id: int) -> str:
    """The reply to an incident value typed instead of picked: it echoes what was typed."""
    return f"There is no incident {incident_id}: pick the claim from the list the command offers."


def incident_closed() -> str:
    return "This report is already closed."


_CLAIM_NAMES = {"no_show": "no-show", "left": "left-the-match", "break": "break"}


def claim_withdrawn_accused(place: str, kind: str, claimant: str, why: str) -> str:
    """To the accused player: the claim that could have cost them the match is off; `why`
    is worded for them (`withdrawn_why`)."""
    return (
        f"✅ The {_CLAIM_NAMES.get(kind, kind)} claim {claimant} made against you "
        f"({place}) is withdrawn: {why}. Nothing is forfeited."
    )


def claim_withdrawn_claimant(place: str, kind: str, accused: str, why: str) -> str:
    """To the claimant, when the claim was called off by something other than their own
    button (their reply told them) or the TD's ruling (its thread post tells them)."""
    return (
        f"✅ Your {_CLAIM_NAMES.get(kind, kind)} claim against {accused} ({place}) is "
        f"withdrawn: {why}. Nothing is forfeited; the match goes on."
    )


def claim_withdrawn_td(
    place: str, reported: datetime, kind: str, claimant: str, accused: str, why: str
) -> str:
    """To the TD, who got the claim's report: it needs nothing from them any more. The claim
    is named by who, what and when (never a row id)."""
    return (
        f"✅ The {_CLAIM_NAMES.get(kind, kind)} claim {claimant} made against {accused} "
        f"({place}, reported {discord_time(reported)}) is withdrawn: {why}. Nothing to decide."
    )


# Why a claim was called off (`IncidentBook.cancel`), worded for each reader by
# `withdrawn_why`: the accused is "you" where the TD reads a name.
GAME_FOUND, SHOWED_UP, CAME_BACK, OVERRULED = "game_found", "showed_up", "came_back", "overruled"


def withdrawn_why(code: str, reader: str, claimant: str, accused: str, reason: str = "") -> str:
    """`reader`: "accused", "claimant" or "td"; `reason` (already quoted): the TD's, for
    an overruled claim."""
    you = reader == "accused"
    if code == GAME_FOUND:
        return "Lichess shows a game between " + ("you" if reader != "td" else "them")
    if code == SHOWED_UP:
        if reader == "claimant":
            return f"you said {accused} showed up"
        return f"{claimant} says " + ("you" if you else accused) + " showed up"
    if code == CAME_BACK:
        who = "you" if you else accused
        return f"{who} came back: a game of the match was played after the report"
    return f"overruled by the TD: {reason}"


def bye_no_opponent() -> str:
    return "You have a bye this round: there is no opponent."


def claim_reason(kind: str) -> str:
    """The forfeit's reason, as the players and the TD read it."""
    return "no-show, rule VI.D" if kind == "no_show" else "left the match, rule VI.E"


def chose_to_reschedule() -> str:
    return "You chose to reschedule this match; agree on a new time."


def still_returning() -> str:
    return "Your opponent still has time to come back; you can claim after the return period."


def overrule_needs_reason() -> str:
    return "Give a reason: it goes to both players and the audit log."


def only_claims_overruled() -> str:
    return "Only no-show and left claims can be overruled."


def forfeit_no_longer_stands(match: str) -> str:
    """`match`: its place and players, as /td round set-score's pick list names it."""
    return f"{match} no longer stands as this forfeit; correct it with /td round set-score."


def round_closed_for_overrule(round_number: int, match: str) -> str:
    return f"Round {round_number} is closed; correct {match} with /td round set-score."
