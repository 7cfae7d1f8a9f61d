"""The recorded Discord's answers about the bot's own setup, shaped as Discord's API reference
shows them: who the token belongs to (GET /users/@me), the application and its flags
(GET /applications/@me), the server with its roles, channels and members (GET /guilds/{id},
/channels, /roles, /members/{user_id}). `acwc doctor` and the checks at start read these.

The knobs live on the harness (`valid_token`, `application_flags`, `bot_in_guild`,
`set_bot_permissions`, `set_overwrite`, `add_channel`); the world is the harness's guild
cache, so what a test builds there is what these endpoints answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

if TYPE_CHECKING:
    from acwc_sim.harness import DiscordHarness, RecordedRequest

NOT_MINE = object()  # the request is not about the setup: the harness answers it
BOT_ROLE_NAME = "acwc-bot"  # the role Discord makes for a bot invited with permissions
_THREAD_TYPES = (10, 11, 12)


class SetupRefusal(Exception):
    """Discord's answer is an error: (status, code, message)."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def role_payload(h: DiscordHarness, role: discord.Role) -> dict[str, Any]:
    data = h._role_payload(role.id, role.name, role.permissions.value, position=role.position)
    if role.name == BOT_ROLE_NAME and role.is_bot_managed():
        data.update(managed=True, tags={"bot_id": str(h.bot_user_id)})
    return data


def bot_role(h: DiscordHarness) -> discord.Role | None:
    guild = h._require_guild()
    return next((r for r in guild.roles if r.name == BOT_ROLE_NAME and r.managed), None)


def set_bot_permissions(h: DiscordHarness, permissions: int) -> discord.Role:
    """The bot's own role (as an invite with a permission integer makes it) gets exactly
    `permissions`; the bot member holds it."""
    guild = h._require_guild()
    role = bot_role(h)
    if role is None:
        role = h.add_role(h.bot_user_id + 1, BOT_ROLE_NAME, permissions=permissions)
    data = h._role_payload(role.id, BOT_ROLE_NAME, permissions, position=role.position)
    role._update({**data, "managed": True, "tags": {"bot_id": str(h.bot_user_id)}})  # type: ignore[typeddict-item]
    me = guild.get_member(h.bot_user_id)
    if me is not None and not me._roles.has(role.id):
        me._roles.add(role.id)
    return role


def set_overwrite(
    h: DiscordHarness, channel_id: int, target_id: int, *, allow: int, deny: int, member: bool
) -> None:
    """A permission overwrite on a channel, for a role (or a member), replacing any earlier."""
    data = h._channel_payloads[channel_id]
    kept = [o for o in data["permission_overwrites"] if o["id"] != str(target_id)]
    kept.append(
        {"id": str(target_id), "type": 1 if member else 0, "allow": str(allow), "deny": str(deny)}
    )
    data["permission_overwrites"] = kept
    guild = h._require_guild()
    channel = guild.get_channel(channel_id)
    if channel is not None:
        channel._update(guild, data)  # type: ignore[arg-type]


def add_channel(h: DiscordHarness, channel_id: int, name: str, type_: int) -> None:
    """A guild channel of any type: text 0, voice 2, category 4, announcement 5, forum 15."""
    if type_ == 15:
        h.add_forum_channel(channel_id, name)
        return
    guild = h._require_guild()
    data = h._channel_base(channel_id, name, type_)
    if type_ in (2, 13):
        data.update(bitrate=64000, user_limit=0, rtc_region=None)
    cls, _ = discord.channel._guild_channel_factory(type_)
    if cls is None:
        raise ValueError(f"no guild channel of type {type_}")
    channel = cls(state=h.bot._connection, guild=guild, data=data)
    guild._add_channel(channel)
    h._channel_payloads[channel_id] = data
    h.channels[name] = channel_id


def _me(h: DiscordHarness) -> dict[str, Any]:
    user = h._users[h.bot_user_id]
    return {**user, "bot": True, "verified": True, "mfa_enabled": False, "flags": 0}


def _application(h: DiscordHarness) -> dict[str, Any]:
    return {
        "id": str(h.application_id),
        "name": h._users[h.bot_user_id]["username"],
        "icon": None,
        "description": "",
        "bot_public": True,
        "bot_require_code_grant": False,
        "verify_key": "0" * 64,
        "team": None,
        "flags": h.application_flags,
        "bot": h._users[h.bot_user_id],
    }


def _guild(h: DiscordHarness, guild: discord.Guild) -> dict[str, Any]:
    return {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "owner_id": str(guild.owner_id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [role_payload(h, role) for role in guild.roles],
        "emojis": [],
        "features": [],
        "mfa_level": 0,
        "application_id": None,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "vanity_url_code": None,
        "description": None,
        "banner": None,
        "premium_tier": 0,
        "preferred_locale": "en-US",
        "public_updates_channel_id": None,
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "stickers": [],
        "approximate_member_count": len(guild.members),
        "approximate_presence_count": 0,
    }


def answer(h: DiscordHarness, req: RecordedRequest) -> Any:
    """Discord's answer to a setup request, or NOT_MINE; raises SetupRefusal for an error."""
    if req.method != "GET":
        return NOT_MINE
    if req.path == "/users/@me":
        if h.valid_token is not None and h.bot.http.token != h.valid_token:
            raise SetupRefusal(401, 0, "401: Unauthorized")
        return _me(h)
    if req.path == "/applications/@me":
        return _application(h)
    if not req.path.startswith("/guilds/{guild_id}"):
        return NOT_MINE
    guild = h._require_guild()
    if int(req.params["guild_id"]) != guild.id:
        raise SetupRefusal(404, 10004, "Unknown Guild")
    if not h.bot_in_guild:
        raise SetupRefusal(403, 50001, "Missing Access")
    if req.path == "/guilds/{guild_id}":
        return _guild(h, guild)
    if req.path == "/guilds/{guild_id}/roles":
        return [role_payload(h, role) for role in guild.roles]
    if req.path == "/guilds/{guild_id}/channels":
        return [
            data
            for data in h._channel_payloads.values()
            if data.get("type") not in _THREAD_TYPES and data.get("guild_id") == str(guild.id)
        ]
    if req.path == "/guilds/{guild_id}/members/{member_id}":
        user_id = int(req.params["member_id"])
        if guild.get_member(user_id) is None:
            raise SetupRefusal(404, 10007, "Unknown Member")
        member = h._member_payload(user_id)
        del member["permissions"]  # only an interaction's member carries it
        return member
    return NOT_MINE
