"""/help for everyone: the commands the caller can use, each with the rule it serves; and
the extension's setup, which adds the TD's /td console group."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_limits import EMBEDS_PER_MESSAGE, EMBEDS_TOTAL
from bot.features.console import text as wording
from bot.features.console.td_cog import TD_COMMANDS
from bot.features.console.types import CommandEntry
from cogs.common import embed, is_td
from cogs.td import TDGroup, add_td_commands

if TYPE_CHECKING:
    from bot.app import ChampionshipBot

Leaf = app_commands.Command[Any, ..., Any]
MESSAGE_EMBEDS, MESSAGE_EMBED_TEXT = EMBEDS_PER_MESSAGE, EMBEDS_TOTAL


def _leaves(
    items: Iterable[app_commands.Command[Any, ..., Any] | app_commands.Group], td: bool
) -> Iterator[tuple[Leaf, bool]]:
    """Every slash command under `items`, depth first in the order they were added."""
    for item in items:
        if isinstance(item, app_commands.Group):
            yield from _leaves(item.commands, td or isinstance(item, TDGroup))
        else:
            yield item, td or isinstance(item.parent, TDGroup)


def command_entries(tree: app_commands.CommandTree[Any], *, td: bool) -> list[CommandEntry]:
    """The tree's slash commands in the order they were added; /td's only for the TD."""
    tops = tree.get_commands(type=discord.AppCommandType.chat_input)
    return [
        CommandEntry(
            name=leaf.qualified_name,
            options=tuple((p.display_name, p.required) for p in leaf.parameters),
            description=leaf.description,
            rule=wording.RULES.get(leaf.qualified_name),
            td=is_td_command,
        )
        for leaf, is_td_command in _leaves(tops, False)
        if td or not is_td_command
    ]


def _messages(embeds: list[discord.Embed]) -> list[list[discord.Embed]]:
    """The embeds in as few messages as Discord allows."""
    messages: list[list[discord.Embed]] = []
    for item in embeds:
        last = messages[-1] if messages else None
        if (
            last is None
            or len(last) >= MESSAGE_EMBEDS
            or sum(len(e) for e in last) + len(item) > MESSAGE_EMBED_TEXT
        ):
            messages.append([item])
        else:
            last.append(item)
    return messages


class ConsoleCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="help", description="The commands you can use, each with the rule it serves"
    )
    async def show_help(self, interaction: discord.Interaction) -> None:
        entries = command_entries(self.bot.tree, td=is_td(interaction))
        embeds = [embed(data) for data in wording.help_embeds(entries)]
        first, *rest = _messages(embeds)
        await interaction.response.send_message(embeds=first, ephemeral=True)
        for more in rest:
            await interaction.followup.send(embeds=more, ephemeral=True)


async def setup(bot: ChampionshipBot) -> None:
    """The extension: /help and the TD's /td console group."""
    add_td_commands(bot, "console", "The TD's console: the audit log", TD_COMMANDS)
    await bot.add_cog(ConsoleCog(bot))
