"""Wording of fair play (rule VII): report replies, the TD's report messages, account alerts.

Only the TD-facing texts ever name the reporter; everything a player reads names no one
but the accused, and only to the reporter themself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.features.fairplay.types import AccountMark, PublicFlag, ReportInfo
from bot.message_text import quote
from bot.rules.fairplay import DESCRIPTION_MAX, STATES
from bot.timefmt import discord_time

STATE_LABELS = {
    "open": "open",
    "investigating": "under investigation",
    "dismissed": "dismissed",
    "upheld": "upheld",
}


# --- to the reporter ------------------------------------------------------------------


def report_received(report_id: int, accused: str) -> str:
    return (
        f"Your cheat report {report_id} about **{accused}** was sent privately to the tournament "
        "director. Nobody else sees it. Please do not accuse anyone in public: rule VII.A "
        "disqualifies public accusers."
    )


def report_handled(report_id: int) -> str:
    return (
        f"The tournament director has handled your cheat report {report_id}. "
        "Thank you for reporting it privately."
    )


# --- refusals ----------------------------------------------------------------------------


def unknown_participant(typed: str, suggestions: Sequence[str]) -> str:
    hint = ""
    if suggestions:
        hint = " Did you mean " + ", ".join(f"`{s}`" for s in suggestions) + "?"
    return (
        f"`{quote(typed, 40)}` is not a participant of the championship. Type the accused player's "
        f"Lichess username.{hint}"
    )


def self_report() -> str:
    return "You cannot report yourself."


def empty_description() -> str:
    return "Please describe what happened: the TD needs it to look into the report."


def description_too_long() -> str:
    return f"The description is too long: keep it under {DESCRIPTION_MAX} characters."


def links_too_long() -> str:
    return "Too many game links: send the most relevant ones; the TD can ask for more."


def bad_links(bad: Sequence[str]) -> str:
    shown = ", ".join(f"`{link[:80]}`" for link in bad[:3])
    return (
        f"Game links must be lichess.org URLs (e.g. `https://lichess.org/abcd1234`); not: {shown}."
    )


def no_such_report(report_id: int) -> str:
    return f"There is no cheat report {report_id}."


def not_td() -> str:
    return "Only the tournament director can handle cheat reports."


def already_disqualified(name: str) -> str:
    return f"{name} is already disqualified."


def no_such_player(player_id: int) -> str:
    return f"There is no player {player_id}."


# --- to the TD -------------------------------------------------------------------------


def report_for_td(info: ReportInfo) -> str:
    """The short head of the TD's report message; the contents go in `report_embeds`."""
    return (
        f"**Cheat report {info.id}** (private, rule VII.A) — state: "
        f"**{STATE_LABELS[info.state]}**\n"
        f"Reporter: <@{info.reporter_discord_id}>\n"
        f"Accused: **{info.accused}** (https://lichess.org/@/{info.accused})"
    )


def report_embeds(info: ReportInfo) -> list[dict[str, Any]]:
    """Description and links as embeds: together they can exceed a message's 2000 characters."""
    links = "\n".join(f"- {link}" for link in info.links) or "(none given)"
    return [
        {"title": "What happened", "description": info.description},
        {"title": "Game links", "description": links},
    ]


def report_line(info: ReportInfo) -> str:
    summary = quote(info.description.replace("\n", " "), 120)
    links = f", {len(info.links)} link(s)" if info.links else ""
    note = f" — note: {quote(info.td_note, 200)}" if info.td_note else ""
    return (
        f"**Cheat report {info.id}** {STATE_LABELS[info.state]}: **{info.accused}** reported by "
        f"<@{info.reporter_discord_id}> {discord_time(info.created_at)}{links}: {summary}{note}"
    )


def no_reports(state: str | None) -> str:
    return f"No {state} cheat reports." if state else "No cheat reports."


def state_set(info: ReportInfo, previous: str, disqualified: bool) -> str:
    tail = f" {info.accused} is disqualified (rule VII.B)." if disqualified else ""
    return (
        f"Cheat report {info.id} ({info.accused}): {STATE_LABELS[previous]} → "
        f"**{STATE_LABELS[info.state]}**.{tail}"
    )


def account_mark_for_td(mark: AccountMark) -> str:
    what = []
    if mark.tos_violation:
        what.append("a **tosViolation** mark (engine or booster: Lichess does not say which)")
    if mark.disabled:
        what.append("a **closed** account")
    return (
        f"**Fair-play check** (rules VII.C, VIII.A.2): Lichess now shows {' and '.join(what)} "
        f"for **{mark.name}** (https://lichess.org/@/{mark.name}). The bot does nothing on its "
        "own: disqualify below if the mark is an engine mark, or use `/td` commands for "
        "anything else."
    )


def engine_dq_done(name: str, engine: bool) -> str:
    why = "engine mark, rule VIII.A.2" if engine else "booster mark, rule VII.C"
    return f"{name} is disqualified ({why})."


def engine_reason(engine: bool) -> str:
    if engine:
        return "Lichess engine mark (rules VII.C, VIII.A.2)"
    return "Lichess booster mark (rule VII.C)"


def upheld_reason() -> str:
    return "Found guilty of cheating (rule VII.B)"


def public_flag_for_td(flag: PublicFlag) -> str:
    excerpt = flag.excerpt.replace("\n", " ")
    return (
        f"**Possible public cheating accusation** (rule VII.A) by <@{flag.author_id}> in "
        f"<#{flag.channel_id}>: {flag.jump_url}\n"
        f"Names: {', '.join(flag.names)}; words: {', '.join(flag.keywords)}\n"
        f"> {excerpt}\n"
        "This is a keyword match only; the bot takes no action."
    )


def transition_refused(problem: str, current: str, new: str) -> str:
    """Why a report's state cannot change (rule VII.B, `bot.rules.fairplay.transition_problem`)."""
    if problem == "unknown_state":
        return f"`{new}` is not a report state ({', '.join(STATES)})."
    if problem == "same_state":
        return f"The report is already {current}."
    return (
        "The report was upheld and the player disqualified; reverse the "
        "disqualification instead of changing the report."
    )
