"""The TD's discipline commands (/td discipline disqualify, reinstate): rules VI.F, VIII."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.features.discipline import text as wording
from cogs.common import LichessName, Reason, bot_of, kick_outbox, player_choices
from cogs.td import TDCommand


@app_commands.describe(player="Lichess username")
@app_commands.autocomplete(player=player_choices)
async def reinstate(interaction: discord.Interaction, player: LichessName) -> None:
    name = await bot_of(interaction).svc.discipline.td_reinstate(
        td_id=interaction.user.id, player_name=player
    )
    await interaction.response.send_message(wording.reinstate_reply(name), ephemeral=True)
    await kick_outbox(interaction)


@app_commands.describe(
    player="Lichess username",
    reason="Why (kept for the TD and the audit log)",
    engine="A Lichess engine mark (not booster): adjudicates their Swiss games (VIII.A.2)",
    also="The other account of the same person: both are disqualified (rule II.C.4)",
)
@app_commands.autocomplete(player=player_choices, also=player_choices)
async def disqualify(
    interaction: discord.Interaction,
    player: LichessName,
    reason: Reason,
    engine: bool = False,
    also: LichessName | None = None,
) -> None:
    names = await bot_of(interaction).svc.discipline.td_disqualify(
        td_id=interaction.user.id, player_name=player, reason=reason, engine=engine, also=also
    )
    await interaction.response.send_message(
        wording.disqualify_reply(names, two=bool(also)), ephemeral=True
    )
    await kick_outbox(interaction)


TD_COMMANDS = [
    TDCommand("disqualify", "Disqualify a player (rule VIII)", disqualify),
    TDCommand("reinstate", "Reverse a disqualification", reinstate),
]
