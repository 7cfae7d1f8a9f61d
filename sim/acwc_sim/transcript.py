"""The story of a simulated championship: every message the bot sent, where, to whom and
when in championship time, in order, the edits of the messages in a round's thread, and
what players did where only they see the bot's replies (their registration)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import discord

from acwc_sim.harness import DiscordHarness, RecordedMessage
from bot.clock import Clock


@dataclass(frozen=True)
class Entry:
    at: datetime
    where: str
    text: str


HEADING = "# The championship, as the bot told it\n\n"


class Transcript:
    """Each message the harness posts (or, in a restarted run, finds in its journal), as it
    was posted, stamped with the harness clock's time, written to `path` as Markdown.

    It is written as it goes rather than kept: a 256-player championship is twenty thousand
    messages. A restarted run starts the file over, and its journal replays the messages
    the killed runs posted, so the file ends the same as an uninterrupted run's."""

    def __init__(self, h: DiscordHarness, clock: Clock, path: Path) -> None:
        self.h, self.clock = h, clock
        self.count = 0
        self._day: date | None = None
        self._file = path.open("w", encoding="utf-8")
        self._file.write(HEADING)
        h.on_post = self._posted
        h.on_edit = self._edited
        h.on_note = self._noted

    def _posted(self, message: RecordedMessage) -> None:
        at = message.sent_at or self.clock.now()
        self.count += 1
        entry = Entry(at, self._where(message), self._readable(message.text, at))
        self._file.write(entry_markdown(entry, self._day))
        self._day = at.date()

    def _edited(self, message: RecordedMessage) -> None:
        """A message in a round's thread as an edit left it: outside the Final, a match's
        scoreboard is shown in its "starts now" post, edited game by game, so the story
        would otherwise lose the results. Not counted as a message (nothing new was sent);
        stamped with the post's own time, the one a replayed journal knows."""
        if message.dm_user_id is not None:
            return
        if not isinstance(self.h.bot.get_channel(message.channel_id), discord.Thread):
            return
        at = message.sent_at or self.clock.now()
        body = self._readable(message.text, at).strip().replace("\n", "\n  ")
        self._file.write(
            f"- **The {at:%d %B %H:%M} UTC post in {self._where(message)}, edited**: {body}\n"
        )

    def _noted(self, note: dict[str, object]) -> None:
        """What a player did where only they see the bot's replies (registration): told in
        its place, and not counted as a message."""
        at = datetime.fromisoformat(str(note["at"]))
        entry = Entry(at, str(note["who"]), str(note["text"]))
        self._file.write(entry_markdown(entry, self._day))
        self._day = at.date()

    def close(self) -> None:
        """Finish the file (the last entries may still be in its buffer)."""
        self._file.close()

    def _readable(self, text: str, at: datetime) -> str:
        """Mentions become names; a relative Discord timestamp reads as Discord shows it to
        the reader at `at` ("in 1 hour"); another gives way to the UTC time the bot writes
        beside it."""

        def name(found: re.Match[str]) -> str:
            try:
                return "@" + self.h.member(int(found[1])).name
            except KeyError:
                return found[0]

        def relative(found: re.Match[str]) -> str:
            return _relative(datetime.fromtimestamp(int(found[1]), UTC) - at)

        text = re.sub(r"<@!?(\d+)>", name, text)
        text = re.sub(r"<t:(\d+):R>", relative, text)
        return re.sub(r"<t:\d+:\w> ?", "", text)

    def _where(self, message: RecordedMessage) -> str:
        if message.dm_user_id is not None:
            member = self.h.member(message.dm_user_id)
            return f"DM to {member.name}"
        channel = self.h.bot.get_channel(message.channel_id)
        name = getattr(channel, "name", None)
        return f"#{name}" if name else f"thread {message.channel_id % 10_000:04d}"


def entry_markdown(entry: Entry, previous_day: date | None) -> str:
    """One entry's Markdown, under a new day's heading when its day is not `previous_day`."""
    heading = f"\n## {entry.at:%A %d %B %Y}\n\n" if entry.at.date() != previous_day else ""
    body = entry.text.strip().replace("\n", "\n  ")
    return f"{heading}- **{entry.at:%H:%M} UTC · {entry.where}**: {body}\n"


def _relative(delta: timedelta) -> str:
    """Roughly as Discord words a relative timestamp: "in 1 hour", "3 days ago"."""
    seconds = int(delta.total_seconds())
    size = abs(seconds)
    units = [(name, length) for name, length in UNITS if size >= length]
    if not units:
        return "now"
    name, length = units[0]
    count = round(size / length)
    words = f"{count} {name}{'s' if count != 1 else ''}"
    return f"in {words}" if seconds > 0 else f"{words} ago"


UNITS = (("day", 86_400), ("hour", 3_600), ("minute", 60))
