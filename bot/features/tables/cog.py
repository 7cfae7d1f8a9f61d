"""/standings and /pairings: the tables as a picture with the same table in text."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.features.tables import text as wording
from bot.features.tables.render import STANDINGS_PICTURE, standings_picture
from db.models import StageKind

if TYPE_CHECKING:
    from bot.app import ChampionshipBot

StageChoice = Literal["swiss", "tiebreak", "candidates", "final"]
PICTURE = "standings.png"


class TablesCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        """A live bot draws the current standings' picture before anyone asks for it."""
        if self.bot.draw_ahead:
            self.bot.svc.tables.draw_ahead(True)

    async def cog_unload(self) -> None:
        self.bot.svc.tables.draw_ahead(False)

    @app_commands.command(
        name="standings", description="The standings of the current stage, or of an earlier one"
    )
    @app_commands.describe(stage="Which stage (default: the current one)")
    async def standings(
        self, interaction: discord.Interaction, stage: StageChoice | None = None
    ) -> None:
        text, png = await self.bot.svc.tables.standings_answer(StageKind(stage) if stage else None)
        await interaction.response.send_message(
            text,
            file=discord.File(io.BytesIO(png), filename=PICTURE),
            ephemeral=True,
        )

    @app_commands.command(
        name="pairings", description="A round's pairings, agreed times, results and games"
    )
    @app_commands.describe(
        number="The round (default: the latest one)",
        stage="Which stage (default: the current one)",
    )
    @app_commands.rename(number="round")
    async def pairings(
        self,
        interaction: discord.Interaction,
        number: app_commands.Range[int, 1, 1000] | None = None,
        stage: StageChoice | None = None,
    ) -> None:
        view = await self.bot.svc.tables.pairings(number, StageKind(stage) if stage else None)
        await interaction.response.send_message(wording.pairings_text(view), ephemeral=True)


async def setup(bot: ChampionshipBot) -> None:
    """The extension: /standings and /pairings, and the picture the table posts carry."""
    if bot.outbox is not None:
        bot.outbox.register_attachment(STANDINGS_PICTURE, standings_picture)
    await bot.add_cog(TablesCog(bot))
