"""Setup mode: the bot runs before its pairings channel is set, and only `/td setup` and
`/help` answer, so a new TD can pick the channel from Discord with the bot running (the start
used to refuse with "pick it with /td setup", which needs the bot running)."""

from __future__ import annotations

from typing import Any

import discord

from cogs import text as wording
from cogs.errors import mark_refused

# What answers in setup mode: the setup panel (and the doctor's checks it shows) and the help.
SETUP_MODE_COMMANDS = frozenset({"td setup", "help"})


def command_path(data: Any) -> str:
    """The full name of the slash command an interaction calls ("td round start"), read from
    Discord's payload: the tree's check runs before discord.py resolves the command."""
    parts = [str(data.get("name", ""))]
    options = data.get("options") or []
    while options and options[0].get("type") in (1, 2):  # a subcommand or a group of them
        parts.append(str(options[0].get("name", "")))
        options = options[0].get("options") or []
    return " ".join(parts)


async def refused_in_setup_mode(interaction: discord.Interaction) -> bool:
    """In setup mode: answer any other command with what the bot waits for; True if so."""
    data: Any = interaction.data or {}
    if command_path(data) in SETUP_MODE_COMMANDS:
        return False
    if interaction.type is discord.InteractionType.autocomplete:
        return True  # no choices: the command itself is refused when sent
    text = wording.SETUP_MODE
    mark_refused(interaction, text)
    await interaction.response.send_message(text, ephemeral=True)
    return True
