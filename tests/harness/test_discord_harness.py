"""Tests of the offline Discord harness against a small throwaway bot."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

import discord
import discord.interactions as dinteractions
import discord.webhook.async_ as dwebhook
import pytest
from discord import app_commands
from discord.ext import commands

from tests.harness import DiscordHarness, RecordedMessage, discord_harness

GUILD = 1000
TD_ROLE = 2000
REG_CHANNEL = 3001
ANN_CHANNEL = 3002
FORUM = 3003
TD_USER = 11
SUPERUSER = 12  # allowed by user id, has no role
PLAYER = 21
PLAYER2 = 22
PLAYER_ROLE = 2100

T = TypeVar("T")


class RegistrationClosedError(app_commands.AppCommandError):
    """A domain error the tree's on_error turns into a friendly ephemeral reply."""


class ApproveView(discord.ui.View):
    """Persistent view: registered with bot.add_view in setup_hook."""

    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.presses: list[int] = []

    @discord.ui.button(label="Approve", style=discord.ButtonStyle.green, custom_id="reg:approve:1")
    async def approve(
        self, interaction: discord.Interaction, button: discord.ui.Button[ApproveView]
    ) -> None:
        self.presses.append(interaction.user.id)
        if (
            not isinstance(interaction.user, discord.Member)
            or interaction.user.get_role(TD_ROLE) is None
        ):
            await interaction.response.send_message("Only TDs can approve.", ephemeral=True)
            return
        button.disabled = True
        button.label = "Approved"
        await interaction.response.edit_message(
            content=f"Approved by <@{interaction.user.id}>", view=self
        )


class ConfirmView(discord.ui.View):
    """Non-persistent view sent in an ephemeral response."""

    def __init__(self) -> None:
        super().__init__(timeout=60)

    @discord.ui.button(label="Yes", custom_id="confirm:yes")
    async def yes(
        self, interaction: discord.Interaction, button: discord.ui.Button[ConfirmView]
    ) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content="Confirmed.", view=None)


class CloseConfirmView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=30)
        self.value: bool | None = None

    @discord.ui.button(label="Close it", custom_id="close:yes", style=discord.ButtonStyle.danger)
    async def yes(
        self, interaction: discord.Interaction, button: discord.ui.Button[CloseConfirmView]
    ) -> None:
        self.value = True
        await interaction.response.edit_message(content="Closing...", view=None)
        self.stop()


class BoomView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=60)

    @discord.ui.button(label="Boom", custom_id="boom")
    async def boom(
        self, interaction: discord.Interaction, button: discord.ui.Button[BoomView]
    ) -> None:
        raise RuntimeError("button exploded")


class ApplyModal(discord.ui.Modal, title="Apply"):
    lichess: discord.ui.TextInput[ApplyModal] = discord.ui.TextInput(
        label="Lichess username", custom_id="apply:lichess"
    )
    note: discord.ui.TextInput[ApplyModal] = discord.ui.TextInput(
        label="Note", custom_id="apply:note", style=discord.TextStyle.paragraph, required=False
    )

    def __init__(self) -> None:
        super().__init__(custom_id="apply:modal")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"Registered {self.lichess.value} ({self.note.value or 'no note'})", ephemeral=True
        )


def is_td() -> Callable[[T], T]:
    def predicate(interaction: discord.Interaction) -> bool:
        if interaction.user.id == SUPERUSER:
            return True
        if isinstance(interaction.user, discord.Member) and interaction.user.get_role(TD_ROLE):
            return True
        raise app_commands.CheckFailure("TD only")

    return app_commands.check(predicate)


class HarnessTestBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.setup_ran = False
        self.approve_view: ApproveView | None = None
        self.registration_open = True
        self._install_commands()

    async def setup_hook(self) -> None:
        self.approve_view = ApproveView()
        self.add_view(self.approve_view)
        self.tree.copy_global_to(guild=discord.Object(GUILD))
        await self.tree.sync(guild=discord.Object(GUILD))
        self.setup_ran = True

    def _install_commands(self) -> None:
        tree = self.tree
        bot = self

        @tree.command(name="hello", description="Say hi")
        async def hello(interaction: discord.Interaction, name: str, times: int = 1) -> None:
            await interaction.response.send_message(f"hi {name} " * times, ephemeral=True)

        @tree.command(name="slow", description="Defers then follows up")
        async def slow(interaction: discord.Interaction, public: bool = False) -> None:
            await interaction.response.defer(ephemeral=not public, thinking=True)
            embed = discord.Embed(title="Standings", description="1. alice")
            embed.add_field(name="Round", value="3")
            await interaction.followup.send(embed=embed)
            await interaction.followup.send("second followup", ephemeral=True)

        @tree.command(name="editme", description="Responds then edits")
        async def editme(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("working...")
            await interaction.edit_original_response(content="done!")
            original = await interaction.original_response()
            assert original.content == "done!"

        @tree.command(name="dmme", description="DMs the caller")
        async def dmme(interaction: discord.Interaction) -> None:
            try:
                await interaction.user.send("Your pairing: alice vs bob")
            except discord.Forbidden as e:
                assert e.code == 50007
                await interaction.response.send_message(
                    "I could not DM you; please open your DMs.", ephemeral=True
                )
                return
            await interaction.response.send_message("Check your DMs.", ephemeral=True)

        @tree.command(name="notify", description="DM another player")
        async def notify(interaction: discord.Interaction, player: discord.Member) -> None:
            await player.send(f"{interaction.user.display_name} pinged you")
            await interaction.response.send_message(
                f"notified {player.display_name}", ephemeral=True
            )

        @tree.command(name="post", description="Post a registration for approval")
        @app_commands.checks.has_role(TD_ROLE)
        async def post(interaction: discord.Interaction) -> None:
            channel = interaction.client.get_channel(REG_CHANNEL)
            assert isinstance(channel, discord.TextChannel)
            assert bot.approve_view is not None
            await channel.send(
                embed=discord.Embed(title="Registration #1", description="player: alice"),
                view=bot.approve_view,
            )
            await interaction.response.send_message("posted", ephemeral=True)

        @tree.command(name="confirm", description="Ephemeral confirm button")
        async def confirm(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("Sure?", view=ConfirmView(), ephemeral=True)

        @tree.command(name="boom", description="Button that raises")
        async def boom(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("press it", view=BoomView())

        @tree.command(name="apply", description="Open the application modal")
        async def apply(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(ApplyModal())

        @tree.command(name="register", description="Register (may be closed)")
        async def register(interaction: discord.Interaction) -> None:
            if not bot.registration_open:
                raise RegistrationClosedError("Registration is closed.")
            await interaction.response.send_message("registered", ephemeral=True)

        @tree.command(name="crash", description="Raises an unexpected error")
        async def crash(interaction: discord.Interaction) -> None:
            raise ValueError("unexpected")

        @tree.command(name="forum", description="Create a forum post")
        async def forum(interaction: discord.Interaction, title: str) -> None:
            ch = interaction.client.get_channel(FORUM)
            assert isinstance(ch, discord.ForumChannel)
            created = await ch.create_thread(name=title, content=f"Game thread: {title}")
            await created.thread.send("first reply in thread")
            await interaction.response.send_message(f"<#{created.thread.id}>", ephemeral=True)

        @tree.command(name="grant", description="Give a player the player role")
        async def grant(interaction: discord.Interaction, player: discord.Member) -> None:
            role = interaction.guild.get_role(PLAYER_ROLE) if interaction.guild else None
            assert role is not None
            await player.add_roles(role)
            await interaction.response.send_message("granted", ephemeral=True)

        @tree.command(name="export", description="Send files")
        async def export(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(
                "standings attached",
                file=discord.File(io.BytesIO(b"a,b"), filename="standings.csv"),
                ephemeral=True,
            )
            channel = interaction.client.get_channel(ANN_CHANNEL)
            assert isinstance(channel, discord.TextChannel)
            await channel.send(
                "pairings", file=discord.File(io.BytesIO(b"x"), filename="pairings.csv")
            )

        @tree.command(name="close", description="Close registration after confirmation")
        async def close(interaction: discord.Interaction) -> None:
            view = CloseConfirmView()
            await interaction.response.send_message(
                "Close registration?", view=view, ephemeral=True
            )
            timed_out = await view.wait()
            if timed_out or not view.value:
                await interaction.followup.send("kept open", ephemeral=True)
                return
            bot.registration_open = False
            await interaction.followup.send("Registration closed.", ephemeral=True)

        td = app_commands.Group(name="td", description="TD tools")
        registration = app_commands.Group(
            name="registration", description="Registration", parent=td
        )

        @td.command(name="ping", description="TD-only ping")
        @is_td()
        async def td_ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("pong", ephemeral=True)

        @td.command(name="registrations", description="List registrations")
        @app_commands.checks.has_role(TD_ROLE)
        async def td_registrations(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("0 pending", ephemeral=True)

        @registration.command(name="open", description="Open registration")
        @app_commands.rename(max_players="max")
        async def registration_open(
            interaction: discord.Interaction,
            max_players: int,
            note: str | None = None,
            announce: bool = False,
        ) -> None:
            bot.registration_open = True
            msg = f"Registration open (max {max_players}){': ' + note if note else ''}"
            if announce:
                channel = interaction.client.get_channel(ANN_CHANNEL)
                assert isinstance(channel, discord.TextChannel)
                await channel.send(msg)
            await interaction.response.send_message(msg, ephemeral=True)

        tree.add_command(td)

        @tree.error
        async def on_app_command_error(
            interaction: discord.Interaction, error: app_commands.AppCommandError
        ) -> None:
            if isinstance(error, RegistrationClosedError):
                await interaction.response.send_message(str(error), ephemeral=True)
            elif isinstance(error, app_commands.CheckFailure):
                await interaction.response.send_message(
                    "You are not allowed to do that.", ephemeral=True
                )
            else:
                await app_commands.CommandTree.on_error(tree, interaction, error)


@pytest.fixture
async def h() -> AsyncIterator[DiscordHarness]:
    bot = HarnessTestBot()
    async with discord_harness(
        bot,
        run_setup_hook=True,
        guild_id=GUILD,
        td_role_id=TD_ROLE,
        channels={"registrations": REG_CHANNEL, "announcements": ANN_CHANNEL},
    ) as harness:
        harness.add_forum_channel(FORUM, "games")
        harness.add_role(PLAYER_ROLE, "Player")
        harness.add_member(TD_USER, "td", roles=[TD_ROLE])
        harness.add_member(SUPERUSER, "root")
        harness.add_member(PLAYER, "alice")
        harness.add_member(PLAYER2, "bob")
        yield harness


async def test_setup_hook_ran_and_synced(h: DiscordHarness) -> None:
    bot = h.bot
    assert isinstance(bot, HarnessTestBot)
    assert bot.setup_ran
    assert bot.user is not None and bot.user.id == h.bot_user_id
    assert bot.application_id == h.application_id
    assert any(r.path.endswith("/guilds/{guild_id}/commands") for r in h.requests)
    assert bot.get_guild(GUILD) is h.guild
    assert h.guild is not None and h.guild.me is not None


async def test_ephemeral_reply_with_options(h: DiscordHarness) -> None:
    rec = await h.slash("hello", user=PLAYER, options={"name": "bob", "times": 2})
    assert not rec.failed and not rec.errors
    assert rec.response is not None
    assert rec.response.kind == "message"
    assert rec.response.ephemeral
    assert rec.response.content == "hi bob hi bob "
    assert h.last_response() is rec.response
    assert rec.interaction.user.id == PLAYER
    assert isinstance(rec.interaction.user, discord.Member)


async def test_defer_then_followups(h: DiscordHarness) -> None:
    rec = await h.slash("slow", user=PLAYER)
    kinds = [r.kind for r in rec.responses]
    assert kinds == ["deferred", "followup", "followup"]
    assert all(r.ephemeral for r in rec.responses)
    first = rec.responses[1]
    assert first.embeds[0]["title"] == "Standings"
    assert "Round\n3" in first.text and "1. alice" in first.text
    # the first followup replaces the "thinking" message
    assert first.message_id == rec.responses[0].message_id

    rec = await h.slash("slow", user=PLAYER, options={"public": True})
    assert [r.ephemeral for r in rec.responses] == [False, False, True]


async def test_edit_original_response(h: DiscordHarness) -> None:
    rec = await h.slash("editme", user=PLAYER)
    assert not rec.errors, rec.errors
    assert [r.kind for r in rec.responses] == ["message", "edit"]
    assert rec.responses[0].raw["data"]["content"] == "working..."
    assert rec.last is not None and rec.last.content == "done!"
    assert h.message(rec.responses[0].message_id or 0).content == "done!"


async def test_group_check_by_role_and_user_id(h: DiscordHarness) -> None:
    ok = await h.slash("td ping", user=TD_USER)
    assert ok.response is not None and ok.response.content == "pong"
    root = await h.slash("td ping", user=SUPERUSER)
    assert root.response is not None and root.response.content == "pong"

    denied = await h.slash("td ping", user=PLAYER)
    assert denied.failed
    assert denied.response is not None
    assert denied.response.ephemeral
    assert "not allowed" in denied.response.text


async def test_has_role_check(h: DiscordHarness) -> None:
    denied = await h.slash("td registrations", user=PLAYER)
    assert denied.failed and "not allowed" in denied.text
    ok = await h.slash("td registrations", user=TD_USER)
    assert ok.text == "0 pending"


async def test_nested_subcommand_group_with_renamed_option(h: DiscordHarness) -> None:
    rec = await h.slash(
        "td registration open",
        user=TD_USER,
        options={"max_players": 64, "note": "hurry", "announce": True},
    )
    assert rec.text == "Registration open (max 64): hurry"
    assert [m.content for m in h.in_channel(ANN_CHANNEL)] == ["Registration open (max 64): hurry"]
    # the display (renamed) name works too
    rec = await h.slash("td registration open", user=TD_USER, options={"max": 8})
    assert rec.text == "Registration open (max 8)"


async def test_bad_command_names_and_options(h: DiscordHarness) -> None:
    with pytest.raises(LookupError):
        await h.slash("nope", user=PLAYER)
    with pytest.raises(LookupError):
        await h.slash("td nope", user=PLAYER)
    with pytest.raises(LookupError):
        await h.slash("td", user=PLAYER)
    with pytest.raises(ValueError, match="no option"):
        await h.slash("hello", user=PLAYER, options={"nam": "x"})
    with pytest.raises(ValueError, match="required"):
        await h.slash("hello", user=PLAYER)


async def test_dm_and_closed_dm_fallback(h: DiscordHarness) -> None:
    rec = await h.slash("dmme", user=PLAYER)
    assert rec.text == "Check your DMs."
    dms = h.dms_to(PLAYER)
    assert len(dms) == 1 and "alice vs bob" in dms[0].text
    assert rec.messages == dms

    h.dm_closed.add(PLAYER2)
    rec = await h.slash("dmme", user=PLAYER2)
    assert rec.response is not None and rec.response.ephemeral
    assert "could not DM" in rec.text
    assert h.dms_to(PLAYER2) == []
    assert any(r.status == 403 for r in h.requests)


async def test_user_option_resolves_member(h: DiscordHarness) -> None:
    rec = await h.slash("notify", user=PLAYER, options={"player": PLAYER2})
    assert rec.text == "notified bob"
    assert [m.text for m in h.dms_to(PLAYER2)] == ["alice pinged you"]


async def test_slash_from_dm(h: DiscordHarness) -> None:
    rec = await h.slash("hello", user=PLAYER, options={"name": "dm"}, dm=True)
    assert rec.interaction.guild is None
    assert isinstance(rec.interaction.user, discord.User)
    assert rec.text == "hi dm "
    # role checks refuse DMs like in production
    rec = await h.slash("td registrations", user=TD_USER, dm=True)
    assert rec.failed and "not allowed" in rec.text


async def test_tree_error_handler(h: DiscordHarness) -> None:
    bot = h.bot
    assert isinstance(bot, HarnessTestBot)
    bot.registration_open = False
    rec = await h.slash("register", user=PLAYER)
    assert rec.failed
    assert rec.response is not None and rec.response.ephemeral
    assert rec.text == "Registration is closed."
    assert not rec.errors

    rec = await h.slash("crash", user=PLAYER)
    assert rec.failed and rec.responses == []
    assert len(rec.errors) == 1
    assert isinstance(rec.errors[0], app_commands.CommandInvokeError)
    assert isinstance(rec.errors[0].original, ValueError)


async def test_persistent_view_press_updates_channel_message(h: DiscordHarness) -> None:
    denied = await h.slash("post", user=PLAYER)
    assert denied.failed and h.in_channel(REG_CHANNEL) == []

    rec = await h.slash("post", user=TD_USER)
    assert rec.text == "posted"
    [msg] = h.in_channel(REG_CHANNEL)
    assert "Registration #1" in msg.text
    assert h.buttons(msg) == [
        {
            "custom_id": "reg:approve:1",
            "label": "Approve",
            "disabled": False,
            "style": 3,
            "url": None,
            "emoji": None,
        }
    ]

    # a player may not approve
    press = await h.press("reg:approve:1", user=PLAYER)
    assert press.response is not None and press.response.kind == "message"
    assert press.response.ephemeral and "Only TDs" in press.text
    assert not h.buttons(msg)[0]["disabled"]

    press = await h.press("reg:approve:1", user=TD_USER, message=msg)
    assert press.response is not None and press.response.kind == "update"
    assert msg.content == f"Approved by <@{TD_USER}>"
    [button] = h.buttons(msg)
    assert button["disabled"] and button["label"] == "Approved"
    with pytest.raises(AssertionError, match="disabled"):
        await h.press("reg:approve:1", user=TD_USER, message=msg)
    assert press.response.source_message_id == msg.id
    bot = h.bot
    assert isinstance(bot, HarnessTestBot) and bot.approve_view is not None
    assert bot.approve_view.presses == [PLAYER, TD_USER]


async def test_persistent_view_without_recorded_message(h: DiscordHarness) -> None:
    # e.g. after a restart: the message exists on Discord but not in this run
    press = await h.press("reg:approve:1", user=TD_USER)
    assert press.response is not None and press.response.kind == "update"
    assert "Approved by" in press.text


async def test_ephemeral_view_defer_and_edit(h: DiscordHarness) -> None:
    rec = await h.slash("confirm", user=PLAYER)
    assert rec.response is not None and rec.response.ephemeral
    assert [b["custom_id"] for b in h.buttons(rec.response)] == ["confirm:yes"]
    press = await h.press("confirm:yes", user=PLAYER, message=rec.response)
    assert [r.kind for r in press.responses] == ["deferred_update", "edit"]
    assert press.last is not None and press.last.content == "Confirmed."
    assert press.last.ephemeral
    assert h.buttons(rec.response) == []


async def test_view_callback_error_is_collected(h: DiscordHarness) -> None:
    await h.slash("boom", user=PLAYER)
    press = await h.press("boom", user=PLAYER)
    assert press.responses == []
    assert any(isinstance(e, RuntimeError) for e in press.errors)


async def test_modal_roundtrip(h: DiscordHarness) -> None:
    rec = await h.slash("apply", user=PLAYER)
    assert rec.response is not None and rec.response.kind == "modal"
    assert rec.response.custom_id == "apply:modal"
    assert rec.response.title == "Apply"
    labels = {f["label"]: f["custom_id"] for f in rec.response.modal_fields}
    assert labels == {"Lichess username": "apply:lichess", "Note": "apply:note"}

    sub = await h.submit_modal("apply:modal", {"apply:lichess": "alice_lc"}, user=PLAYER)
    assert sub.text == "Registered alice_lc (no note)"
    assert sub.response is not None and sub.response.ephemeral

    await h.slash("apply", user=PLAYER)
    sub = await h.submit_modal(None, {"Lichess username": "bob_lc", "Note": "hi"}, user=PLAYER)
    assert sub.text == "Registered bob_lc (hi)"


async def test_forum_thread_and_role_grant(h: DiscordHarness) -> None:
    rec = await h.slash("forum", user=TD_USER, options={"title": "R1 alice-bob"})
    assert not rec.errors, rec.errors
    [thread] = h.threads
    tid = int(thread["id"])
    assert thread["name"] == "R1 alice-bob" and int(thread["parent_id"]) == FORUM
    assert [m.content for m in h.in_channel(tid)] == [
        "Game thread: R1 alice-bob",
        "first reply in thread",
    ]
    assert rec.text == f"<#{tid}>"

    assert h.member(PLAYER).get_role(PLAYER_ROLE) is None
    rec = await h.slash("grant", user=TD_USER, options={"player": PLAYER})
    assert rec.text == "granted"
    assert h.member(PLAYER).get_role(PLAYER_ROLE) is not None


async def test_files_are_recorded(h: DiscordHarness) -> None:
    rec = await h.slash("export", user=TD_USER)
    assert rec.response is not None and rec.response.files == ["standings.csv"]
    assert rec.response.content == "standings attached" and rec.response.ephemeral
    [msg] = h.in_channel(ANN_CHANNEL)
    assert msg.files == ["pairings.csv"] and msg.content == "pairings"


async def test_command_waiting_for_a_press(h: DiscordHarness) -> None:
    task = h.start_slash("close", user=TD_USER)
    await h.until(lambda: h.responses)
    prompt = h.last_response()
    assert prompt.text == "Close registration?"
    press = await h.press("close:yes", user=TD_USER)
    assert press.response is not None and press.response.kind == "update"
    rec = await task
    assert [r.kind for r in rec.responses] == ["message", "followup"]
    assert rec.last is not None and rec.last.text == "Registration closed."
    assert h.buttons(prompt) == []
    bot = h.bot
    assert isinstance(bot, HarnessTestBot) and not bot.registration_open


async def test_hanging_command_times_out(h: DiscordHarness) -> None:
    h.timeout = 0.2
    with pytest.raises(TimeoutError, match="/close"):
        await h.slash("close", user=TD_USER)


async def test_message_helpers() -> None:
    msg = RecordedMessage(
        id=1,
        channel_id=2,
        content="hello",
        embeds=[
            {
                "title": "T",
                "description": "D",
                "fields": [{"name": "N", "value": "V"}],
                "footer": {"text": "F"},
            }
        ],
    )
    assert msg.text == "hello\nT\nD\nN\nV\nF"


async def test_close_restores_everything() -> None:
    bot = HarnessTestBot()
    orig_ctx = dwebhook.async_context
    h = DiscordHarness(bot)
    await h.start()
    assert dwebhook.async_context is not orig_ctx
    assert dinteractions.async_context is dwebhook.async_context
    rec = await h.slash("hello", user=5, options={"name": "x"})  # unknown users become members
    assert rec.text == "hi x "
    await h.close()
    assert dwebhook.async_context is orig_ctx
    assert dinteractions.async_context is orig_ctx
    assert "request" not in vars(bot.http)
    assert bot.is_closed()


async def test_failing_setup_hook_restores_patches() -> None:
    class BrokenBot(HarnessTestBot):
        async def setup_hook(self) -> None:
            raise RuntimeError("no db")

    orig_ctx = dwebhook.async_context
    bot = BrokenBot()
    with pytest.raises(RuntimeError, match="no db"):
        async with discord_harness(bot, run_setup_hook=True):
            pass
    assert dwebhook.async_context is orig_ctx
    assert "request" not in vars(bot.http)


async def test_rest_fakes_and_overrides(h: DiscordHarness) -> None:
    bot = h.bot
    user = await bot.fetch_user(PLAYER)
    assert user.name == "alice"
    with pytest.raises(discord.NotFound):
        await bot.fetch_user(999)
    h.on_request(
        "GET",
        "/users/{user_id}",
        lambda req: {
            "id": req.params["user_id"],
            "username": "ghost",
            "discriminator": "0",
            "avatar": None,
        },
    )
    assert (await bot.fetch_user(999)).name == "ghost"
    with pytest.raises(discord.NotFound):
        await bot.fetch_sticker(1)  # no fake for this route
    assert [r.path for r in h.unhandled] == ["/stickers/{sticker_id}"]


async def test_a_429_with_retry_after_goes_through_discord_py_own_rate_limiter(
    h: DiscordHarness, caplog: pytest.LogCaptureFixture
) -> None:
    """discord.py sleeps `retry_after` and sends again; the caller never sees the 429."""
    channel = h.bot.get_channel(ANN_CHANNEL)
    assert isinstance(channel, discord.TextChannel)
    h.rate_limit_next("POST", "/channels/{channel_id}/messages", retry_after=0.2)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with caplog.at_level(logging.WARNING, logger="discord.http"):
        sent = await channel.send("after the limit")
    assert loop.time() - started >= 0.2
    assert [m.text for m in h.in_channel(ANN_CHANNEL)] == ["after the limit"]
    assert sent.id == h.in_channel(ANN_CHANNEL)[0].id
    assert len(h.rate_limited) == 1
    assert "We are being rate limited" in caplog.text
    again = await channel.send("no limit now")  # only the next request was limited
    assert again.content == "no limit now" and len(h.rate_limited) == 1
