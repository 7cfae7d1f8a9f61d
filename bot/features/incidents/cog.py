"""Player commands for match-day incidents (rule VI): /noshow, /break, /left, and the buttons
that answer the bot's follow-up questions (still absent?, claim the win or reschedule)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.features.incidents.core import LEFT_CLAIM_VIEW, NOSHOW_CHECK_VIEW, NOSHOW_CHOICE_VIEW
from bot.features.incidents.td_cog import TD_COMMANDS
from bot.features.incidents.types import IncidentResult
from cogs.common import IdButton, bot_of, kick_outbox
from cogs.td import add_td_commands

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


def _view(*items: IdButton) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def noshow_check_view(incident_id: int) -> discord.ui.View:
    return _view(StillAbsentButton(incident_id), ArrivedButton(incident_id))


def noshow_choice_view(incident_id: int) -> discord.ui.View:
    return _view(ClaimWinButton(incident_id), RescheduleButton(incident_id))


def left_claim_view(incident_id: int) -> discord.ui.View:
    return _view(ClaimWinButton(incident_id))


VIEWS = {
    NOSHOW_CHECK_VIEW: noshow_check_view,
    NOSHOW_CHOICE_VIEW: noshow_choice_view,
    LEFT_CLAIM_VIEW: left_claim_view,
}


async def _reply(interaction: discord.Interaction, result: IncidentResult) -> None:
    """The answer, ephemeral, with the next buttons when the service asks for them."""
    if result.view is not None:
        await interaction.response.send_message(
            result.text, view=VIEWS[result.view](result.incident_id), ephemeral=True
        )
    else:
        await interaction.response.send_message(result.text, ephemeral=True)
    await kick_outbox(interaction)


class StillAbsentButton(IdButton, template=r"acwc:inc:absent:(?P<id>\d+)"):
    """The opponent is still absent after the grace period (rule VI.D, second message)."""

    prefix, label, style = "acwc:inc:absent", "Still absent", discord.ButtonStyle.danger

    async def run(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        result = await bot_of(interaction).svc.noshows.still_absent(
            discord_id=interaction.user.id, incident_id=self.ident
        )
        await _followup(interaction, result)


class ArrivedButton(IdButton, template=r"acwc:inc:arrived:(?P<id>\d+)"):
    """The opponent showed up: the no-show report is closed."""

    prefix, label, style = "acwc:inc:arrived", "They are here", discord.ButtonStyle.success

    async def run(self, interaction: discord.Interaction) -> None:
        result = await bot_of(interaction).svc.noshows.arrived(
            discord_id=interaction.user.id, incident_id=self.ident
        )
        await _reply(interaction, result)


class ClaimWinButton(IdButton, template=r"acwc:inc:claim:(?P<id>\d+)"):
    """Claim the win (rules VI.D, VI.E); Lichess is checked first for a game between them."""

    prefix, label, style = "acwc:inc:claim", "Claim the win", discord.ButtonStyle.danger

    async def run(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        result = await bot_of(interaction).svc.noshows.claim_win(
            discord_id=interaction.user.id, incident_id=self.ident
        )
        await _followup(interaction, result)


class RescheduleButton(IdButton, template=r"acwc:inc:resched:(?P<id>\d+)"):
    """Reschedule after a no-show (rule VI.D): negotiation reopens until the round deadline."""

    prefix, label, style = "acwc:inc:resched", "Reschedule", discord.ButtonStyle.primary

    async def run(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        result = await bot_of(interaction).svc.noshows.reschedule(
            discord_id=interaction.user.id, incident_id=self.ident
        )
        await _followup(interaction, result)


async def _followup(interaction: discord.Interaction, result: IncidentResult) -> None:
    """After a deferral (the Lichess check can take a moment)."""
    if result.view is not None:
        await interaction.followup.send(
            result.text, view=VIEWS[result.view](result.incident_id), ephemeral=True
        )
    else:
        await interaction.followup.send(result.text, ephemeral=True)
    await kick_outbox(interaction)


def _factory(kind: str) -> Any:
    return lambda args: VIEWS[kind](int(args["incident_id"]))


class IncidentsCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot
        bot.add_dynamic_items(StillAbsentButton, ArrivedButton, ClaimWinButton, RescheduleButton)
        if bot.outbox is not None:
            for kind in VIEWS:
                bot.outbox.register_view(kind, _factory(kind))

    @app_commands.command(name="noshow", description="Report that your opponent did not show up")
    @app_commands.guild_only()
    async def noshow(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        result = await self.bot.svc.noshows.noshow(discord_id=interaction.user.id)
        await _followup(interaction, result)

    @app_commands.command(name="break", description="Take your one break between games (VI.A)")
    @app_commands.guild_only()
    async def take_break(self, interaction: discord.Interaction) -> None:
        result = await self.bot.svc.breaks.take_break(discord_id=interaction.user.id)
        await _reply(interaction, result)

    @app_commands.command(name="left", description="Report that your opponent left the match")
    @app_commands.guild_only()
    async def left(self, interaction: discord.Interaction) -> None:
        result = await self.bot.svc.breaks.left(discord_id=interaction.user.id)
        await _reply(interaction, result)


async def setup(bot: ChampionshipBot) -> None:
    """The extension: the player commands and the TD's /td incident group."""
    add_td_commands(bot, "incident", "Match-day incidents", TD_COMMANDS)
    await bot.add_cog(IncidentsCog(bot))
