"""/standings and /pairings: the tables as a picture with the same table in text."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.features.tables import text as wording
from bot.features.tables.bracket_picture import BRACKET_PICTURE, bracket_picture
from bot.features.tables.render import STANDINGS_PICTURE, standings_picture

if TYPE_CHECKING:
    from bot.app import ChampionshipBot

CHOICES = 25  # Discord shows at most 25 autocomplete choices


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
    @app_commands.describe(stage="Which stage or pool (default: the current one)")
    async def standings(
        self, interaction: discord.Interaction, stage: app_commands.Range[str, 1, 31] | None = None
    ) -> None:
        """One answer per table: each pool's crosstable, both finals' scoreboards; first the
        bracket of a knock-out or final match."""
        answers = await self.bot.svc.tables.standings_answers(stage)
        for index, answer in enumerate(answers):
            file = discord.File(io.BytesIO(answer.png), filename=answer.filename)
            if index == 0:
                await interaction.response.send_message(answer.text, file=file, ephemeral=True)
            else:
                await interaction.followup.send(answer.text, file=file, ephemeral=True)

    async def _stages(
        self, _interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """The format's stages and pools by key, named as the format names them."""
        typed = current.strip().lower()
        return [
            app_commands.Choice(name=name, value=key)
            for key, name in wording.stage_choices(self.bot.config.format)
            if typed in key or typed in name.lower()
        ][:CHOICES]

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
        stage: app_commands.Range[str, 1, 31] | None = None,
    ) -> None:
        view = await self.bot.svc.tables.pairings(number, stage)
        await interaction.response.send_message(wording.pairings_text(view), ephemeral=True)

    standings.autocomplete("stage")(_stages)
    pairings.autocomplete("stage")(_stages)


async def setup(bot: ChampionshipBot) -> None:
    """The extension: /standings and /pairings, and the picture the table posts carry."""
    if bot.outbox is not None:
        bot.outbox.register_attachment(STANDINGS_PICTURE, standings_picture)
        bot.outbox.register_attachment(BRACKET_PICTURE, bracket_picture)
    await bot.add_cog(TablesCog(bot))
