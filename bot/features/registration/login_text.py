"""Wording of "Log in with Lichess": the /register button and its lines, the pages the login
answers with (each refusal says what happened and what to do; nothing changed), and the
DM that tells the player the outcome in Discord.

The pages are on the web: no Discord id or mention, no Discord timestamp markup
(`for_the_web` rewrites the entry checks' shared refusals, which are worded for Discord).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import NamedTuple

from bot.features.registration import text as wording
from bot.features.registration.types import RegistrationSummary
from bot.timefmt import discord_time

BUTTON_LABEL = "Log in with Lichess"
AGAIN = "Run /register again in Discord for a new link."


class Page(NamedTuple):
    """A page's title and its one paragraph."""

    title: str
    message: str
    status: int = 200


def register_with_login(
    code: str, username: str, expires_at: datetime, link_until: datetime
) -> str:
    """/register's reply when the web server runs: the login first, the code the other way."""
    return (
        f"To prove that **{username}** is your Lichess account, press **{BUTTON_LABEL}** "
        "below and allow it on Lichess: no profile edit needed. The link is yours alone and "
        f"works once, until {discord_time(link_until, 't')}.\n"
        f"Or, without logging in: put this code in your **bio** or **location** at "
        f"{wording.PROFILE_EDIT_URL}: `{code}`, save, then press **Verify** below (the code "
        f"is valid until {discord_time(expires_at, 't')})."
    )


def after_login_dm(s: RegistrationSummary) -> str:
    """The DM after a successful login: what the profile code's Verify reply says."""
    return f"Your Lichess login proved that **{s.lichess_username}** is yours.\n" + (
        wording.after_verify(s)
    )


def registered_page(s: RegistrationSummary) -> str:
    return for_the_web(wording.after_verify(s)) + " The same is in your Discord DMs."


# --- refusals: each changes nothing -------------------------------------------------------

UNKNOWN = Page(
    "This link does not work",
    "This login link is not one this championship gave out: it may be cut short or "
    f"mistyped. Nothing was changed. Open the button from /register in Discord. {AGAIN}",
    404,
)
USED = Page(
    "This link was used already",
    "Each login link works once and only for the Discord user /register gave it to, and "
    "this one has been used. Nothing was changed by this visit. If it was yours, "
    "/status in Discord shows whether you are registered; if not, run /register yourself.",
    410,
)
EXPIRED = Page(
    "This link has expired",
    "Login links work for a few minutes only, and this one is too old. Nothing was "
    f"changed. {AGAIN}",
    410,
)
STATE = Page(
    "This answer from Lichess does not match",
    "Lichess sent back an answer that no login started in this browser asked for "
    "(its state did not match), so it was ignored and nothing was changed. Start "
    f"again from the button in Discord, in one browser. {AGAIN}",
    400,
)
DENIED = Page(
    "Login cancelled",
    "You did not allow the login on Lichess, so nothing was changed and you are not "
    f"registered. {AGAIN} Or prove your account with the profile code instead.",
)
LICHESS_FAILED = Page(
    "Lichess did not confirm the login",
    "Lichess did not give this championship your account (it may be busy, or the login "
    f"took too long). Nothing was changed. {AGAIN}",
    502,
)
LOGIN_OFF = Page(
    "Login is not available here",
    "These pages are read-only: registration happens in Discord with /register.",
    404,
)
TOO_MANY = Page(
    "Too many tries",
    "This address has tried to log in too often in a short time. Wait a minute, then "
    "use the button in Discord again.",
    429,
)
REGISTERED_TITLE = "You are registered"
REFUSED_TITLE = "Registration refused"


def other_account(logged_in: str, expected: str) -> Page:
    """The account that logged in is not the one /register named: someone else's link, or
    the wrong account logged in at Lichess."""
    return Page(
        "This link is for another account",
        f"You logged in on Lichess as {logged_in}, but this link was made by /register for "
        f"{expected}, for the Discord user who ran it. Nothing was changed. If you are "
        f"{expected}, log out of Lichess, log in as {expected} and run /register again; "
        f"otherwise run /register yourself with your own account.",
        409,
    )


def refused(message: str) -> Page:
    """An entry check refused the account (the same refusal the profile code gets)."""
    return Page(REFUSED_TITLE, for_the_web(message) + " Nothing was changed.", 409)


_MENTION = re.compile(r"<@[!&]?\d+>")
_TIMESTAMP = re.compile(r"<t:(-?\d+)(?::[tTdDfFR])?>")
_TIMESTAMP_AND_UTC = re.compile(r"<t:-?\d+(?::[tTdDfFR])?> \(([^()]*UTC[^()]*)\)")


def for_the_web(message: str) -> str:
    """A Discord-worded message for a page: mentions become "the tournament director"
    (only the TD is ever mentioned in a player's refusal), timestamps plain UTC, bold
    plain (the page escapes everything; markup would show as asterisks)."""
    text = _MENTION.sub("the tournament director", message)
    text = _TIMESTAMP_AND_UTC.sub(r"\1", text)  # `discord_time`: the UTC text is beside it
    text = _TIMESTAMP.sub(
        lambda m: datetime.fromtimestamp(int(m.group(1)), UTC).strftime("%Y-%m-%d %H:%M UTC"),
        text,
    )
    return text.replace("**", "")
