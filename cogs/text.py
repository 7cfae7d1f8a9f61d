"""The words every command shares: the replies to errors and the refusals of the shared
option checks (each feature's own words are in its `text.py`)."""

from __future__ import annotations

UNEXPECTED = "Something went wrong on our side and nothing was changed. The error was logged."
CONFLICT = (
    "Someone else changed this at the same moment, so nothing of yours was saved. "
    "Look again (for example with /match) and try once more."
)
TD_ONLY = "Only the tournament director can use this command."
SERVER_ONLY = "This command only works in the championship server."
NOT_HERE = "You cannot use this command here."


def not_a_value(value: object) -> str:
    return f"`{str(value)[:100]}` is not a valid value for this option."


def slow_down(retry_after: float) -> str:
    return f"Slow down: try again in {retry_after:.0f} seconds."


def too_long(length: int, most: int) -> str:
    return (
        f"That text is {length:,} characters; this option takes at most {most:,}. "
        "Nothing was changed: shorten it and try again."
    )


def no_such(noun: str, value: object) -> str:
    return f"There is no {noun} {value}: nothing was changed."


SETUP_MODE = (
    "The bot is being set up and answers only `/td setup` and `/help` until a TD or a server "
    "manager picks its pairings channel with `/td setup`. Nothing was done: try again once "
    "it is set up."
)


# A TD command's `match:` option: the TD picks the match from the list by its place and
# players ("Swiss round 3, board 2: a vs b"); no row id to know (issue 32).
MATCH_HELP = "The match: type a player's name, its round or its name (Final), then pick it"
