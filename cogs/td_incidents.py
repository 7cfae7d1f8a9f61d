"""The TD's incident commands (/td overrule, /td reinstate, /td disqualify): a /td mixin.

`TDCog` inherits these; its `interaction_check` keeps them TD-only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from cogs.common import IncidentId, kick_outbox

if TYPE_CHECKING:
    # For type checking only: app_commands.command needs its owner to be a Cog or Group.
    from discord.ext.commands import Cog as _MixinBase

    from bot.app import ChampionshipBot
else:
    _MixinBase = object


class IncidentsTDCommands(_MixinBase):
    """Mixin (not a Cog): rules VI.D, VI.E (overrule a claim), VI.F and VIII."""

    bot: ChampionshipBot

    @app_commands.command(name="overrule", description="Overrule a no-show or left claim")
    @app_commands.describe(incident="Incident number (from the TD message)", reason="Why")
    async def overrule(
        self, interaction: discord.Interaction, incident: IncidentId, reason: str
    ) -> None:
        result = await self.bot.svc.incidents.overrule(
            td_id=interaction.user.id, incident_id=incident, reason=reason
        )
        await interaction.response.send_message(result.text, ephemeral=True)
        await kick_outbox(interaction)

    @app_commands.command(name="reinstate", description="Reverse a disqualification")
    @app_commands.describe(player="Lichess username")
    async def reinstate(self, interaction: discord.Interaction, player: str) -> None:
        name = await self.bot.svc.incidents.td_reinstate(
            td_id=interaction.user.id, player_name=player
        )
        await interaction.response.send_message(
            f"{name} is reinstated; the announcement and your summary are on their way.",
            ephemeral=True,
        )
        await kick_outbox(interaction)

    @app_commands.command(name="disqualify", description="Disqualify a player (rule VIII)")
    @app_commands.describe(
        player="Lichess username",
        reason="Why (kept for the TD and the audit log)",
        engine="A Lichess engine mark (not booster): adjudicates their Swiss games (VIII.A.2)",
    )
    async def disqualify(
        self, interaction: discord.Interaction, player: str, reason: str, engine: bool = False
    ) -> None:
        name = await self.bot.svc.incidents.td_disqualify(
            td_id=interaction.user.id, player_name=player, reason=reason, engine=engine
        )
        await interaction.response.send_message(
            f"{name} is disqualified; rule VIII has been applied to their results.",
            ephemeral=True,
        )
        await kick_outbox(interaction)
