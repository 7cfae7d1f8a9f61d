"""Queueing outbox messages: services call these inside their own transaction, so a message
exists exactly when the state change that caused it was committed (docs/ARCHITECTURE.md,
"Messages: the outbox"). The worker that delivers them is bot.outbox."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from db.models import OutboxKind, OutboxMessage


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
    attachment: tuple[str, dict[str, Any]] | None = None,
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
        attachment={"kind": attachment[0], "args": attachment[1]} if attachment else None,
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
    attachment: tuple[str, dict[str, Any]] | None = None,
) -> OutboxMessage:
    """A post in a channel or thread; `key` names it so that later edits can refer to it;
    `attachment` (kind, args) is a file the worker draws when it sends the post."""
    return _add(
        session,
        kind=OutboxKind.CHANNEL,
        target_id=channel_id,
        now=now,
        content=content,
        embeds=embeds,
        view=view,
        dedupe_key=key,
        attachment=attachment,
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
