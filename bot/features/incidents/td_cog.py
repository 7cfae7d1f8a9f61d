"""The TD's incident command (/td incident overrule): rules VI.D, VI.E."""

from __future__ import annotations

import discord
from discord import app_commands

from cogs.common import IncidentId, Reason, bot_of, incident_choices, kick_outbox
from cogs.td import TDCommand


@app_commands.describe(incident="Incident number (from the TD message)", reason="Why")
@app_commands.autocomplete(incident=incident_choices)
async def overrule(interaction: discord.Interaction, incident: IncidentId, reason: Reason) -> None:
    result = await bot_of(interaction).svc.overrules.overrule(
        td_id=interaction.user.id, incident_id=incident, reason=reason
    )
    await interaction.response.send_message(result.text, ephemeral=True)
    await kick_outbox(interaction)


TD_COMMANDS = [
    TDCommand("overrule", "Overrule a no-show or left claim", overrule),
]
