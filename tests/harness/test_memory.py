"""A harness that keeps little in memory (`keep_in_memory`, as a long simulation runs it)
still answers like Discord: an old message is read back from the journal to be fetched,
edited or matched by its nonce, and an interaction is forgotten once its token expires."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import discord
import pytest
from discord.ext import commands

from tests.harness import DiscordHarness, discord_harness

GUILD, NEWS, ALICE = 7200, 7201, 7202
START = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)
KEEP = 4


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


class HelloBot(commands.Bot):
    """One slash command that answers ephemerally and keeps its interaction."""

    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.none())
        self.seen: list[discord.Interaction] = []

        @self.tree.command(name="hello", description="Say hi")
        async def hello(interaction: discord.Interaction) -> None:
            self.seen.append(interaction)
            await interaction.response.send_message("hi", ephemeral=True)


def lean(h: DiscordHarness, journal: Path, clock: Clock) -> None:
    h.add_text_channel(NEWS, "news")
    h.add_member(ALICE, "alice")
    h.clock = clock
    h.keep_history = False
    h.keep_in_memory = KEEP
    h.use_journal(journal, fsync=False)


@asynccontextmanager
async def lean_harness(
    journal: Path, clock: Clock | None = None
) -> AsyncIterator[tuple[HelloBot, DiscordHarness, Clock]]:
    """A started harness as a long simulation runs it, on `journal`."""
    bot, clock = HelloBot(), clock or Clock()
    async with discord_harness(bot, guild_id=GUILD) as h:
        lean(h, journal, clock)
        yield bot, h, clock


def news_of(bot: commands.Bot) -> discord.TextChannel:
    news = bot.get_channel(NEWS)
    assert isinstance(news, discord.TextChannel)
    return news


async def test_an_old_message_is_read_back_from_the_journal(tmp_path: Path) -> None:
    async with lean_harness(tmp_path / "discord.jsonl") as (bot, h, clock):
        news = news_of(bot)
        first = await news.send("Round 1 is out", nonce="acwc1")
        for n in range(2, 13):
            await news.send(f"message {n}")
        assert len(h.messages) <= KEEP + KEEP // 4
        assert first.id not in {m.id for m in h.messages}  # forgotten by the harness...
        fetched = await news.fetch_message(first.id)  # ...not by Discord
        assert fetched.content == "Round 1 is out"
        await fetched.edit(content="Round 1 is out (board 3 agreed)")
        assert h.message(first.id).content == "Round 1 is out (board 3 agreed)"
        again = await news.send("Round 1 is out", nonce="acwc1")  # a resend after a crash
        assert again.id == first.id
        assert (await news.fetch_message(first.id)).content == "Round 1 is out (board 3 agreed)"
        with pytest.raises(discord.NotFound):
            await news.fetch_message(first.id + 10**9)

    async with lean_harness(tmp_path / "discord.jsonl", clock) as (bot, h, _):  # restarted
        assert len(h.messages) <= KEEP + KEEP // 4
        fetched = await news_of(bot).fetch_message(first.id)
        assert fetched.content == "Round 1 is out (board 3 agreed)"


async def test_a_nonce_is_remembered_for_an_hour(tmp_path: Path) -> None:
    async with lean_harness(tmp_path / "discord.jsonl") as (bot, h, clock):
        news = news_of(bot)
        first = await news.send("Board 1 starts", nonce="acwc7")
        clock.now += timedelta(minutes=59)
        assert (await news.send("Board 1 starts", nonce="acwc7")).id == first.id
        clock.now += timedelta(minutes=2)
        await news.send("something else")
        later = await news.send("Board 1 starts", nonce="acwc7")
        assert later.id != first.id  # Discord forgot the nonce: a second message
        assert [m.text for m in h.messages].count("Board 1 starts") == 2


async def test_an_expired_interaction_is_forgotten_with_its_ephemeral_answer(
    tmp_path: Path,
) -> None:
    async with lean_harness(tmp_path / "discord.jsonl") as (bot, h, clock):
        record = await h.slash("hello", user=ALICE)
        assert record.text == "hi"
        assert record.response is not None and record.response.message_id is not None
        answer = record.response.message_id
        interaction = bot.seen[-1]
        await interaction.followup.send("still here", ephemeral=True)  # within 15 minutes
        clock.now += timedelta(minutes=16)
        second = await h.slash("hello", user=ALICE)
        assert second.text == "hi"
        with pytest.raises(KeyError):
            h.message(answer)
        with pytest.raises(discord.NotFound):  # the token expired, as on Discord
            await interaction.followup.send("too late", ephemeral=True)
        assert [r.interaction_id for r in h.responses] == [bot.seen[-1].id]


async def test_a_harness_keeping_everything_forgets_nothing(tmp_path: Path) -> None:
    bot, clock = HelloBot(), Clock()
    async with discord_harness(bot, guild_id=GUILD) as h:
        h.add_text_channel(NEWS, "news")
        h.clock = clock
        h.use_journal(tmp_path / "discord.jsonl", fsync=False)
        for n in range(12):
            await news_of(bot).send(f"message {n}")
        await h.slash("hello", user=ALICE)
        clock.now += timedelta(days=1)
        await h.slash("hello", user=ALICE)
        assert len(h.messages) == 12
        assert len(h.responses) == 2
