"""The TD's console commands (/td console audit): the audit log."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.features.console import text as wording
from cogs.common import LichessName, MatchId, bot_of, match_choices, player_choices
from cogs.td import TDCommand


@app_commands.describe(
    player="Lichess username: only what concerns this player",
    match="The match (type a player, its round or name, then pick): only what concerns it",
)
@app_commands.autocomplete(player=player_choices)
@app_commands.autocomplete(match=match_choices)
async def audit(
    interaction: discord.Interaction,
    player: LichessName | None = None,
    match: MatchId | None = None,
) -> None:
    page = await bot_of(interaction).svc.console.audit(player=player, match_id=match)
    await interaction.response.send_message(wording.audit_reply(page), ephemeral=True)


TD_COMMANDS = [
    TDCommand(
        "audit",
        "Decisions and automatic actions, newest first, with who or what did them",
        audit,
    ),
]
