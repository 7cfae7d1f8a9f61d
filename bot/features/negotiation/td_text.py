"""Wording the TD reads about match times (rule V): the alerts when a negotiation fails
(rules V.F, V.H), the replies to /td negotiation, and a match's offer history. The players'
wording is in `text.py`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.features.negotiation.text import HOW, KIND_LABELS, STATE_LABELS, nth
from bot.features.negotiation.types import OfferInfo
from bot.timefmt import discord_time
from db.models import OfferKind


def picked(place: str, a: str, b: str) -> str:
    """How a TD command's `match:` list names the match, to tell the TD which to pick
    (`bot.features.choices`): no row id to type (issue 32)."""
    return f"`match:` “{place}: {a} vs {b}”"


def offers_due_both_td(place: str, a: str, b: str, history: str, required: int) -> str:
    return (
        f"{place}, **{a}** vs **{b}**: neither player made {required} offers by the "
        f"deadline (rules V.C, V.F). Assign a time with `/td negotiation assign-time`, "
        f"{picked(place, a, b)}.\n{history}"
    )


def offers_due_draw_td(place: str, a: str, b: str, required: int) -> str:
    """To the TD: both made no offers and the format's rule (`format.no_offers`) drew it."""
    return (
        f"{place}, **{a}** vs **{b}**: neither player made {required} offers by the "
        "deadline, so the match was recorded as a draw with a forfeit for each "
        "(format.no_offers: draw_both_forfeit_a_game)."
    )


# Why the TD assigned a time (`agreement._assigned_why`), with the rule that gave it to them,
# as the match's thread reads it; no reason: the TD moved the time themselves (no rule).
NO_OFFERS, NO_FAULT = "no_offers", "no_fault"
_ASSIGNED_WHY = {
    NO_OFFERS: ", as neither player made {required} offers by the deadline (rule V.F)",
    NO_FAULT: ", who found neither player at fault for the failed negotiation (rules V.H, V.I)",
}


def assigned_how(why: str | None, required: int) -> str:
    """The agreed post's "how" for a time the TD assigned (`text.agreed_post`)."""
    how = HOW[OfferKind.ASSIGNED]
    return how + _ASSIGNED_WHY.get(why or "", "").format(required=required)


def week_point(weekday: str, at: str) -> str:
    """A boundary of the format's week as the TD reads it: "the start of Saturday" at
    00:00, else "Saturday 12:00 UTC" (`at` is "HH:MM:SS", UTC)."""
    day = weekday.capitalize()
    if at == "00:00:00":
        return f"the start of {day}"
    return f"{day} {at.removesuffix(':00') if at.count(':') == 2 else at} UTC"


def weekend_td(place: str, a: str, b: str, history: str, weekend: str) -> str:
    """`weekend`: when the format's weekend starts (:func:`week_point`)."""
    return (
        f"{place}, **{a}** vs **{b}**: no time agreed by {weekend} "
        f"although both made their offers (rule V.H). Rule with `/td negotiation fault`, "
        f"{picked(place, a, b)}, `player:` `{a}`, `{b}` or `nobody`.\n{history}"
    )


def td_assign_request(place: str, a: str, b: str) -> str:
    return (
        f"You ruled nobody at fault in {place}, **{a}** vs **{b}**: assign its time "
        f"with `/td negotiation assign-time`, {picked(place, a, b)} (rule V.I)."
    )


def fault_player_missing() -> str:
    return (
        "Name the player at fault (their Lichess username), or write `nobody` when neither "
        "is; nothing was changed."
    )


def unknown_fault_player(name: str, a: str, b: str) -> str:
    return f"`{name}` is not a player of this match: give `{a}`, `{b}` or `nobody`."


def fault_reply(
    match: str, at_fault: str | None, chooser: str | None, *, drawn: bool = False
) -> str:
    """`match`: its place and players (`match_label`), as the TD's pick list shows it."""
    if drawn:
        return (
            f"{match}: nobody at fault, so it is recorded as a draw "
            "(format.no_fault: draw); both players were told."
        )
    if at_fault is None:
        return (
            f"{match}: nobody at fault. Assign the time with `/td negotiation assign-time` "
            "(the same match)."
        )
    return f"{match}: {at_fault} at fault; {chooser} has been asked to /choose the time."


def assigned_reply(match: str, t: datetime) -> str:
    return f"{match} is now at {discord_time(t)}; both players were told."


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


def fault_after_agreement(match: str) -> str:
    return f"{match} already has an agreed time; use /td negotiation assign-time to change it."
