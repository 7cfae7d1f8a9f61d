"""Every Discord permission the bot needs, in which channel and what for, and the invite URL.

Read from the code, not guessed: the outbox and the round publisher post with REST, and
every message the bot sends goes to one of the three configured channels, a thread under
the pairings channel, or a DM. Two permissions are deliberately absent:

- Attach Files: files (the /standings picture, the /schedule calendar) only go in
  interaction responses, which Discord always lets an app attach files and embeds to.
- Manage Threads: the bot never archives, locks or renames a thread.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from enum import Enum

import discord

SCOPES = ("bot", "applications.commands")


@dataclass(frozen=True)
class Need:
    """One permission in one channel: its discord.py flag, its name in Discord, why."""

    flag: str
    name: str
    why: str


VIEW = Need("view_channel", "View Channel", "see the channel at all")
SEND = Need("send_messages", "Send Messages", "post there")
EMBED = Need("embed_links", "Embed Links", "TD alerts carry embeds (registrations, reports)")
ATTACH = Need("attach_files", "Attach Files", "each round's standings post carries its picture")
HISTORY = Need(
    "read_message_history",
    "Read Message History",
    "keep the pairings post and live scores it edits readable to itself",
)
CREATE_THREADS = Need(
    "create_public_threads",
    "Create Public Threads",
    "open the round's thread and each match's thread (text channel)",
)
SEND_IN_THREADS = Need(
    "send_messages_in_threads",
    "Send Messages in Threads",
    "offers, game links, scores and incidents in each match's thread",
)


class ChannelUse(Enum):
    """The configured channels, each with the channel types it may be."""

    PAIRINGS = "pairings"
    ANNOUNCEMENTS = "announcements"
    TD_ALERTS = "TD alerts"


# What the bot does in each channel. In a forum, Send Messages is what creates a post, and a
# post is a thread of its own, so Create Public Threads is needed only in a text channel.
CHANNEL_NEEDS: dict[ChannelUse, tuple[Need, ...]] = {
    ChannelUse.PAIRINGS: (VIEW, SEND, HISTORY, SEND_IN_THREADS, CREATE_THREADS),
    ChannelUse.ANNOUNCEMENTS: (VIEW, SEND, ATTACH),
    ChannelUse.TD_ALERTS: (VIEW, SEND, EMBED),
}

# The one permission integer of the invite: the union of every channel's needs.
BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,  # see the announcement, pairings and TD alert channels
    send_messages=True,  # post in them; in a forum pairings channel, create the round's post
    embed_links=True,  # the TD alerts' embeds (registration summaries, cheat reports)
    attach_files=True,  # the standings picture on each round's table post
    read_message_history=True,  # the pairings post and the live scores it keeps editing
    create_public_threads=True,  # the round's and each match's thread in a text channel
    send_messages_in_threads=True,  # match messages, game links, scores in match threads
)


def needs_in(use: ChannelUse, *, forum: bool) -> tuple[Need, ...]:
    """The permissions the bot needs in a channel used as `use` (a forum needs no thread
    creation: its posts are made with Send Messages)."""
    needs = CHANNEL_NEEDS[use]
    return tuple(n for n in needs if not (forum and n is CREATE_THREADS))


def missing(permissions: discord.Permissions, needs: tuple[Need, ...]) -> list[Need]:
    return [need for need in needs if not getattr(permissions, need.flag)]


def invite_url(application_id: int) -> str:
    """The link that adds the bot to a server with exactly the scopes and permissions it needs."""
    return discord.utils.oauth_url(application_id, permissions=BOT_PERMISSIONS, scopes=SCOPES)


def application_id_from_token(token: str | None) -> int | None:
    """The application id a Discord bot token carries: its first dot-separated part is the
    base64 of the bot user's id, which is the application's id. Read without asking Discord,
    so the invite URL can be printed offline; None when the token holds no such id. (Only the
    id is ever shown, never the token.)"""
    if not token:
        return None
    first = token.strip().split(".", 1)[0]
    try:
        raw = base64.urlsafe_b64decode(first + "=" * (-len(first) % 4)).decode("ascii")
    except (binascii.Error, ValueError):
        return None
    return int(raw) if raw.isdigit() and 17 <= len(raw) <= 20 else None
