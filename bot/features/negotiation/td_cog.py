"""The TD's negotiation commands (/td negotiation assign-time, fault): rules V.F, V.H, V.I."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.features.negotiation import td_text as td_wording
from cogs.common import (
    MATCH_HELP,
    LichessName,
    MatchId,
    TimeText,
    bot_of,
    is_td,
    kick_outbox,
    match_choices,
)
from cogs.td import TDCommand


@app_commands.describe(match=MATCH_HELP, time="One UTC time, e.g. `2019-10-05 18:00`")
@app_commands.autocomplete(match=match_choices)
async def assign_time(interaction: discord.Interaction, match: MatchId, time: TimeText) -> None:
    agreement = await bot_of(interaction).svc.rulings.assign_time(
        td_id=interaction.user.id, match_id=match, text=time
    )
    await interaction.response.send_message(
        td_wording.assigned_reply(agreement.match, agreement.time), ephemeral=True
    )
    await kick_outbox(interaction)


async def fault_player_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The two players of the chosen match, then `nobody`: the TD picks, never types.
    Autocomplete skips the /td groups' checks: anyone else gets an empty list."""
    if not is_td(interaction):
        return []
    match = interaction.namespace.match
    service = bot_of(interaction).svc.rulings
    names = await service.fault_choices(match if isinstance(match, int) else 0)
    typed = current.strip().lower()
    return [app_commands.Choice(name=n, value=n) for n in names if typed in n.lower()]


@app_commands.describe(match=MATCH_HELP, player="Lichess username at fault, or `nobody`")
@app_commands.autocomplete(match=match_choices)
@app_commands.autocomplete(player=fault_player_choices)
async def fault(interaction: discord.Interaction, match: MatchId, player: LichessName) -> None:
    ruling = await bot_of(interaction).svc.rulings.rule_fault(
        td_id=interaction.user.id, match_id=match, player_name=player
    )
    await interaction.response.send_message(
        td_wording.fault_reply(ruling.match, ruling.at_fault, ruling.chooser, drawn=ruling.drawn),
        ephemeral=True,
    )
    await kick_outbox(interaction)


TD_COMMANDS = [
    TDCommand("assign-time", "Assign a match time (rules V.F, V.I)", assign_time),
    TDCommand("fault", "Rule who is at fault (rules V.H, V.I)", fault),
]
