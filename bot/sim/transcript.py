"""The story of a simulated championship: every message the bot sent, where, to whom and
when in championship time, in order."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from bot.clock import Clock
from bot.sim.harness import DiscordHarness, RecordedMessage


@dataclass(frozen=True)
class Entry:
    at: datetime
    where: str
    text: str


class Transcript:
    """Each message the harness posts (or, in a restarted run, finds in its journal), as it
    was posted, stamped with the harness clock's time."""

    def __init__(self, h: DiscordHarness, clock: Clock) -> None:
        self.h, self.clock = h, clock
        self.entries: list[Entry] = []
        h.on_post = self._posted

    def _posted(self, message: RecordedMessage) -> None:
        at = message.sent_at or self.clock.now()
        self.entries.append(Entry(at, self._where(message), self._readable(message.text)))

    def _readable(self, text: str) -> str:
        """Mentions become names, and a Discord timestamp gives way to the UTC time the
        bot writes beside it."""

        def name(found: re.Match[str]) -> str:
            try:
                return "@" + self.h.member(int(found[1])).name
            except KeyError:
                return found[0]

        text = re.sub(r"<@!?(\d+)>", name, text)
        return re.sub(r"<t:\d+:\w> ?", "", text)

    @property
    def count(self) -> int:
        return len(self.entries)

    def _where(self, message: RecordedMessage) -> str:
        if message.dm_user_id is not None:
            member = self.h.member(message.dm_user_id)
            return f"DM to {member.name}"
        channel = self.h.bot.get_channel(message.channel_id)
        name = getattr(channel, "name", None)
        return f"#{name}" if name else f"thread {message.channel_id % 10_000:04d}"

    def markdown(self) -> str:
        lines = ["# The championship, as the bot told it", ""]
        day = None
        for entry in self.entries:
            if entry.at.date() != day:
                day = entry.at.date()
                lines += ["", f"## {day:%A %d %B %Y}", ""]
            body = entry.text.strip().replace("\n", "\n  ")
            lines.append(f"- **{entry.at:%H:%M} UTC · {entry.where}**: {body}")
        return "\n".join(lines) + "\n"
