"""The /td command group: one root, one subgroup per feature (`/td round ...`, `/td incident ...`).

Features declare their TD commands as plain functions (`TDCommand`) and attach them with
`add_td_commands` from their extension's `setup`. Every command under /td is TD-only: each
group checks the caller, because discord.py runs only the nearest group's check.

The flat names of earlier versions (`/td set-score`, `/td fault`, `/td swiss start`...) stay
as aliases of the grouped commands, so a TD's habits and notes keep working.
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


class TDGroup(app_commands.Group):
    """A /td group or subgroup: refuses everyone but the TD before any command runs."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        if not is_td(interaction):
            raise NotTD("TD only")
        return True


@dataclass(frozen=True)
class TDCommand:
    """One TD command: its name in its feature's subgroup, and its old flat name if any."""

    name: str
    description: str
    callback: Callback
    alias: str | None = None  # "set-score" or "swiss start": the path under /td before


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


def _command(item: TDCommand, name: str) -> app_commands.Command[Any, ..., None]:
    return app_commands.Command(name=name, description=item.description, callback=item.callback)


def add_td_commands(
    bot: ChampionshipBot, group: str, description: str, commands: list[TDCommand]
) -> None:
    """Attach a feature's commands as `/td <group> <name>`, plus their old flat aliases."""
    root = td_root(bot)
    sub = _subgroup(root, group, description)
    for item in commands:
        sub.add_command(_command(item, item.name))
        if item.alias is None:
            continue
        *path, leaf = item.alias.split()
        parent: app_commands.Group = root
        for part in path:
            parent = _subgroup(parent, part, f"{part} (also under /td {group})")
        parent.add_command(_command(item, leaf))


def remove_td_group(bot: ChampionshipBot) -> None:
    bot.tree.remove_command("td")
