"""Player command for match results: /game url: submits a game the results poll missed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.features.results import text as wording
from bot.features.results.td_cog import TD_COMMANDS
from cogs.common import kick_outbox
from cogs.td import add_td_commands

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


class ResultsCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot

    @app_commands.command(name="game", description="Submit a game of your match the bot missed")
    @app_commands.describe(url="The Lichess game link, e.g. https://lichess.org/abcdEFGH")
    async def game(self, interaction: discord.Interaction, url: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        result = await self.bot.svc.results.submit_game(discord_id=interaction.user.id, url=url)
        if result.already:
            reply = wording.already_recorded_reply(result.lichess_id, result.number)
        elif not result.counted:
            reply = wording.after_end_reply(result.lichess_id)
        else:
            reply = wording.submitted_reply(
                result.lichess_id, result.number, result.score_a, result.score_b
            )
        await interaction.followup.send(reply, ephemeral=True)
        await kick_outbox(interaction)


__all__ = ["ResultsCog"]


async def setup(bot: ChampionshipBot) -> None:
    """The extension: the player commands and the TD's /td results group."""
    add_td_commands(bot, "results", "Games and results", TD_COMMANDS)
    await bot.add_cog(ResultsCog(bot))
