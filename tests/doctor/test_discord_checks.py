"""Each Discord line of the setup checks, passing and failing, against the recorded Discord
answering as Discord does (GET /guilds/{id}, its channels and members, /applications/@me)."""

from __future__ import annotations

import discord

from bot.config import DiscordConfig
from bot.doctor.discord_checks import (
    GATEWAY_MESSAGE_CONTENT,
    GATEWAY_MESSAGE_CONTENT_LIMITED,
    check_discord,
)
from bot.doctor.lines import CheckLine
from bot.doctor.permissions import BOT_PERMISSIONS
from tests.doctor.server import (
    ALERTS,
    ANNOUNCE,
    GOOD,
    GUILD,
    PAIRINGS,
    TD_ROLE,
    VOICE,
    World,
    server,
)
from tests.harness import DiscordHarness

SEND = discord.Permissions(send_messages=True).value
IN_THREADS = discord.Permissions(send_messages_in_threads=True).value
EMBED = discord.Permissions(embed_links=True).value


async def lines_for(
    cfg: DiscordConfig = GOOD, world: World | None = None, *, message_content: bool = False
) -> dict[str, CheckLine]:
    async with server(world) as (client, _):
        lines = await check_discord(client, cfg, message_content=message_content)
    return {line.title: line for line in lines}


def with_(**changes: object) -> DiscordConfig:
    return GOOD.model_copy(update=changes)


async def test_a_server_set_up_right_passes_every_line() -> None:
    lines = await lines_for()
    assert list(lines) == [
        "Discord server",
        "Pairings channel",
        "Announcement channel",
        "TD alert channel",
        "TD users",
        "TD role",
        "Message Content intent",
    ]
    assert all(line.ok for line in lines.values()), [line.render() for line in lines.values()]
    assert lines["Discord server"].detail == f"the bot is in Antichess ({GUILD})."
    assert lines["Pairings channel"].render() == (
        f"✓ Pairings channel: #pairings (forum channel, {PAIRINGS}): the bot can View Channel, "
        "Send Messages, Read Message History, Send Messages in Threads."
    )
    assert "announcement channel" in lines["Announcement channel"].detail
    assert lines["TD users"].detail == "director (900)."
    assert lines["TD role"].detail == f"@TD ({TD_ROLE})."


async def test_no_guild_configured_is_fatal_and_says_how_to_get_the_id() -> None:
    lines = await lines_for(DiscordConfig())
    guild = lines["Discord server"]
    assert not guild.ok and guild.fatal
    assert guild.detail == "no server (discord.guild_id) is configured."
    assert "Copy ID" in guild.fix and "permissions=309237763072" in guild.fix
    assert "Pairings channel" not in lines  # nothing more can be checked without a server


async def test_an_unknown_guild_is_fatal() -> None:
    guild = (await lines_for(with_(guild_id=31337)))["Discord server"]
    assert not guild.ok and guild.fatal
    assert guild.detail == "server 31337 does not exist or the bot is not in it."


async def test_a_bot_not_in_the_guild_is_fatal_with_the_invite() -> None:
    def left(h: DiscordHarness) -> None:
        h.bot_in_guild = False

    guild = (await lines_for(world=left))["Discord server"]
    assert not guild.ok and guild.fatal
    assert guild.detail == f"the bot is not in server {GUILD}."
    assert guild.fix.startswith("invite it: https://discord.com/oauth2/authorize?client_id=9000")


async def test_an_unset_pairings_channel_is_fatal() -> None:
    line = (await lines_for(with_(pairings_channel_id=None)))["Pairings channel"]
    assert not line.ok and line.fatal
    assert "without any pairings post" in line.detail and "discord.pairings_channel_id" in line.fix


async def test_a_missing_pairings_channel_is_fatal() -> None:
    line = (await lines_for(with_(pairings_channel_id=4242)))["Pairings channel"]
    assert not line.ok and line.fatal
    assert line.detail == "there is no channel 4242 in Antichess."


async def test_a_voice_channel_for_the_pairings_is_fatal() -> None:
    line = (await lines_for(with_(pairings_channel_id=VOICE)))["Pairings channel"]
    assert not line.ok and line.fatal
    assert line.detail == f"#lounge ({VOICE}) is a voice channel."
    assert line.fix == "use a forum or text channel for discord.pairings_channel_id."


async def test_a_pairings_channel_where_the_bot_cannot_write_in_threads_is_fatal() -> None:
    def no_threads(h: DiscordHarness) -> None:
        h.set_overwrite(PAIRINGS, h.bot_user_id + 1, deny=IN_THREADS)  # the bot's role

    line = (await lines_for(world=no_threads))["Pairings channel"]
    assert not line.ok and line.fatal
    assert "the bot lacks Send Messages in Threads (" in line.detail
    assert "Edit Channel → Permissions" in line.fix


async def test_a_text_pairings_channel_needs_thread_creation_a_forum_does_not() -> None:
    without = BOT_PERMISSIONS.value & ~discord.Permissions(create_public_threads=True).value

    def text_pairings(h: DiscordHarness) -> None:
        h.add_text_channel(5000, "pairings-text")
        h.set_bot_permissions(without)

    forum = await lines_for(world=text_pairings)
    assert forum["Pairings channel"].ok
    text = await lines_for(with_(pairings_channel_id=5000), world=text_pairings)
    line = text["Pairings channel"]
    assert not line.ok and line.fatal
    assert "in #pairings-text (text channel, 5000) the bot lacks Create Public Threads" in (
        line.detail
    )


async def test_a_forum_that_requires_tags_is_fatal_for_the_pairings() -> None:
    """Discord refuses a forum post without a tag there (40067), and the bot posts none."""

    def tags_required(h: DiscordHarness) -> None:
        data = h._channel_payloads[PAIRINGS]
        data["flags"] = 1 << 4  # REQUIRE_TAG
        forum = h._require_guild().get_channel(PAIRINGS)
        assert isinstance(forum, discord.ForumChannel)
        forum._update(forum.guild, data)  # type: ignore[arg-type]

    line = (await lines_for(world=tags_required))["Pairings channel"]
    assert not line.ok and line.fatal
    assert (
        line.detail == f"#pairings ({PAIRINGS}) requires a tag on every post; the bot posts none."
    )
    assert "Require people to select tags when posting" in line.fix


async def test_an_announcement_channel_of_the_wrong_type_is_a_warning() -> None:
    line = (await lines_for(with_(announcement_channel_id=PAIRINGS)))["Announcement channel"]
    assert not line.ok and not line.fatal
    assert line.detail == f"#pairings ({PAIRINGS}) is a forum channel."
    assert line.fix == "use a text or announcement channel for discord.announcement_channel_id."


async def test_a_read_only_announcement_channel_names_send_messages() -> None:
    def read_only(h: DiscordHarness) -> None:
        h.set_overwrite(ANNOUNCE, GUILD, deny=SEND)  # @everyone may not write there

    line = (await lines_for(world=read_only))["Announcement channel"]
    assert not line.ok and not line.fatal
    # without Send Messages Discord takes Attach Files away too (implicit permissions)
    assert "the bot lacks Send Messages (post there); Attach Files" in line.detail


async def test_a_missing_announcement_or_alert_channel_is_a_warning() -> None:
    lines = await lines_for(with_(announcement_channel_id=None, td_alert_channel_id=4343))
    unset, missing = lines["Announcement channel"], lines["TD alert channel"]
    assert not unset.ok and not unset.fatal and "not configured" in unset.detail
    assert not missing.ok and not missing.fatal
    assert missing.detail == "there is no channel 4343 in Antichess."


async def test_td_alerts_without_embed_links_names_it() -> None:
    def no_embeds(h: DiscordHarness) -> None:
        h.set_overwrite(ALERTS, h.bot_user_id, deny=EMBED, member=True)

    line = (await lines_for(world=no_embeds))["TD alert channel"]
    assert not line.ok and not line.fatal
    assert "the bot lacks Embed Links (TD alerts carry embeds" in line.detail


async def test_a_td_who_is_not_a_member_and_a_missing_td_role_are_warnings() -> None:
    lines = await lines_for(with_(td_user_ids=(900, 777), td_role_id=888))
    users, role = lines["TD users"], lines["TD role"]
    assert not users.ok and not users.fatal
    assert users.detail == "not members of Antichess: 777."
    assert not role.ok and not role.fatal
    assert role.detail == "there is no role 888 in Antichess."


async def test_no_td_at_all_is_a_warning() -> None:
    lines = await lines_for(with_(td_user_ids=(), td_role_id=None))
    assert not lines["TDs"].ok and "no TD is configured" in lines["TDs"].detail
    assert "TD users" not in lines and "TD role" not in lines


async def test_the_message_content_intent_off_while_the_watch_is_on_is_fatal() -> None:
    line = (await lines_for(message_content=True))["Message Content intent"]
    assert not line.ok and line.fatal
    assert "fair_play.flag_public_accusations needs it" in line.detail
    assert "Message Content Intent" in line.fix and "→ Bot" in line.fix


async def test_the_message_content_intent_on_passes_either_flag() -> None:
    for flag in (GATEWAY_MESSAGE_CONTENT, GATEWAY_MESSAGE_CONTENT_LIMITED):

        def intent_on(h: DiscordHarness, flag: int = flag) -> None:
            h.application_flags = flag

        line = (await lines_for(world=intent_on, message_content=True))["Message Content intent"]
        assert line.ok, line.render()
