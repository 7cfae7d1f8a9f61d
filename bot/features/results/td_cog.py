"""The TD's results command (/td results void-game): take a game out of its match."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.features.results import text as wording
from cogs.common import GameText, Reason, bot_of, game_choices, kick_outbox
from cogs.td import TDCommand


@app_commands.describe(game="Lichess game id or link", reason="Why (goes into the audit log)")
@app_commands.autocomplete(game=game_choices)
async def void_game(interaction: discord.Interaction, game: GameText, reason: Reason) -> None:
    result = await bot_of(interaction).svc.results.void_game(
        td_id=interaction.user.id, game_id=game, reason=reason
    )
    reply = wording.voided_reply(result.lichess_id, result.match_id, result.score_a, result.score_b)
    if result.reopened:
        reply += " The match is no longer over: the bot reads its games again."
    await interaction.response.send_message(reply, ephemeral=True)
    await kick_outbox(interaction)


TD_COMMANDS = [
    TDCommand("void-game", "Void a recorded game of a match", void_game),
]
