"""The Discord side of the rounds: the TD's /td round group and its buttons (the standings
for everyone are `bot.features.tables`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.features.rounds.records import TIE_VIEW
from bot.features.rounds.td_cog import (
    TD_COMMANDS,
    CancelSwissButton,
    CloseAndContinueButton,
    DropPendingButton,
    PublishSwissButton,
    TieButton,
    tie_view,
)
from cogs.td import add_td_commands

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


async def setup(bot: ChampionshipBot) -> None:
    """The extension: the TD's /td round group, its preview buttons and the tie buttons."""
    bot.add_dynamic_items(
        PublishSwissButton, CancelSwissButton, CloseAndContinueButton, DropPendingButton, TieButton
    )
    if bot.outbox is not None:
        bot.outbox.register_view(TIE_VIEW, tie_view)
    add_td_commands(bot, "round", "Run the rounds: start, publish, scores", TD_COMMANDS)
