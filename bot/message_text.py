"""Texts that fit in Discord messages: user text quoted with a visible mark when shortened,
long texts split between lines, and how long what users type may be.

Discord refuses a message over 2,000 characters (bot.discord_limits) and shows nothing, so
the player would never learn a decision that quotes a long comment. Three tools, used by
every feature's wording and by the outbox:

- `quote`: user text (a reason, a note, a comment, a username) put into a message, cut with
  "… (shortened)" when it is longer than the room it is given;
- `split_parts`: a header and lines as messages under the limit, cut only between lines, each
  part of a long text marked "part k of n" (the field post, the outbox's long rows);
- the option lengths (`REASON_MAX`...): the longest value a slash option or form field takes,
  chosen so that every message quoting it fits with room for the closed-DM prefix.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

from bot.discord_limits import MESSAGE_CONTENT

MESSAGE_LIMIT = MESSAGE_CONTENT
# Room kept free in every DM for the closed-DM fallback's "<@id> (your DMs are closed) ".
FALLBACK_ROOM = 60
SHORTENED = "… (shortened)"
CONTINUED = "(continued)"

# The longest value of each kind of free text a user types (slash options, form fields).
REASON_MAX = 1000  # a reason, comment or note: quoted in a DM or post with its context
# A letter to one player the outbox delivers whole, split over several DMs if it must (a
# rejection comment): Discord's own ceilings, 6,000 for a slash option, 4,000 in a form.
LETTER_MAX, LETTER_FORM_MAX = 6000, 4000
TIME_MAX = 100  # a time ("wed 18:00", "2019-10-02 18:00 +02:00")
TIMES_MAX = 300  # several times, for /offer
ZONE_MAX = 64  # a tz database zone name, for /timezone (the longest real one is 32)
NAME_MAX = 30  # a Lichess username (Lichess allows 2 to 30 characters)
NAMES_MAX = 200  # a few usernames, for /td discipline disqualify's `also`
GAME_MAX = 100  # a game id or link
URL_MAX = 200  # a game link


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` with its noun in the number English wants: "1 problem", "2 problems" (a text
    that said "1 of them stop" read as a bug to every TD who saw it)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def agrees(count: int, singular: str, plural: str) -> str:
    """The verb form for `count` subjects: agrees(1, "waits", "wait") == "waits"."""
    return singular if count == 1 else plural


def quote(text: str, limit: int = REASON_MAX) -> str:
    """`text` as it may be put into a message: itself when it fits in `limit` characters,
    else cut and marked, so a reader sees that it was shortened."""
    if len(text) <= limit:
        return text
    return text[: max(limit - len(SHORTENED), 0)].rstrip() + SHORTENED


def fit(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """A whole message cut to what Discord accepts (when it cannot be split: an edit, a
    reply), marked as shortened."""
    return quote(text, limit)


def _default_marker(part: int, parts: int) -> str:
    return f" (part {part} of {parts})"


def split_parts(
    header: str,
    lines: Sequence[str],
    *,
    limit: int = MESSAGE_LIMIT,
    marker: Callable[[int, int], str] = _default_marker,
    continued: str = "",
) -> list[str]:
    """The header and lines as messages of at most `limit` characters: the header once, then
    the lines, cut only between lines (a line longer than a message is cut, marked); each
    message of a long text says which part it is (`marker` after its first line), and every
    part after the first starts with `continued` when given."""
    whole = "\n".join([header, *lines])
    if len(whole) <= limit:
        return [whole]
    room = limit - len(marker(999, 999)) - 1
    chunks: list[list[str]] = [[fit(header, room)]]
    used = len(chunks[0][0])
    for raw in lines:
        line = fit(raw, room - len(continued) - 1)
        if used + 1 + len(line) > room:
            chunks.append([continued] if continued else [])
            used = len(continued) if continued else -1
        chunks[-1].append(line)
        used += 1 + len(line)
    total = len(chunks)
    parts = []
    for k, chunk in enumerate(chunks, start=1):
        title, newline, rest = chunk[0].partition("\n")
        opening = title + marker(k, total) + newline + rest
        parts.append("\n".join([opening, *chunk[1:]]))
    return parts


def split_text(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """A long text (a table, a list, a history, a long comment) as messages cut between its
    lines, and a line too long for one message between its words: nothing is cut off."""
    if len(text) <= limit:
        return [text]
    room = limit - len(_default_marker(999, 999)) - len(CONTINUED) - 2
    lines: list[str] = []
    for line in text.split("\n"):
        if len(line) <= room:
            lines.append(line)  # a line that fits stays as it is, spaces and all
            continue
        lines += textwrap.wrap(line, room, replace_whitespace=False, break_on_hyphens=False)
    header, *rest = lines
    return split_parts(header, rest, limit=limit, continued=CONTINUED)
