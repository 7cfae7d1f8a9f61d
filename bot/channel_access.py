"""Channels Discord refuses the bot: the TD hears once, the bot stops knocking.

Discord answers a post into a channel the bot cannot see with 403 code 50001 (Missing
Access) and into one where a permission is missing with 403 code 50013 (Missing
Permissions). Retrying every few seconds changes nothing until someone fixes the channel, so
the first refusal blocks the channel: a row `blocked:<channel id>` in the settings table
holds when it was refused and when to try again. The TD gets one message saying which
channel, what the bot was doing and which permissions it lacks there (from the guild cache;
Discord's answer does not say). Everything meant for that channel waits, nothing is dropped.

The block lifts:
- when Discord reports a change that can give the permission back (a channel's overwrites,
  a role, the server: `retry_now`, wired in bot.app), or the TD changes the channels with
  `/td setup`;
- otherwise after `RETRY_AFTER`, doubling up to `RETRY_MAX` (a role given to the bot is not
  reported without the privileged members intent, so the bot looks again by itself);
- for good at the first post that goes through.
A channel that is refused again after a change does not tell the TD again: one refusal, one
message, until a post there has worked.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

import discord
from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.config import Config
from bot.doctor.permissions import ChannelUse, missing, needs_in
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import OutboxMessage, Setting

log = logging.getLogger(__name__)

PREFIX = "blocked:"
RETRY_AFTER = timedelta(minutes=10)
RETRY_MAX = timedelta(hours=1)
REFUSED_CODES = {50001: "Missing Access", 50013: "Missing Permissions"}


def is_refusal(error: discord.HTTPException) -> bool:
    """A 403 that only a change of the channel's permissions can cure."""
    return isinstance(error, discord.Forbidden) and error.code in REFUSED_CODES


@dataclass(frozen=True)
class Block:
    """A channel Discord refused: since when, until when the bot waits, whether it was told."""

    since: datetime
    retry_at: datetime
    pause: timedelta
    code: int

    def to_json(self) -> str:
        return json.dumps(
            {
                "since": self.since.isoformat(),
                "retry_at": self.retry_at.isoformat(),
                "pause": self.pause.total_seconds(),
                "code": self.code,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Block:
        data = json.loads(text)
        return cls(
            since=datetime.fromisoformat(data["since"]),
            retry_at=datetime.fromisoformat(data["retry_at"]),
            pause=timedelta(seconds=float(data["pause"])),
            code=int(data["code"]),
        )


class ChannelAccess:
    """Which channels Discord refuses the bot, shared by the outbox and the round publisher.

    The blocks live in the database (they outlive a restart, so the TD is not told twice)
    and in memory (`wait` is asked before every send and costs no query)."""

    def __init__(
        self,
        client: discord.Client,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        config: Config,
    ) -> None:
        self.client = client
        self.sessions = sessions
        self.clock = clock
        self.config = config
        self._blocked: dict[int, datetime] = {}  # channel id -> when to try again

    async def load(self) -> None:
        """Read the blocks a previous process left (at start-up)."""
        async with self.sessions() as session:
            rows = (
                await session.scalars(select(Setting).where(Setting.key.startswith(PREFIX)))
            ).all()
        self._blocked = {
            int(row.key.removeprefix(PREFIX)): Block.from_json(row.value).retry_at for row in rows
        }

    def wait(self, channel_id: int) -> datetime | None:
        """When the bot may try `channel_id` again, or None when it may try now."""
        retry_at = self._blocked.get(channel_id)
        return retry_at if retry_at is not None and retry_at > self.clock.now() else None

    async def refused(
        self, channel_id: int, error: discord.HTTPException, *, doing: str
    ) -> datetime:
        """Record Discord's refusal of `channel_id` (told to the TD the first time only);
        returns when to try again. While the channel is already waiting, the wait is kept;
        a refusal after the wait doubles it."""
        now = self.clock.now()
        key = PREFIX + str(channel_id)
        code = error.code if error.code in REFUSED_CODES else 50013
        async with transaction(self.sessions) as session:
            row = await session.get(Setting, key)
            if row is None:
                block = Block(since=now, retry_at=now + RETRY_AFTER, pause=RETRY_AFTER, code=code)
                session.add(Setting(key=key, value=block.to_json(), updated_at=now))
                notice = self.notice(channel_id, code, doing)
                notify_td(session, self.config, now=now, content=notice)
                log.warning(
                    "Discord refused the bot in channel %s (%s %s) while %s; the TD is told",
                    channel_id, code, REFUSED_CODES[code], doing,
                )  # fmt: skip
            else:
                old = Block.from_json(row.value)
                block = old
                if old.retry_at <= now:
                    pause = min(RETRY_MAX, old.pause * 2)
                    block = Block(since=old.since, retry_at=now + pause, pause=pause, code=code)
                    row.value, row.updated_at = block.to_json(), now
        self._blocked[channel_id] = block.retry_at
        return block.retry_at

    async def worked(self, channel_id: int) -> None:
        """A post went through: the channel is no longer blocked."""
        if self._blocked.pop(channel_id, None) is None:
            return
        async with transaction(self.sessions) as session:
            await session.execute(delete(Setting).where(Setting.key == PREFIX + str(channel_id)))

    async def retry_now(self) -> int:
        """Permissions may have changed: try every blocked channel at the next delivery,
        with what waits for it. Returns how many channels were blocked."""
        if not self._blocked:
            return 0
        now = self.clock.now()
        channels = list(self._blocked)
        self._blocked = dict.fromkeys(channels, now)
        async with transaction(self.sessions) as session:
            for row in (
                await session.scalars(select(Setting).where(Setting.key.startswith(PREFIX)))
            ).all():
                old = Block.from_json(row.value)
                row.value = Block(old.since, now, old.pause, old.code).to_json()
            await session.execute(
                update(OutboxMessage)
                .where(
                    OutboxMessage.target_id.in_(channels),
                    OutboxMessage.sent_at.is_(None),
                    OutboxMessage.failed_at.is_(None),
                )
                .values(next_attempt_at=now)
            )
        return len(channels)

    def missing_permissions(self, channel_id: int) -> list[str] | None:
        """The permissions the bot lacks in the channel, from the guild cache (what the
        bot needs there: bot.doctor.permissions); None when it cannot tell (not cached)."""
        channel = self.client.get_channel(channel_id)
        if isinstance(channel, discord.Thread):
            channel = channel.parent
        if not isinstance(channel, discord.abc.GuildChannel):
            return None
        me = channel.guild.me
        if me is None:
            return None
        uses = {
            self.config.discord.pairings_channel_id: ChannelUse.PAIRINGS,
            self.config.discord.td_alert_channel_id: ChannelUse.TD_ALERTS,
        }
        use = uses.get(channel.id, ChannelUse.ANNOUNCEMENTS)
        forum = isinstance(channel, discord.ForumChannel)
        lacking = missing(channel.permissions_for(me), needs_in(use, forum=forum))
        return [need.name for need in lacking]

    def notice(self, channel_id: int, code: int, doing: str) -> str:
        """The TD's one message about a refused channel: where, what, and how to fix it."""
        missing = self.missing_permissions(channel_id)
        if code == 50001:
            lacking = "the bot cannot see the channel (View Channel)"
        elif missing:
            lacking = "the bot lacks " + ", ".join(missing)
        else:
            needed = ", ".join(need.name for need in needs_in(ChannelUse.PAIRINGS, forum=False))
            lacking = f"a permission is missing (the bot may need {needed})"
        return (
            f"⚠️ Discord refused the bot in <#{channel_id}> while {doing} "
            f"({code} {REFUSED_CODES[code]}): {lacking}. Give the bot's role those permissions "
            "in the channel's settings (Edit Channel → Permissions). Nothing is lost: what was "
            "meant for the channel waits, and the bot posts it as soon as Discord lets it "
            "(it tries again when the channel or a role changes, and every few minutes)."
        )
