"""Wording the TD reads about match times (rule V): the alerts when a negotiation fails
(rules V.F, V.H), the replies to /td negotiation, and a match's offer history. The players'
wording is in `text.py`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.features.negotiation.text import KIND_LABELS, STATE_LABELS, nth
from bot.features.negotiation.types import OfferInfo
from bot.timefmt import discord_time


def offers_due_both_td(match_id: int, a: str, b: str, history: str, required: int) -> str:
    return (
        f"Match {match_id}, **{a}** vs **{b}**: neither player made {required} offers by the "
        f"deadline (rules V.C, V.F). Assign a time with "
        f"`/td negotiation assign-time match:{match_id} time:`.\n{history}"
    )


def offers_due_draw_td(match_id: int, a: str, b: str, required: int) -> str:
    """To the TD: both made no offers and the format's rule (`format.no_offers`) drew it."""
    return (
        f"Match {match_id}, **{a}** vs **{b}**: neither player made {required} offers by the "
        "deadline, so the match was recorded as a draw with a forfeit for each "
        "(format.no_offers: draw_both_forfeit_a_game)."
    )


def week_point(weekday: str, at: str) -> str:
    """A boundary of the format's week as the TD reads it: "the start of Saturday" at
    00:00, else "Saturday 12:00 UTC" (`at` is "HH:MM:SS", UTC)."""
    day = weekday.capitalize()
    if at == "00:00:00":
        return f"the start of {day}"
    return f"{day} {at.removesuffix(':00') if at.count(':') == 2 else at} UTC"


def weekend_td(match_id: int, a: str, b: str, history: str, weekend: str) -> str:
    """`weekend`: when the format's weekend starts (:func:`week_point`)."""
    return (
        f"Match {match_id}, **{a}** vs **{b}**: no time agreed by {weekend} "
        f"although both made their offers (rule V.H). Rule with "
        f"`/td negotiation fault match:{match_id} player:` (`{a}`, `{b}` or `nobody`).\n{history}"
    )


def td_assign_request(match_id: int, a: str, b: str) -> str:
    return (
        f"You ruled nobody at fault in match {match_id}, **{a}** vs **{b}**: assign its time "
        f"with `/td negotiation assign-time match:{match_id} time:` (rule V.I)."
    )


def fault_player_missing() -> str:
    return (
        "Name the player at fault (their Lichess username), or write `nobody` when neither "
        "is; nothing was changed."
    )


def unknown_fault_player(name: str, a: str, b: str) -> str:
    return f"`{name}` is not a player of this match: give `{a}`, `{b}` or `nobody`."


def fault_reply(
    match_id: int, at_fault: str | None, chooser: str | None, *, drawn: bool = False
) -> str:
    if drawn:
        return (
            f"Match {match_id}: nobody at fault, so it is recorded as a draw "
            "(format.no_fault: draw); both players were told."
        )
    if at_fault is None:
        return (
            f"Match {match_id}: nobody at fault. Assign the time with "
            f"`/td negotiation assign-time match:{match_id} time:`."
        )
    return f"Match {match_id}: {at_fault} at fault; {chooser} has been asked to /choose the time."


def assigned_reply(match_id: int, t: datetime) -> str:
    return f"Match {match_id} is now at {discord_time(t)}; both players were told."


def history(offers: Sequence[OfferInfo]) -> str:
    if not offers:
        return "No offers were made."
    lines = ["Offers and answers:"]
    for o in offers:
        answered = f", answered {discord_time(o.answered_at)}" if o.answered_at else ""
        lines.append(
            f"- {o.by_name}'s {nth(o.number)} offer ({KIND_LABELS[o.kind]}), "
            f"made {discord_time(o.created_at)}: {discord_time(o.time)}, "
            f"{STATE_LABELS[o.state]}{answered}"
        )
    return "\n".join(lines)  # a TD DM: the outbox splits it between lines if long


def fault_after_agreement(match_id: int) -> str:
    return (
        f"Match {match_id} already has an agreed time; use "
        "/td negotiation assign-time to change it."
    )
