"""/td setup: the server's channels and TD role picked in Discord, with channel and role select
menus, stored by bot.server_settings and shown back with where each value comes from.

The panel's menus have fixed custom ids and are registered as a persistent view, so a panel
opened before a restart still works. The TD, or anyone who may manage the server (so a new
server can be set up before any TD is configured), may use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.doctor.discord_checks import check_discord
from bot.errors import InvalidInput, NotAllowed
from bot.features.server import text as wording
from bot.server_settings import LABELS, Field, SettingValue
from cogs.common import FIXED_LIVE_IDS, bot_of, guarded, is_td
from cogs.td import TDCommand, add_td_root_command, manages_server

if TYPE_CHECKING:
    from bot.app import ChampionshipBot

PREFIX = "acwc:setup:"
ChannelType = discord.ChannelType
# Where each channel may be: the pairings go in a forum (a post per round) or a text channel
# (a message with a thread per round); announcements and TD notices in a text channel.
CHANNEL_TYPES: dict[Field, list[discord.ChannelType]] = {
    "announcement_channel_id": [ChannelType.text, ChannelType.news],
    "pairings_channel_id": [ChannelType.text, ChannelType.forum],
    "td_alert_channel_id": [ChannelType.text],
}


def _defaults(value: SettingValue) -> list[discord.Object]:
    if value.value is None:
        return []
    kind = discord.Role if value.field == "td_role_id" else discord.abc.GuildChannel
    return [discord.Object(id=value.value, type=kind)]


async def _pick(interaction: discord.Interaction, field: Field) -> None:
    """A menu of the panel was changed: store the pick (none = the config file's value)."""
    if not (is_td(interaction) or manages_server(interaction)):
        raise NotAllowed(wording.setup_not_allowed())
    data: dict[str, Any] = dict(interaction.data or {})
    picked = [int(v) for v in data.get("values") or []]
    value = picked[0] if picked else None
    if value is not None and field in CHANNEL_TYPES:
        resolved = (data.get("resolved") or {}).get("channels") or {}
        kind = (resolved.get(str(value)) or {}).get("type")
        allowed = {t.value for t in CHANNEL_TYPES[field]}
        if kind is not None and int(kind) not in allowed:
            raise InvalidInput(wording.NOT_A_TEXT_CHANNEL)
    bot = bot_of(interaction)
    await bot.server_settings_service.set(field, value, td_id=interaction.user.id)
    await interaction.response.defer()  # the checks ask Discord: answer within 3 s first
    await bot.server_settings_changed()  # in setup mode, the pick may end it: shown below
    text = await panel_text(bot)
    await interaction.edit_original_response(content=text, view=SetupView(bot))


class _ChannelPick(discord.ui.ChannelSelect[discord.ui.View]):
    def __init__(self, field: Field, value: SettingValue | None) -> None:
        super().__init__(
            custom_id=PREFIX + field,
            channel_types=CHANNEL_TYPES[field],
            placeholder=LABELS[field],
            min_values=0,
            max_values=1,
            default_values=_defaults(value) if value else [],
        )
        self.field = field

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, lambda: _pick(interaction, self.field))


class _RolePick(discord.ui.RoleSelect[discord.ui.View]):
    def __init__(self, value: SettingValue | None) -> None:
        super().__init__(
            custom_id=PREFIX + "td_role_id",
            placeholder=LABELS["td_role_id"],
            min_values=0,
            max_values=1,
            default_values=_defaults(value) if value else [],
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, lambda: _pick(interaction, "td_role_id"))


class SetupView(discord.ui.View):
    """The panel's four menus, showing the current values (none: the persistent template)."""

    def __init__(self, bot: ChampionshipBot | None = None) -> None:
        super().__init__(timeout=None)
        current = {}
        if bot is not None:
            current = {v.field: v for v in bot.server_settings_service.current()}
        for field in CHANNEL_TYPES:
            self.add_item(_ChannelPick(field, current.get(field)))
        self.add_item(_RolePick(current.get("td_role_id")))


async def panel_text(bot: ChampionshipBot) -> str:
    """The settings and what `acwc doctor` finds on Discord with them, as they stand now."""
    watch = bot.config.fair_play.flag_public_accusations
    try:
        found = await check_discord(bot, bot.config.discord, message_content=watch)
        checks = [wording.check_line(line) for line in found]
    except discord.HTTPException as error:
        checks = [wording.checks_failed(error)]
    waiting = [line.title for line in bot.setup_mode]
    return wording.setup_text(bot.server_settings_service.current(), checks, waiting=waiting)


async def setup_command(interaction: discord.Interaction) -> None:
    bot = bot_of(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    await interaction.followup.send(await panel_text(bot), view=SetupView(bot), ephemeral=True)


async def setup(bot: ChampionshipBot) -> None:
    """The extension: `/td setup` and its persistent panel."""
    add_td_root_command(
        bot,
        TDCommand(
            "setup",
            "Pick the bot's channels and the TD role; see what is set and where from",
            setup_command,
            for_server_managers=True,
        ),
    )
    template = SetupView()
    FIXED_LIVE_IDS.update(str(item.custom_id) for item in template.children)  # type: ignore[attr-defined]
    bot.add_view(template)
