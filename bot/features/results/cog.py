"""Player command for match results: /game url: submits a game the results poll missed;
the Armageddon's bid button and form; the TD's /td results and /td armageddon groups."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.features.results import text as wording
from bot.features.results.stage_rules import BID_VIEW, RPS_VIEW
from bot.features.results.td_cog import ARMAGEDDON_COMMANDS, TD_COMMANDS, RpsButton, rps_view
from cogs.common import (
    FormModal,
    GameLink,
    IdButton,
    bot_of,
    guarded,
    kick_outbox,
    single_button_view,
)
from cogs.td import add_td_commands

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


class BidModal(FormModal):
    """The private Armageddon bid (rule III.G.6): nobody else sees it before the reveal."""

    bid: discord.ui.TextInput[BidModal]

    def __init__(self, match_id: int) -> None:
        super().__init__(title="Your bid for White (private)", prefix=f"acwc:bid:{match_id}")
        self.match_id = match_id
        self.bid = discord.ui.TextInput(
            label="Time you would play White with (m:ss)",
            placeholder="2:15",
            custom_id="bid",
            max_length=8,
            required=True,
        )
        self.add_item(self.bid)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        async def run() -> None:
            receipt = await bot_of(interaction).svc.bids.submit_bid(
                discord_id=interaction.user.id, match_id=self.match_id, text=self.bid.value
            )
            await interaction.response.send_message(
                wording.bid_taken(receipt.seconds, receipt.revealed), ephemeral=True
            )
            await kick_outbox(interaction)

        await guarded(interaction, run)


class BidButton(IdButton, template=r"acwc:armageddon:(?P<id>\d+)"):
    """Opens the bid form for the Final match `ident`."""

    prefix, label, style = "acwc:armageddon", "Bid for White", discord.ButtonStyle.primary

    async def run(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(BidModal(self.ident))


def bid_view(args: dict[str, Any]) -> discord.ui.View:
    return single_button_view(BidButton(int(args["match_id"])))


class ResultsCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot

    @app_commands.command(name="game", description="Submit a game of your match the bot missed")
    @app_commands.describe(url="The Lichess game link, e.g. https://lichess.org/abcdEFGH")
    async def game(self, interaction: discord.Interaction, url: GameLink) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        result = await self.bot.svc.results.submit_game(discord_id=interaction.user.id, url=url)
        if result.already:
            reply = wording.already_recorded_reply(result.lichess_id, result.number)
        elif not result.counted:
            reply = wording.after_end_reply(result.lichess_id)
        else:
            reply = wording.submitted_reply(
                result.lichess_id, result.number, result.score_a, result.score_b
            )
        await interaction.followup.send(reply, ephemeral=True)
        await kick_outbox(interaction)


__all__ = ["BidButton", "BidModal", "ResultsCog"]


async def setup(bot: ChampionshipBot) -> None:
    """The extension: the player commands and the TD's /td results group."""
    bot.add_dynamic_items(BidButton, RpsButton)
    if bot.outbox is not None:
        bot.outbox.register_view(BID_VIEW, bid_view)
        bot.outbox.register_view(RPS_VIEW, rps_view)
    add_td_commands(bot, "results", "Games and results", TD_COMMANDS)
    add_td_commands(bot, "armageddon", "The Final's Armageddon", ARMAGEDDON_COMMANDS)
    await bot.add_cog(ResultsCog(bot))
