"""Messages to the tournament director: a DM to each configured TD, else the TD alert channel."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import Config
from bot.outbox_queue import enqueue_channel, enqueue_dm

log = logging.getLogger(__name__)


def notify_td(
    session: AsyncSession,
    config: Config,
    *,
    now: datetime,
    content: str,
    embeds: list[dict[str, Any]] | None = None,
    view: tuple[str, dict[str, Any]] | None = None,
) -> int:
    """Queue the message for every TD; returns how many messages were queued.

    A TD whose DMs are closed gets it in the TD alert channel instead (outbox fallback).
    """
    discord_cfg = config.discord
    queued = 0
    for td_id in discord_cfg.td_user_ids:
        enqueue_dm(
            session,
            user_id=td_id,
            now=now,
            content=content,
            embeds=embeds,
            view=view,
            fallback_channel_id=discord_cfg.td_alert_channel_id,
        )
        queued += 1
    if not queued and discord_cfg.td_alert_channel_id:
        enqueue_channel(
            session,
            channel_id=discord_cfg.td_alert_channel_id,
            now=now,
            content=content,
            embeds=embeds,
            view=view,
        )
        queued += 1
    if not queued:
        log.warning("no TD user id or TD alert channel configured; a TD message was not queued")
    return queued


async def once(session: AsyncSession, key: str, now: datetime) -> bool:
    """True the first time `key` is seen (a marker row is written in this transaction),
    False ever after: a condition a job meets on every run is acted on once."""
    from db.models import Setting

    marker = "once:" + key
    if await session.get(Setting, marker) is not None:
        return False
    session.add(Setting(key=marker[:64], value="", updated_at=now))
    await session.flush()
    return True


async def notify_td_once(
    session: AsyncSession, config: Config, *, key: str, now: datetime, content: str
) -> bool:
    """`notify_td`, but only the first time `key` comes; True when it was queued now."""
    if not await once(session, key, now):
        return False
    notify_td(session, config, now=now, content=content)
    return True
