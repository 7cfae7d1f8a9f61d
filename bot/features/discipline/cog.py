"""Discipline in Discord: the TD's /td discipline group. Forfeits themselves are automatic."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.features.discipline.td_cog import TD_COMMANDS
from cogs.td import add_td_commands

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


async def setup(bot: ChampionshipBot) -> None:
    """The extension: disqualify and reinstate (rules VI.F, VIII)."""
    add_td_commands(bot, "discipline", "Disqualify or reinstate players", TD_COMMANDS)
