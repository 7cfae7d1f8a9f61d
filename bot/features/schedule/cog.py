"""Player command for the player's own schedule: /schedule, with the calendar file."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.features.schedule import text as wording

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


class ScheduleCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="schedule", description="Your matches, upcoming and past, with a calendar file"
    )
    async def schedule(self, interaction: discord.Interaction) -> None:
        result = await self.bot.svc.schedule.schedule(discord_id=interaction.user.id)
        reply = wording.schedule_reply(result)
        if result.calendar is None:
            await interaction.response.send_message(reply, ephemeral=True)
            return
        calendar = discord.File(io.BytesIO(result.calendar), filename=wording.CALENDAR_FILE)
        await interaction.response.send_message(reply, file=calendar, ephemeral=True)


async def setup(bot: ChampionshipBot) -> None:
    """The extension: /schedule."""
    await bot.add_cog(ScheduleCog(bot))
