"""Helpers every cog uses: who is the TD, the bot's services, guarded button callbacks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands

from cogs.errors import NotTD, reply_error

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


def bot_of(interaction: discord.Interaction) -> ChampionshipBot:
    return cast("ChampionshipBot", interaction.client)


def is_td(interaction: discord.Interaction) -> bool:
    """A TD is a configured TD user id, or a member holding the configured TD role."""
    cfg = bot_of(interaction).config.discord
    if interaction.user.id in cfg.td_user_ids:
        return True
    if cfg.td_role_id is None or not isinstance(interaction.user, discord.Member):
        return False
    return any(role.id == cfg.td_role_id for role in interaction.user.roles)


def td_only() -> Callable[[Any], Any]:
    """An app-command check: anyone else gets the TD-only refusal from the error handler."""

    async def predicate(interaction: discord.Interaction) -> bool:
        if not is_td(interaction):
            raise NotTD("TD only")
        return True

    return app_commands.check(predicate)


async def guarded(interaction: discord.Interaction, action: Callable[[], Awaitable[None]]) -> None:
    """Buttons and modals bypass the tree's error handler: route their errors the same way."""
    try:
        await action()
    except Exception as error:
        await reply_error(interaction, error)


def embed(data: dict[str, Any]) -> discord.Embed:
    return discord.Embed.from_dict(data)


async def kick_outbox(interaction: discord.Interaction) -> None:
    """Deliver queued messages now instead of waiting for the next periodic flush."""
    outbox = bot_of(interaction).outbox
    if outbox is not None:
        await outbox.flush()
