"""Player commands for registration: /register (with "Log in with Lichess" when the web
server runs), the Verify button, /status, /withdraw."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import NotAllowed, WrongStage
from bot.features.registration import login_text as login_wording
from bot.features.registration import text as wording
from bot.features.registration.td_cog import (
    TD_COMMANDS,
    ApproveButton,
    RejectButton,
    decision_view,
)
from bot.features.registration.types import DECISION_VIEW
from cogs.common import (
    IdButton,
    LichessName,
    bot_of,
    embed,
    is_td,
    kick_outbox,
    single_button_view,
)
from cogs.td import add_td_commands

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


class VerifyButton(IdButton, template=r"acwc:reg:verify:(?P<id>\d+)"):
    """Reads the Lichess profile for the code of ownership challenge `ident`."""

    prefix, label = "acwc:reg:verify", "Verify"

    async def run(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        service = bot_of(interaction).svc.registration
        summary = await service.verify(discord_id=interaction.user.id, challenge_id=self.ident)
        await interaction.followup.send(
            wording.after_verify(summary),
            embed=embed(wording.registration_embed(summary)),
            ephemeral=True,
        )
        await kick_outbox(interaction)


class WithdrawButton(IdButton, template=r"acwc:reg:withdraw:(?P<id>\d+)"):
    """Confirms the withdrawal of the registration of Discord user `ident`."""

    prefix, label, style = "acwc:reg:withdraw", "Yes, withdraw", discord.ButtonStyle.danger

    async def run(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.ident:
            raise NotAllowed(wording.not_your_button())
        service = bot_of(interaction).svc.registration
        summary = await service.withdraw(discord_id=interaction.user.id)
        await interaction.response.edit_message(
            content=wording.withdrawn_reply(summary.lichess_username),
            view=None,
        )
        await kick_outbox(interaction)


class RegistrationCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot
        bot.add_dynamic_items(VerifyButton, WithdrawButton)

    @app_commands.command(name="register", description="Register for the championship")
    @app_commands.describe(lichess_username="Your Lichess username")
    @app_commands.guild_only()
    async def register(
        self, interaction: discord.Interaction, lichess_username: LichessName
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        step = await self.bot.svc.registration.start(
            discord_id=interaction.user.id,
            lichess_username=lichess_username,
            is_td=is_td(interaction),
        )
        view = single_button_view(VerifyButton(step.challenge_id))
        content = wording.ownership_instructions(step.code, step.lichess_username, step.expires_at)
        link = await self.bot.svc.registration.login_link(challenge_id=step.challenge_id)
        if link is not None:  # the web server runs: "Log in with Lichess" first (issue 33)
            url, until = link
            login: discord.ui.Button[discord.ui.View] = discord.ui.Button(
                label=login_wording.BUTTON_LABEL, url=url
            )
            view = discord.ui.View(timeout=None)
            view.add_item(login)
            view.add_item(VerifyButton(step.challenge_id))
            content = login_wording.register_with_login(
                step.code, step.lichess_username, step.expires_at, until
            )
        await interaction.followup.send(content, view=view, ephemeral=True)
        await kick_outbox(interaction)

    @app_commands.command(name="status", description="Show your registration")
    async def status(self, interaction: discord.Interaction) -> None:
        summary = await self.bot.svc.registration.status(discord_id=interaction.user.id)
        if summary is None:
            await interaction.response.send_message(wording.not_registered(), ephemeral=True)
            return
        await interaction.response.send_message(
            embed=embed(wording.registration_embed(summary)), ephemeral=True
        )

    @app_commands.command(name="withdraw", description="Withdraw your registration")
    @app_commands.guild_only()
    async def withdraw(self, interaction: discord.Interaction) -> None:
        summary = await self.bot.svc.registration.status(discord_id=interaction.user.id)
        if summary is None:  # a refusal like any other (the error handler answers it)
            raise WrongStage(wording.not_registered_nothing_to_withdraw())
        effect = await self.bot.svc.registration.withdrawal_effect(discord_id=interaction.user.id)
        await interaction.response.send_message(
            wording.withdraw_question(summary.lichess_username, effect),
            view=single_button_view(WithdrawButton(interaction.user.id)),
            ephemeral=True,
        )


async def setup(bot: ChampionshipBot) -> None:
    """The extension: player commands, the TD's /td registration group, persistent buttons."""
    bot.add_dynamic_items(ApproveButton, RejectButton)
    if bot.outbox is not None:
        bot.outbox.register_view(DECISION_VIEW, lambda a: decision_view(a["registration_id"]))
    add_td_commands(bot, "registration", "Registration controls", TD_COMMANDS)
    await bot.add_cog(RegistrationCog(bot))
