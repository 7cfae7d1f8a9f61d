"""Commands everyone can use to follow the qualification."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.services.rounds import StandingLine

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


def standings_text(lines: list[StandingLine], qualifiers: int) -> str:
    rows = ["**Qualification standings** (points · wins vs tied · median Buchholz)"]
    for line in lines:
        mark = " ✅" if line.rank <= qualifiers and not line.withdrawn else ""
        gone = " (withdrawn)" if line.withdrawn else ""
        rows.append(
            f"{line.rank}. {line.player}{gone} · {line.points:g} · {line.wins_vs_tied} · "
            f"{line.median_buchholz:g}{mark}"
        )
    return "\n".join(rows)[:1990]


class RoundsCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot

    @app_commands.command(name="standings", description="The qualification standings")
    async def standings(self, interaction: discord.Interaction) -> None:
        lines = await self.bot.svc.rounds.standings()
        await interaction.response.send_message(
            standings_text(lines, self.bot.config.swiss.qualifiers), ephemeral=True
        )
