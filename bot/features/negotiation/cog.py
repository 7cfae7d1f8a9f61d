"""Player commands for the match time (rule V): /offer, /accept, /match, /reschedule, /choose,
/timezone and /notify (the reminder DMs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.features.negotiation import text as wording
from bot.features.negotiation.agreement import OFFER_ACCEPT_VIEW
from bot.features.negotiation.td_cog import TD_COMMANDS
from cogs.common import (
    IdButton,
    OfferId,
    TimesText,
    TimeText,
    ZoneText,
    bot_of,
    kick_outbox,
    reply_in_parts,
    single_button_view,
)
from cogs.td import add_td_commands

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


class AcceptOfferButton(IdButton, template=r"acwc:offer:accept:(?P<id>\d+)"):
    """Accepts time offer `ident`; only the offerer's opponent may press it."""

    prefix, label, style = "acwc:offer:accept", "Accept", discord.ButtonStyle.success

    async def run(self, interaction: discord.Interaction) -> None:
        service = bot_of(interaction).svc.agreements
        agreement = await service.accept(discord_id=interaction.user.id, offer_id=self.ident)
        await interaction.response.send_message(
            wording.agreed_reply(agreement.time, agreement.previous), ephemeral=True
        )
        await kick_outbox(interaction)


def offer_accept_view(args: dict[str, Any]) -> discord.ui.View:
    return single_button_view(AcceptOfferButton(int(args["offer_id"])))


class NegotiationCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot
        bot.add_dynamic_items(AcceptOfferButton)
        if bot.outbox is not None:
            bot.outbox.register_view(OFFER_ACCEPT_VIEW, offer_accept_view)

    @app_commands.command(name="offer", description="Offer one or more times for your match")
    @app_commands.describe(
        times="Comma-separated: `2019-10-02 18:00`, `wed 18:00`, `thu 20:00 Europe/Berlin`"
    )
    @app_commands.guild_only()
    async def offer(self, interaction: discord.Interaction, times: TimesText) -> None:
        result = await self.bot.svc.offers.offer(discord_id=interaction.user.id, text=times)
        await interaction.response.send_message(
            wording.offers_made(
                result.offers, result.opponent, result.still_owed, result.offers_due, result.read_in
            ),
            ephemeral=True,
        )
        await kick_outbox(interaction)

    @app_commands.command(name="accept", description="Accept your opponent's offered time")
    @app_commands.describe(
        offer="Your opponent's offer by its number: 2 = their 2nd offer (see /match)"
    )
    @app_commands.guild_only()
    async def accept(self, interaction: discord.Interaction, offer: OfferId | None = None) -> None:
        agreement = await self.bot.svc.agreements.accept(
            discord_id=interaction.user.id, number=offer
        )
        await interaction.response.send_message(
            wording.agreed_reply(agreement.time, agreement.previous), ephemeral=True
        )
        await kick_outbox(interaction)

    @app_commands.command(name="match", description="Show your match: offers, deadlines, time")
    async def match(self, interaction: discord.Interaction) -> None:
        view = await self.bot.svc.offers.match_view(discord_id=interaction.user.id)
        await reply_in_parts(interaction, wording.match_view(view))

    @app_commands.command(name="reschedule", description="Propose a new time for an agreed match")
    @app_commands.describe(time="One UTC time, e.g. `2019-10-03 19:00` or `thu 19:00`")
    @app_commands.guild_only()
    async def reschedule(self, interaction: discord.Interaction, time: TimeText) -> None:
        result = await self.bot.svc.offers.reschedule(discord_id=interaction.user.id, text=time)
        await interaction.response.send_message(
            wording.reschedule_made(result.offer.time, result.current, result.opponent),
            ephemeral=True,
        )
        await kick_outbox(interaction)

    @app_commands.command(name="choose", description="Choose the match time (rules V.E, V.I)")
    @app_commands.describe(time="One UTC time, e.g. `2019-10-05 18:00` or `sat 18:00`")
    @app_commands.guild_only()
    async def choose(self, interaction: discord.Interaction, time: TimeText) -> None:
        agreement = await self.bot.svc.offers.choose(discord_id=interaction.user.id, text=time)
        await interaction.response.send_message(
            wording.agreed_reply(agreement.time, agreement.previous), ephemeral=True
        )
        await kick_outbox(interaction)

    @app_commands.command(name="timezone", description="The zone /offer reads your times in")
    @app_commands.describe(zone="A zone name such as `Europe/Berlin`, or `UTC` to go back to UTC")
    async def timezone(self, interaction: discord.Interaction, zone: ZoneText) -> None:
        setting = await self.bot.svc.zones.set_time_zone(discord_id=interaction.user.id, zone=zone)
        await interaction.response.send_message(
            wording.zone_set_reply(setting.zone, setting.previous, setting.example_utc),
            ephemeral=True,
        )

    @app_commands.command(name="notify", description="Turn your match reminders on or off")
    @app_commands.describe(
        reminders="off: no reminders before matches or about unanswered offers (never decisions)"
    )
    async def notify(
        self, interaction: discord.Interaction, reminders: Literal["on", "off"]
    ) -> None:
        setting = await self.bot.svc.notifications.set_reminders(
            discord_id=interaction.user.id, on=reminders == "on"
        )
        await interaction.response.send_message(
            wording.reminders_reply(setting.on, setting.changed), ephemeral=True
        )

    @timezone.autocomplete("zone")
    async def timezone_names(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        names = self.bot.svc.zones.zone_suggestions(current)
        return [app_commands.Choice(name=n, value=n) for n in names]


async def setup(bot: ChampionshipBot) -> None:
    """The extension: the player commands and the TD's /td negotiation group."""
    add_td_commands(bot, "negotiation", "Match times", TD_COMMANDS)
    await bot.add_cog(NegotiationCog(bot))
