"""Editing a message in a thread Discord archived.

Discord archives a thread nobody wrote in for its auto-archive time (a week at most) and
refuses to edit its messages (error 50083) until it is unarchived. A round's pairings post
(a forum post's first message) and a match's scoreboard are edited long after their last
message; sending in a thread brings it back by itself, an edit does not. An unlocked thread
is unarchived by anyone who may send messages in it, so the bot needs no Manage Threads.
"""

from __future__ import annotations

from typing import Any

import discord

THREAD_ARCHIVED = 50083  # Discord: "Thread is archived"


async def edit_message(
    client: discord.Client, channel: discord.PartialMessageable, message_id: int, **payload: Any
) -> discord.Message:
    """Edit the message, unarchiving its thread first if Discord refuses for that reason."""
    message = channel.get_partial_message(message_id)
    try:
        return await message.edit(**payload)
    except discord.HTTPException as exc:
        if exc.code != THREAD_ARCHIVED:
            raise
    await client.http.edit_channel(channel.id, archived=False)
    return await message.edit(**payload)
