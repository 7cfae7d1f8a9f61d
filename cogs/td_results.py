"""The TD's results command (/td void-game): a mixin of the /td group cog.

`TDCog` inherits it; the cog's `interaction_check` keeps it TD-only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.services import results_text as text
from cogs.common import kick_outbox

if TYPE_CHECKING:
    # For type checking only: app_commands.command needs its owner to be a Cog or Group.
    from discord.ext.commands import Cog as _MixinBase

    from bot.app import ChampionshipBot
else:
    _MixinBase = object


class ResultsTDCommands(_MixinBase):
    """Mixin (not a Cog): take a game out of its match, with a reason for the audit log."""

    bot: ChampionshipBot

    @app_commands.command(name="void-game", description="Void a recorded game of a match")
    @app_commands.describe(game="Lichess game id or link", reason="Why (goes into the audit log)")
    async def void_game(self, interaction: discord.Interaction, game: str, reason: str) -> None:
        result = await self.bot.svc.results.void_game(
            td_id=interaction.user.id, game_id=game, reason=reason
        )
        reply = text.voided_reply(
            result.lichess_id, result.match_id, result.score_a, result.score_b
        )
        if result.reopened:
            reply += " The match is no longer over: the bot reads its games again."
        await interaction.response.send_message(reply, ephemeral=True)
        await kick_outbox(interaction)
