"""The harness refuses what Discord refuses: a message over 2000 characters, an embed over
its limits, a modal title over 45. Otherwise a reply Discord would drop (the user sees no
answer) would pass every test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from acwc_sim.harness import DiscordHarness, discord_harness

GUILD, USER, CHANNEL = 500, 501, 502


class LimitsBot(commands.Bot):
    """One command that answers with `size` characters, as content or as an embed."""

    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.failures: list[discord.HTTPException] = []

    async def setup_hook(self) -> None:
        @app_commands.command(name="say", description="Answer with that many characters")
        async def say(interaction: discord.Interaction, size: int, embed: bool = False) -> None:
            try:
                if embed:
                    box = discord.Embed(description="x" * size)
                    await interaction.response.send_message(embed=box, ephemeral=True)
                else:
                    await interaction.response.send_message("x" * size, ephemeral=True)
            except discord.HTTPException as error:
                self.failures.append(error)

        self.tree.add_command(say)


@pytest.fixture
async def h() -> AsyncIterator[DiscordHarness]:
    async with discord_harness(LimitsBot(), run_setup_hook=True, guild_id=GUILD) as harness:
        harness.add_text_channel(CHANNEL, "general")
        harness.add_member(USER, "alice")
        harness.breaches_expected = True  # these tests send what Discord refuses, on purpose
        yield harness


@pytest.mark.parametrize(
    ("size", "embed", "shown"),
    [(2000, False, True), (2001, False, False), (4096, True, True), (4097, True, False)],
)
async def test_what_discord_refuses_is_refused(
    h: DiscordHarness, size: int, embed: bool, shown: bool
) -> None:
    record = await h.slash("say", user=USER, options={"size": size, "embed": embed})

    bot = h.bot
    assert isinstance(bot, LimitsBot)
    assert bool(record.responses) is shown
    if not shown:
        assert bot.failures and bot.failures[-1].status == 400
        assert bot.failures[-1].code == 50035


@pytest.mark.parametrize(("size", "shown"), [(2000, True), (2001, False)])
async def test_a_forum_post_over_the_limit_is_refused(
    h: DiscordHarness, size: int, shown: bool
) -> None:
    forum = h.add_forum_channel(CHANNEL + 1, "pairings")
    assert isinstance(forum, discord.ForumChannel)
    if shown:
        created = await forum.create_thread(name="Round 1", content="x" * size)
        assert h.in_channel(created.thread.id)[0].content == "x" * size
    else:
        with pytest.raises(discord.HTTPException) as refused:
            await forum.create_thread(name="Round 1", content="x" * size)
        assert refused.value.status == 400 and h.threads == []
