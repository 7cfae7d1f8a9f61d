"""The recorded Discord answers the setup's REST calls as Discord does: the token's user (401
for a wrong token), the application and its flags, the guild with its roles and channels
(404 10004 for an unknown guild, 403 50001 when the bot is not in it), and members."""

from __future__ import annotations

import discord
import pytest
from discord.http import Route

from tests.doctor.server import ANNOUNCE, GUILD, PAIRINGS, TD, TD_ROLE, VOICE, server


async def test_users_me_is_the_bot_and_a_wrong_token_gets_401() -> None:
    async with server() as (client, h):
        me = await client.http.static_login("any-token")
        assert me["id"] == str(h.bot_user_id) and me["bot"] is True
        h.valid_token = "the-real-one"
        with pytest.raises(discord.LoginFailure):
            await client.http.static_login("a-wrong-one")
        assert h.requests[-1].status == 401


async def test_the_application_carries_its_flags() -> None:
    async with server() as (client, h):
        h.application_flags = 1 << 19
        app = await client.http.request(Route("GET", "/applications/@me"))
        assert app["id"] == str(h.application_id) and app["flags"] == 1 << 19


async def test_the_guild_its_roles_channels_and_members() -> None:
    async with server() as (client, h):
        guild = await client.fetch_guild(GUILD)
        assert {role.id for role in guild.roles} >= {GUILD, TD_ROLE}
        assert guild.get_role(h.bot_user_id + 1).is_bot_managed()  # type: ignore[union-attr]
        roles = await guild.fetch_roles()
        assert {role.id for role in roles} == {role.id for role in guild.roles}
        kinds = {channel.id: channel.type for channel in await guild.fetch_channels()}
        assert kinds[PAIRINGS] is discord.ChannelType.forum
        assert kinds[ANNOUNCE] is discord.ChannelType.news
        assert kinds[VOICE] is discord.ChannelType.voice
        td = await guild.fetch_member(TD)
        assert td.name == "director"
        with pytest.raises(discord.NotFound) as unknown:
            await guild.fetch_member(424242)
        assert unknown.value.code == 10007


async def test_an_unknown_guild_is_404_10004_and_a_guild_without_the_bot_403_50001() -> None:
    async with server() as (client, h):
        with pytest.raises(discord.NotFound) as unknown:
            await client.fetch_guild(31337)
        assert unknown.value.code == 10004
        h.bot_in_guild = False
        with pytest.raises(discord.Forbidden) as refused:
            await client.fetch_guild(GUILD)
        assert refused.value.code == 50001


async def test_overwrites_and_the_bot_role_decide_the_bot_permissions() -> None:
    async with server() as (client, h):
        h.set_overwrite(ANNOUNCE, GUILD, deny=discord.Permissions(send_messages=True).value)
        guild = await client.fetch_guild(GUILD)
        me = await guild.fetch_member(h.bot_user_id)
        channels = {channel.id: channel for channel in await guild.fetch_channels()}
        assert not channels[ANNOUNCE].permissions_for(me).send_messages
        assert channels[PAIRINGS].permissions_for(me).send_messages_in_threads
        h.set_bot_permissions(0)  # @everyone's are left: view, send, read history
        guild = await client.fetch_guild(GUILD)
        me = await guild.fetch_member(h.bot_user_id)
        pairings = next(c for c in await guild.fetch_channels() if c.id == PAIRINGS)
        assert not pairings.permissions_for(me).send_messages_in_threads
        assert pairings.permissions_for(me).send_messages
