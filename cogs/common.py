"""Helpers every cog uses: who is the TD, the bot's services, guarded button callbacks."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Self, cast

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


class IdButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"acwc:unused:(?P<id>\d+)",
):
    """A persistent button whose custom_id carries one id, so it works after a restart.

    Subclasses give `template` (with an `id` group), `prefix`, `label` and `style`, and
    implement `run`; errors in `run` get the same ephemeral replies as slash commands.
    """

    prefix: str = "acwc:unused"
    label: str = ""
    style: discord.ButtonStyle = discord.ButtonStyle.primary

    def __init__(self, ident: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=self.label, style=self.style, custom_id=f"{self.prefix}:{ident}"
            )
        )
        self.ident = ident

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, lambda: self.run(interaction))

    async def run(self, interaction: discord.Interaction) -> None:
        raise NotImplementedError


def single_button_view(item: IdButton) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(item)
    return view
