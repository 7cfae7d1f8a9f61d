"""What stops `acwc run` before the bot is ready, said in one line the TD can act on.

A bot that cannot register its slash commands is useless: nobody can type a command. So the
commands are checked against Discord's documented limits before they are sent
(bot.command_limits), and a sync Discord refuses anyway stops the start with Discord's own
reason instead of a traceback.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.command_limits import tree_problems


class StartupRefused(Exception):
    """The bot cannot start as configured; the message is one line saying what and why."""


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


async def sync_commands(tree: app_commands.CommandTree[Any], guild_id: int | None) -> int:
    """Register the tree's slash commands with Discord (in the guild when one is configured,
    where they appear at once) and return how many; or raise StartupRefused naming the
    command and the limit."""
    guild = discord.Object(id=guild_id) if guild_id else None
    if guild is not None:
        tree.copy_global_to(guild=guild)
    payloads = [command.to_dict(tree) for command in tree.get_commands(guild=guild)]
    problems = tree_problems(payloads)
    if problems:
        raise StartupRefused(
            "Discord would refuse the slash commands, so the bot cannot start: "
            + "; ".join(problems)
        )
    try:
        synced = await tree.sync(guild=guild)
    except app_commands.CommandSyncFailure as failure:
        reason = _one_line(str(failure))
        raise StartupRefused(
            f"Discord refused the slash commands, so the bot cannot start: {reason}"
        ) from None
    except discord.Forbidden as refused:
        raise StartupRefused(
            "Discord refused to register the slash commands "
            f"(HTTP 403, code {refused.code}: {refused.text}): invite the bot to the server "
            "with the `applications.commands` scope, and check `discord.guild_id`."
        ) from None
    return len(synced)
