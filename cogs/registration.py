"""Player commands for registration: /register, the Verify button, /status, /withdraw."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.services import registration_text as text
from cogs.common import bot_of, embed, guarded, is_td, kick_outbox

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


class VerifyButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"acwc:reg:verify:(?P<id>\d+)",
):
    """Persistent: still works after a restart, because the id is in the custom_id."""

    def __init__(self, challenge_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Verify",
                style=discord.ButtonStyle.primary,
                custom_id=f"acwc:reg:verify:{challenge_id}",
            )
        )
        self.challenge_id = challenge_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
        /,
    ) -> VerifyButton:
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def run() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            service = bot_of(interaction).svc.registration
            summary = await service.verify(
                discord_id=interaction.user.id, challenge_id=self.challenge_id
            )
            await interaction.followup.send(
                text.after_verify(summary),
                embed=embed(text.registration_embed(summary)),
                ephemeral=True,
            )
            await kick_outbox(interaction)

        await guarded(interaction, run)


class WithdrawButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"acwc:reg:withdraw:(?P<user>\d+)",
):
    def __init__(self, user_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Yes, withdraw",
                style=discord.ButtonStyle.danger,
                custom_id=f"acwc:reg:withdraw:{user_id}",
            )
        )
        self.user_id = user_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
        /,
    ) -> WithdrawButton:
        return cls(int(match["user"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def run() -> None:
            if interaction.user.id != self.user_id:
                await interaction.response.send_message(
                    "This button belongs to another player.", ephemeral=True
                )
                return
            service = bot_of(interaction).svc.registration
            summary = await service.withdraw(discord_id=interaction.user.id)
            await interaction.response.edit_message(
                content=f"Your registration as **{summary.lichess_username}** is withdrawn.",
                view=None,
            )
            await kick_outbox(interaction)

        await guarded(interaction, run)


class RegistrationCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot
        bot.add_dynamic_items(VerifyButton, WithdrawButton)

    @app_commands.command(name="register", description="Register for the championship")
    @app_commands.describe(lichess_username="Your Lichess username")
    @app_commands.guild_only()
    async def register(self, interaction: discord.Interaction, lichess_username: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        step = await self.bot.svc.registration.start(
            discord_id=interaction.user.id,
            lichess_username=lichess_username,
            is_td=is_td(interaction),
        )
        view = discord.ui.View(timeout=None)
        view.add_item(VerifyButton(step.challenge_id))
        await interaction.followup.send(
            text.ownership_instructions(step.code, step.lichess_username, step.expires_at),
            view=view,
            ephemeral=True,
        )
        await kick_outbox(interaction)

    @app_commands.command(name="status", description="Show your registration")
    async def status(self, interaction: discord.Interaction) -> None:
        summary = await self.bot.svc.registration.status(discord_id=interaction.user.id)
        if summary is None:
            await interaction.response.send_message(
                "You have not registered. Use /register with your Lichess username.",
                ephemeral=True,
            )
            return
        await interaction.response.send_message(
            embed=embed(text.registration_embed(summary)), ephemeral=True
        )

    @app_commands.command(name="withdraw", description="Withdraw your registration")
    @app_commands.guild_only()
    async def withdraw(self, interaction: discord.Interaction) -> None:
        summary = await self.bot.svc.registration.status(discord_id=interaction.user.id)
        if summary is None:
            await interaction.response.send_message(
                "You have not registered, so there is nothing to withdraw.", ephemeral=True
            )
            return
        view = discord.ui.View(timeout=None)
        view.add_item(WithdrawButton(interaction.user.id))
        await interaction.response.send_message(
            f"Withdraw your registration as **{summary.lichess_username}**? "
            "You can register again while registration is open.",
            view=view,
            ephemeral=True,
        )
