"""The TD's results commands: /td results void-game (take a game out of its match) and
/td armageddon rps (the rock-paper-scissors winner after equal Armageddon bids, also the
buttons of the TD's message)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.discord_limits import AUTOCOMPLETE_CHOICES, BUTTON_LABEL, CHOICE_NAME
from bot.errors import NotAllowed
from bot.features.results import text as wording
from bot.features.results.types import RpsChoice
from bot.message_text import fit
from cogs.common import (
    GameText,
    IdButton,
    LichessName,
    MatchId,
    Reason,
    bot_of,
    game_choices,
    is_td,
    kick_outbox,
    match_choices,
    player_choices,
)
from cogs.td import TDCommand


@app_commands.describe(game="Lichess game id or link", reason="Why (goes into the audit log)")
@app_commands.autocomplete(game=game_choices)
async def void_game(interaction: discord.Interaction, game: GameText, reason: Reason) -> None:
    result = await bot_of(interaction).svc.results.void_game(
        td_id=interaction.user.id, game_id=game, reason=reason
    )
    reply = wording.voided_reply(result.lichess_id, result.match, result.score_a, result.score_b)
    if result.reopened:
        reply += " The match is no longer over: the bot reads its games again."
    await interaction.response.send_message(reply, ephemeral=True)
    await kick_outbox(interaction)


def rps_reply(choice: RpsChoice) -> str:
    if choice.already:
        return wording.rps_already(choice.white)
    return wording.rps_recorded(choice.white)


async def rps_match_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[int]]:
    """The matches whose equal Armageddon bids wait for the rock-paper-scissors winner; with
    none waiting, the TD's usual list of matches (the command then says none waits)."""
    if not is_td(interaction):
        return []
    typed = str(current).strip().lower()
    choices = [
        app_commands.Choice(
            name=fit(wording.rps_match_choice(w.name, w.a, w.b), CHOICE_NAME),
            value=w.match_id,
        )
        for w in await bot_of(interaction).svc.bids.waiting_for_rps()
    ]
    if not choices:
        return await match_choices(interaction, current)
    return [c for c in choices if typed in c.name.lower()][:AUTOCOMPLETE_CHOICES]


@app_commands.describe(
    winner="Lichess username of the player who won rock-paper-scissors",
    match="The match with the equal bids (left out: the one the winner plays)",
)
@app_commands.autocomplete(winner=player_choices)
@app_commands.autocomplete(match=rps_match_choices)
async def rps(
    interaction: discord.Interaction, winner: LichessName, match: MatchId | None = None
) -> None:
    choice = await bot_of(interaction).svc.bids.record_rps_winner(
        td_id=interaction.user.id, player_name=winner, match_id=match
    )
    await interaction.response.send_message(rps_reply(choice), ephemeral=True)
    await kick_outbox(interaction)


class RpsButton(IdButton, template=r"acwc:armageddon-rps:(?P<id>\d+)"):
    """The TD records this finalist as the rock-paper-scissors winner: White (equal bids)."""

    prefix, label, style = "acwc:armageddon-rps", "Won", discord.ButtonStyle.primary

    def __init__(self, ident: int, name: str | None = None) -> None:
        super().__init__(ident)
        if name:
            self.item.label = fit(wording.rps_button_label(name), BUTTON_LABEL)

    async def run(self, interaction: discord.Interaction) -> None:
        if not is_td(interaction):
            raise NotAllowed(wording.td_only_rps())
        choice = await bot_of(interaction).svc.bids.record_rps_winner(
            td_id=interaction.user.id, player_id=self.ident
        )
        await interaction.response.send_message(rps_reply(choice), ephemeral=True)
        await kick_outbox(interaction)


def rps_view(args: dict[str, Any]) -> discord.ui.View:
    """One button per finalist (the outbox builds it from the stored players)."""
    view = discord.ui.View(timeout=None)
    for player_id, name in args.get("players", []):
        view.add_item(RpsButton(int(player_id), str(name)))
    return view


TD_COMMANDS = [
    TDCommand("void-game", "Void a recorded game of a match", void_game),
]
ARMAGEDDON_COMMANDS = [
    TDCommand("rps", "Record who won rock-paper-scissors after equal Armageddon bids", rps),
]
