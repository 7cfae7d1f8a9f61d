"""Commands everyone can use to follow the qualification."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.features.rounds.robin import TIE_VIEW
from bot.features.rounds.td_cog import (
    TD_COMMANDS,
    CancelSwissButton,
    PublishSwissButton,
    TieButton,
    tie_view,
)
from bot.features.rounds.text import standings_text
from cogs.td import add_td_commands

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


class RoundsCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot

    @app_commands.command(name="standings", description="The qualification standings")
    async def standings(self, interaction: discord.Interaction) -> None:
        lines = await self.bot.svc.rounds.standings()
        await interaction.response.send_message(
            standings_text(lines, self.bot.config.swiss.qualifiers), ephemeral=True
        )


async def setup(bot: ChampionshipBot) -> None:
    """The extension: /standings, the TD's /td round group and its preview buttons."""
    bot.add_dynamic_items(PublishSwissButton, CancelSwissButton, TieButton)
    if bot.outbox is not None:
        bot.outbox.register_view(TIE_VIEW, tie_view)
    add_td_commands(bot, "round", "Run the rounds: start, publish, scores", TD_COMMANDS)
    await bot.add_cog(RoundsCog(bot))
