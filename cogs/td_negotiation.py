"""The TD's negotiation commands (/td assign-time, /td fault): a mixin of the /td group cog.

`TDCog` inherits these; discord.py's CogMeta collects app commands through the MRO, and the
cog's `interaction_check` keeps them TD-only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.services import negotiation_text as wording
from cogs.common import MatchId, kick_outbox

if TYPE_CHECKING:
    # For type checking only: app_commands.command needs its owner to be a Cog or Group.
    from discord.ext.commands import Cog as _MixinBase

    from bot.app import ChampionshipBot
else:
    _MixinBase = object


class NegotiationTDCommands(_MixinBase):
    """Mixin (not a Cog): rules V.F, V.H, V.I."""

    bot: ChampionshipBot

    @app_commands.command(name="assign-time", description="Assign a match time (rules V.F, V.I)")
    @app_commands.describe(match="Match number", time="One UTC time, e.g. `2019-10-05 18:00`")
    async def assign_time(
        self, interaction: discord.Interaction, match: MatchId, time: str
    ) -> None:
        agreement = await self.bot.svc.negotiation.assign_time(
            td_id=interaction.user.id, match_id=match, text=time
        )
        await interaction.response.send_message(
            wording.assigned_reply(agreement.match_id, agreement.time), ephemeral=True
        )
        await kick_outbox(interaction)

    @app_commands.command(name="fault", description="Rule who is at fault (rules V.H, V.I)")
    @app_commands.describe(match="Match number", player="Lichess username at fault, or `nobody`")
    async def fault(self, interaction: discord.Interaction, match: MatchId, player: str) -> None:
        ruling = await self.bot.svc.negotiation.rule_fault(
            td_id=interaction.user.id, match_id=match, player_name=player
        )
        await interaction.response.send_message(
            wording.fault_reply(ruling.match_id, ruling.at_fault, ruling.chooser), ephemeral=True
        )
        await kick_outbox(interaction)

    @fault.autocomplete("player")
    async def fault_player_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """The two players of the chosen match, then `nobody`: the TD picks, never types."""
        match = interaction.namespace.match
        names = await self.bot.svc.negotiation.fault_choices(match if isinstance(match, int) else 0)
        typed = current.strip().lower()
        return [app_commands.Choice(name=n, value=n) for n in names if typed in n.lower()]
