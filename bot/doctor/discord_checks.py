"""The checks against Discord: the bot is in the configured server, each configured channel
exists, has the right type and lets the bot do what it does there, the TDs exist, and the
privileged intent the config needs is enabled.

Each takes a logged-in `discord.Client` (only its REST side is used: this runs before the
gateway connects) and the effective `DiscordConfig`, and returns plain `CheckLine`s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import discord
from discord.http import Route

from bot.config import DiscordConfig
from bot.doctor.lines import CheckLine, failed, passed
from bot.doctor.permissions import ChannelUse, invite_url, missing, needs_in

# GET /applications/@me `flags`: the Message Content intent is enabled in the Developer
# Portal (the second bit is what a bot in fewer than 100 servers gets).
GATEWAY_MESSAGE_CONTENT = 1 << 18
GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19
PORTAL = "the Developer Portal (https://discord.com/developers/applications)"

_TYPE_NAMES = {
    discord.ChannelType.text: "text",
    discord.ChannelType.news: "announcement",
    discord.ChannelType.forum: "forum",
    discord.ChannelType.voice: "voice",
    discord.ChannelType.category: "category",
    discord.ChannelType.stage_voice: "stage",
    discord.ChannelType.media: "media",
}
# The channel types each use accepts (ids 0, 5 and 15 in Discord's API).
_TYPES: dict[ChannelUse, tuple[discord.ChannelType, ...]] = {
    ChannelUse.PAIRINGS: (discord.ChannelType.forum, discord.ChannelType.text),
    ChannelUse.ANNOUNCEMENTS: (discord.ChannelType.text, discord.ChannelType.news),
    ChannelUse.TD_ALERTS: (discord.ChannelType.text, discord.ChannelType.news),
}
_SETTING = {
    ChannelUse.PAIRINGS: "discord.pairings_channel_id",
    ChannelUse.ANNOUNCEMENTS: "discord.announcement_channel_id",
    ChannelUse.TD_ALERTS: "discord.td_alert_channel_id",
}
_TITLE = {
    ChannelUse.PAIRINGS: "Pairings channel",
    ChannelUse.ANNOUNCEMENTS: "Announcement channel",
    ChannelUse.TD_ALERTS: "TD alert channel",
}
_UNSET_COST = {
    ChannelUse.PAIRINGS: "rounds are published without any pairings post, thread or ping",
    ChannelUse.ANNOUNCEMENTS: "rounds, results and standings are not announced",
    ChannelUse.TD_ALERTS: "a TD message whose DM fails, or with no TD user set, is lost",
}
COPY_ID = "(Discord: Settings → Advanced → Developer Mode on, then right-click → Copy ID)"


@dataclass(frozen=True)
class GuildView:
    """The server as the bot sees it over REST, fetched once for all the checks."""

    guild: discord.Guild
    me: discord.Member
    channels: Mapping[int, discord.abc.GuildChannel]


def type_name(channel: discord.abc.GuildChannel) -> str:
    return _TYPE_NAMES.get(channel.type, str(channel.type))


async def check_guild(
    client: discord.Client, cfg: DiscordConfig
) -> tuple[CheckLine, GuildView | None]:
    """The bot is in the configured server: without that nothing else can work."""
    title = "Discord server"
    assert client.user is not None, "log in first"
    invite = invite_url(client.user.id)
    if cfg.guild_id is None:
        fix = f"set discord.guild_id to your server's id {COPY_ID}; invite the bot: {invite}"
        return failed(title, "no server (discord.guild_id) is configured.", fix, fatal=True), None
    try:
        guild = await client.fetch_guild(cfg.guild_id)
        me = await guild.fetch_member(client.user.id)
        channels = {channel.id: channel for channel in await guild.fetch_channels()}
    except discord.NotFound:
        detail = f"server {cfg.guild_id} does not exist or the bot is not in it."
        fix = f"check discord.guild_id {COPY_ID}, and invite the bot: {invite}"
        return failed(title, detail, fix, fatal=True), None
    except discord.Forbidden:
        detail = f"the bot is not in server {cfg.guild_id}."
        return failed(title, detail, f"invite it: {invite}", fatal=True), None
    line = passed(title, f"the bot is in {guild.name} ({guild.id}).")
    return line, GuildView(guild, me, channels)


def check_channel(view: GuildView, cfg: DiscordConfig, use: ChannelUse) -> CheckLine:
    """The channel exists, has a type the bot can use that way, and the bot's permissions
    there (its roles and the channel's overwrites) cover everything it does in it."""
    setting = _SETTING[use]
    title = _TITLE[use]
    # Without a pairings channel no round can be published: the bot waits in setup mode
    # for `/td setup` to pick one (bot.doctor.at_start); the others only cost what they say.
    setup = use is ChannelUse.PAIRINGS
    channel_id = getattr(cfg, setting.removeprefix("discord."))
    if channel_id is None:
        fix = f"pick it with `/td setup`, or set {setting} to the channel's id {COPY_ID}."
        return failed(title, f"not configured: {_UNSET_COST[use]}.", fix, setup=setup)
    channel = view.channels.get(channel_id)
    if channel is None:
        detail = f"there is no channel {channel_id} in {view.guild.name}."
        fix = f"create it, then pick it with `/td setup` or set {setting} to its id {COPY_ID}."
        return failed(title, detail, fix, setup=setup)
    kinds = _TYPES[use]
    wanted = " or ".join(_TYPE_NAMES[kind] for kind in kinds)
    if channel.type not in kinds:
        detail = f"#{channel.name} ({channel_id}) is a {type_name(channel)} channel."
        fix = f"use a {wanted} channel for {setting}."
        return failed(title, detail, fix, setup=setup)
    forum = isinstance(channel, discord.ForumChannel)
    # Discord refuses a post without a tag (40067) in a forum that requires one
    if isinstance(channel, discord.ForumChannel) and channel.flags.require_tag:
        detail = f"#{channel.name} ({channel_id}) requires a tag on every post; the bot posts none."
        fix = "turn off Edit Channel → Tags → 'Require people to select tags when posting'."
        return failed(title, detail, fix, setup=setup)
    needs = needs_in(use, forum=forum)
    lacking = missing(channel.permissions_for(view.me), needs)
    where = f"#{channel.name} ({type_name(channel)} channel, {channel_id})"
    if lacking:
        detail = f"in {where} the bot lacks " + "; ".join(f"{n.name} ({n.why})" for n in lacking)
        detail += "."
        # Server Settings → Roles cannot help: a channel's own deny (a private channel
        # denies View Channel to @everyone) wins over the role's server-wide permissions,
        # and only an overwrite for the bot's member or role in the channel lifts it.
        fix = (
            f"in #{channel.name} → Edit Channel → Permissions → Add members or roles, add "
            f"the bot ({view.me.name}) or its role and allow them there; the server-wide "
            "role settings cannot override a channel's deny."
        )
        return failed(title, detail, fix, setup=setup)
    return passed(title, f"{where}: the bot can " + ", ".join(n.name for n in needs) + ".")


async def check_tds(view: GuildView, cfg: DiscordConfig) -> list[CheckLine]:
    """At least one TD is configured, each TD user is in the server, the TD role exists."""
    if not cfg.td_user_ids and cfg.td_role_id is None:
        detail = "no TD is configured: nobody can use /td and TD messages go nowhere."
        fix = f"set discord.td_user_ids (and/or discord.td_role_id) {COPY_ID}."
        return [failed("TDs", detail, fix)]
    lines: list[CheckLine] = []
    if cfg.td_user_ids:
        found, absent = [], []
        for user_id in cfg.td_user_ids:
            try:
                member = await view.guild.fetch_member(user_id)
            except discord.NotFound:
                absent.append(str(user_id))
            else:
                found.append(f"{member.name} ({user_id})")
        if absent:
            detail = f"not members of {view.guild.name}: {', '.join(absent)}."
            fix = f"correct discord.td_user_ids {COPY_ID}, or have them join the server."
            lines.append(failed("TD users", detail, fix))
        else:
            lines.append(passed("TD users", ", ".join(found) + "."))
    if cfg.td_role_id is not None:
        role = view.guild.get_role(cfg.td_role_id)
        if role is None:
            detail = f"there is no role {cfg.td_role_id} in {view.guild.name}."
            fix = f"pick the role with `/td setup`, or correct discord.td_role_id {COPY_ID}."
            lines.append(failed("TD role", detail, fix))
        else:
            lines.append(passed("TD role", f"@{role.name} ({role.id})."))
    return lines


async def check_intent(client: discord.Client, *, needed: bool) -> CheckLine:
    """The rule VII.A watch reads messages: Discord then needs the privileged Message Content
    intent switched on for the application, or it closes the bot's connection at start."""
    title = "Message Content intent"
    if not needed:
        return passed(title, "not needed (fair_play.flag_public_accusations is off).")
    application = await client.http.request(Route("GET", "/applications/@me"))
    flags = int(application.get("flags") or 0)
    if flags & (GATEWAY_MESSAGE_CONTENT | GATEWAY_MESSAGE_CONTENT_LIMITED):
        return passed(title, "enabled, as fair_play.flag_public_accusations needs.")
    detail = "off, but fair_play.flag_public_accusations needs it: Discord refuses the start."
    fix = f"turn on Message Content Intent in {PORTAL} → your app → Bot."
    return failed(title, detail, fix, fatal=True)


async def check_discord(
    client: discord.Client, cfg: DiscordConfig, *, message_content: bool
) -> list[CheckLine]:
    """Every Discord line for a logged-in client, in the order a TD fixes them."""
    guild_line, view = await check_guild(client, cfg)
    lines = [guild_line]
    if view is not None:
        lines += [check_channel(view, cfg, use) for use in ChannelUse]
        lines += await check_tds(view, cfg)
    lines.append(await check_intent(client, needed=message_content))
    return lines
