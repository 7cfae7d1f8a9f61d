"""Files a queued message carries: drawn when the message is sent, from the plain data its
row stores, so that nothing heavy happens in the transaction that queued it and a retried
send carries the same file (see OutboxWorker.register_attachment)."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable, Mapping
from typing import Any

import discord

from db.models import OutboxMessage

log = logging.getLogger(__name__)

# (file name, bytes) drawn from a row's plain args; the same args must give the same file.
AttachmentFactory = Callable[[dict[str, Any]], tuple[str, bytes]]


async def draw_attachment(
    message: OutboxMessage, factories: Mapping[str, AttachmentFactory]
) -> discord.File | None:
    """The row's attachment, drawn now in a worker thread (a picture takes a while); a kind
    nobody registered is logged and the message goes without it: the text is the message,
    and it is never held back for its file."""
    if not message.attachment:
        return None
    factory = factories.get(message.attachment["kind"])
    if factory is None:
        log.error("outbox message %s: no attachment kind %r", message.id, message.attachment)
        return None
    name, data = await asyncio.to_thread(factory, message.attachment.get("args", {}))
    return discord.File(io.BytesIO(data), filename=name)


async def send_with_file(
    channel: discord.abc.Messageable,
    kwargs: dict[str, Any],
    nonce: str,
    file: discord.File | None,
) -> discord.Message:
    """One message. Where the bot may post but not attach files (Attach Files missing:
    Discord answers 403), it goes without the file rather than wait: the text is the
    message, and `acwc doctor` names the missing permission."""
    if file is None:
        return await channel.send(**kwargs, nonce=nonce)
    try:
        return await channel.send(**kwargs, file=file, nonce=nonce)
    except discord.Forbidden:
        log.warning("posted without its file: the bot may not attach files in %s", channel)
        return await channel.send(**kwargs, nonce=nonce)
