"""The /td command group: one root, one subgroup per feature (`/td round ...`, `/td incident ...`).

Features declare their TD commands as plain functions (`TDCommand`) and attach them with
`add_td_commands` from their extension's `setup`. Every command under /td is TD-only: each
group checks the caller, because discord.py runs only the nearest group's check.

Each command has exactly one name: no flat aliases. Discord counts a command's names,
descriptions and choices against 4,000 characters (tests/cogs/test_command_limits.py keeps
every command under 90% of that), and one name per command keeps the TD's menu short.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from cogs.common import is_td
from cogs.errors import NotTD

if TYPE_CHECKING:
    from bot.app import ChampionshipBot

Callback = Callable[..., Coroutine[Any, Any, None]]


# A command with this in its `extras` also lets in a member who may manage the server:
# `/td setup`, so a new server can be set up before any TD is configured.
FOR_SERVER_MANAGERS = "for_server_managers"


def manages_server(interaction: discord.Interaction) -> bool:
    user = interaction.user
    return isinstance(user, discord.Member) and user.guild_permissions.manage_guild


class TDGroup(app_commands.Group):
    """A /td group or subgroup: refuses everyone but the TD before any command runs."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        if is_td(interaction):
            return True
        command = interaction.command
        if command is not None and command.extras.get(FOR_SERVER_MANAGERS):
            if manages_server(interaction):
                return True
        raise NotTD("TD only")


@dataclass(frozen=True)
class TDCommand:
    """One TD command: its name in its feature's subgroup (or under /td itself)."""

    name: str
    description: str
    callback: Callback
    for_server_managers: bool = False  # also for members who may manage the server


def td_root(bot: ChampionshipBot) -> TDGroup:
    """The bot's /td group, created and added to the command tree on first use."""
    existing = bot.tree.get_command("td")
    if isinstance(existing, TDGroup):
        return existing
    root = TDGroup(
        name="td",
        description="Tournament director commands",
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )
    bot.tree.add_command(root)
    return root


def _subgroup(parent: app_commands.Group, name: str, description: str) -> app_commands.Group:
    for command in parent.commands:
        if command.name == name and isinstance(command, app_commands.Group):
            return command
    group = TDGroup(name=name, description=description)
    parent.add_command(group)
    return group


def _command(item: TDCommand) -> app_commands.Command[Any, ..., None]:
    return app_commands.Command(
        name=item.name,
        description=item.description,
        callback=item.callback,
        extras={FOR_SERVER_MANAGERS: item.for_server_managers},
    )


def add_td_root_command(bot: ChampionshipBot, item: TDCommand) -> None:
    """Attach a command directly under /td (`/td setup`)."""
    td_root(bot).add_command(_command(item))


def add_td_commands(
    bot: ChampionshipBot, group: str, description: str, commands: list[TDCommand]
) -> None:
    """Attach a feature's commands as `/td <group> <name>`."""
    sub = _subgroup(td_root(bot), group, description)
    for item in commands:
        sub.add_command(_command(item))


def remove_td_group(bot: ChampionshipBot) -> None:
    bot.tree.remove_command("td")
