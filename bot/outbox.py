"""The outbox: messages services want sent, delivered by a worker with retries (DESIGN rule 5).

Services call `enqueue_*` inside their own transaction, so a message exists exactly when the
state change that caused it was committed. The worker sends due rows, records the Discord
message id, retries with back-off, and turns a DM that Discord refuses into a mention in the
fallback channel plus a note to the TD.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import discord
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from db.engine import transaction
from db.models import OutboxKind, OutboxMessage

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
ViewFactory = Callable[[dict[str, Any]], discord.ui.View]


def _add(
    session: AsyncSession,
    *,
    kind: OutboxKind,
    target_id: int,
    now: datetime,
    content: str = "",
    embeds: list[dict[str, Any]] | None = None,
    view: tuple[str, dict[str, Any]] | None = None,
    fallback_channel_id: int | None = None,
    edit_message_id: int | None = None,
    dedupe_key: str | None = None,
    edit_of_key: str | None = None,
) -> OutboxMessage:
    message = OutboxMessage(
        kind=kind,
        target_id=target_id,
        content=content,
        embeds=embeds or [],
        view={"kind": view[0], "args": view[1]} if view else None,
        fallback_channel_id=fallback_channel_id,
        edit_message_id=edit_message_id,
        dedupe_key=dedupe_key,
        edit_of_key=edit_of_key,
        created_at=now,
        next_attempt_at=now,
        attempts=0,
    )
    session.add(message)
    return message


def enqueue_dm(
    session: AsyncSession,
    *,
    user_id: int,
    now: datetime,
    content: str = "",
    embeds: list[dict[str, Any]] | None = None,
    view: tuple[str, dict[str, Any]] | None = None,
    fallback_channel_id: int | None = None,
) -> OutboxMessage:
    """A direct message; if the user's DMs are closed it goes to `fallback_channel_id`."""
    return _add(
        session,
        kind=OutboxKind.DM,
        target_id=user_id,
        now=now,
        content=content,
        embeds=embeds,
        view=view,
        fallback_channel_id=fallback_channel_id,
    )


def enqueue_channel(
    session: AsyncSession,
    *,
    channel_id: int,
    now: datetime,
    content: str = "",
    embeds: list[dict[str, Any]] | None = None,
    view: tuple[str, dict[str, Any]] | None = None,
    key: str | None = None,
) -> OutboxMessage:
    """A post in a channel or thread; `key` names it so that later edits can refer to it."""
    return _add(
        session,
        kind=OutboxKind.CHANNEL,
        target_id=channel_id,
        now=now,
        content=content,
        embeds=embeds,
        view=view,
        dedupe_key=key,
    )


def enqueue_edit_of(
    session: AsyncSession,
    *,
    key: str,
    channel_id: int,
    now: datetime,
    content: str = "",
    embeds: list[dict[str, Any]] | None = None,
) -> OutboxMessage:
    """A new text for the message queued with `key`: a live scoreboard, say.

    The edit waits until that message is sent and its Discord id is known.
    """
    return _add(
        session,
        kind=OutboxKind.EDIT,
        target_id=channel_id,
        now=now,
        content=content,
        embeds=embeds,
        edit_of_key=key,
    )


def enqueue_edit(
    session: AsyncSession,
    *,
    channel_id: int,
    message_id: int,
    now: datetime,
    content: str = "",
    embeds: list[dict[str, Any]] | None = None,
) -> OutboxMessage:
    """A new text for a message the bot posted earlier (edits apply in queue order)."""
    return _add(
        session,
        kind=OutboxKind.EDIT,
        target_id=channel_id,
        now=now,
        content=content,
        embeds=embeds,
        edit_message_id=message_id,
    )


class OutboxWorker:
    """Delivers due outbox rows; safe to call repeatedly and after a restart."""

    def __init__(
        self,
        client: discord.Client,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        td_alert_channel_id: int | None = None,
    ) -> None:
        self.client = client
        self.sessions = sessions
        self.clock = clock
        self.td_alert_channel_id = td_alert_channel_id
        self.views: dict[str, ViewFactory] = {}

    def register_view(self, kind: str, factory: ViewFactory) -> None:
        """Cogs register how to rebuild the buttons a stored message carries."""
        self.views[kind] = factory

    async def flush(self, limit: int = 50) -> int:
        """Send every due message once; returns how many were delivered."""
        now = self.clock.now()
        async with self.sessions() as session:
            due = (
                await session.scalars(
                    select(OutboxMessage.id)
                    .where(
                        OutboxMessage.sent_at.is_(None),
                        OutboxMessage.failed_at.is_(None),
                        OutboxMessage.next_attempt_at <= now,
                    )
                    .order_by(OutboxMessage.id)
                    .limit(limit)
                )
            ).all()
        delivered = 0
        for message_id in due:
            delivered += await self._deliver(message_id)
        return delivered

    async def _deliver(self, message_id: int) -> int:
        async with self.sessions() as session:
            message = await session.get(OutboxMessage, message_id)
            if message is None or message.sent_at is not None:
                return 0
            if message.edit_of_key and not message.edit_message_id:
                original = await session.scalar(
                    select(OutboxMessage).where(OutboxMessage.dedupe_key == message.edit_of_key)
                )
                if original is None or original.discord_message_id is None:
                    return await self._postpone(message_id)
                newer = await session.scalar(
                    select(OutboxMessage.id).where(
                        OutboxMessage.edit_of_key == message.edit_of_key,
                        OutboxMessage.id > message.id,
                        OutboxMessage.sent_at.is_not(None),
                    )
                )
                if newer is not None:
                    return await self._mark_superseded(message_id)
                message.edit_message_id = original.discord_message_id
        try:
            sent = await self._send(message)
        except discord.Forbidden as exc:
            if message.kind is OutboxKind.DM:
                sent = await self._dm_fallback(message)
            else:
                return await self._failed(message_id, exc, retry=False)
        except (discord.HTTPException, discord.NotFound) as exc:
            return await self._failed(message_id, exc, retry=True)
        async with transaction(self.sessions) as session:
            row = await session.get(OutboxMessage, message_id)
            if row is not None:
                row.sent_at = self.clock.now()
                row.attempts += 1
                row.discord_message_id = sent.id if sent else None
        return 1

    def _payload(self, message: OutboxMessage) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "content": message.content or None,
            "embeds": [discord.Embed.from_dict(e) for e in message.embeds],
        }
        if message.view:
            factory = self.views.get(message.view["kind"])
            if factory is not None:
                kwargs["view"] = factory(message.view.get("args", {}))
        return kwargs

    def _messageable(self, channel_id: int) -> discord.PartialMessageable:
        """A channel or thread by id, without fetching it first (one request less)."""
        return self.client.get_partial_messageable(channel_id)

    async def _send(self, message: OutboxMessage) -> discord.Message | None:
        payload = self._payload(message)
        if message.kind is OutboxKind.DM:
            dm = await self.client.create_dm(discord.Object(id=message.target_id))
            return await dm.send(**payload)
        channel = self._messageable(message.target_id)
        if message.kind is OutboxKind.EDIT and message.edit_message_id:
            return await channel.get_partial_message(message.edit_message_id).edit(**payload)
        return await channel.send(**payload)

    async def _dm_fallback(self, message: OutboxMessage) -> discord.Message | None:
        """Closed DMs: mention the user where they can see it, and tell the TD."""
        payload = self._payload(message)
        payload["content"] = f"<@{message.target_id}> (your DMs are closed) " + (
            payload["content"] or ""
        )
        sent: discord.Message | None = None
        if message.fallback_channel_id:
            channel = self._messageable(message.fallback_channel_id)
            sent = await channel.send(**payload)
        if self.td_alert_channel_id:
            alert = self._messageable(self.td_alert_channel_id)
            where = (
                f"<#{message.fallback_channel_id}>" if message.fallback_channel_id else "nowhere"
            )
            await alert.send(
                content=f"Could not DM <@{message.target_id}> (DMs closed); posted in {where}."
            )
        return sent

    async def _mark_superseded(self, message_id: int) -> int:
        """A later edit of the same message was already shown: this older text is stale."""
        async with transaction(self.sessions) as session:
            row = await session.get(OutboxMessage, message_id)
            if row is not None:
                row.sent_at = self.clock.now()
                row.last_error = "superseded by a later edit"
        return 0

    async def _postpone(self, message_id: int) -> int:
        """The message this edit refers to is not sent yet: try again shortly."""
        async with transaction(self.sessions) as session:
            row = await session.get(OutboxMessage, message_id)
            if row is not None:
                row.next_attempt_at = self.clock.now() + timedelta(seconds=5)
        return 0

    async def _failed(self, message_id: int, exc: Exception, *, retry: bool) -> int:
        log.warning("outbox message %s not delivered: %s", message_id, type(exc).__name__)
        async with transaction(self.sessions) as session:
            row = await session.get(OutboxMessage, message_id)
            if row is None:
                return 0
            row.attempts += 1
            row.last_error = f"{type(exc).__name__}: {exc}"[:500]
            now = self.clock.now()
            if retry and row.attempts < MAX_ATTEMPTS:
                row.next_attempt_at = now + timedelta(seconds=min(3600, 15 * 2**row.attempts))
            else:
                row.failed_at = now
        return 0
