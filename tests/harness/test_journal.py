"""The harness journal: "Discord" remembers what a killed process posted, as it last stood."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import discord
from discord.ext import commands

from tests.harness import DiscordHarness, discord_harness

GUILD, NEWS, ALICE = 7100, 7101, 7102
AT = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)


def a_bot() -> commands.Bot:
    return commands.Bot(command_prefix="!", intents=discord.Intents.none())


def set_up(h: DiscordHarness, journal: Path, posted: list[str]) -> None:
    h.add_text_channel(NEWS, "news")
    h.add_member(ALICE, "alice")
    h.clock = lambda: AT
    h.on_post = lambda message: posted.append(message.text)
    h.use_journal(journal, fsync=False)


async def test_a_restarted_harness_knows_every_message_as_it_last_stood(tmp_path: Path) -> None:
    journal = tmp_path / "discord.jsonl"
    first_posted: list[str] = []
    bot = a_bot()
    async with discord_harness(bot, guild_id=GUILD) as h:
        set_up(h, journal, first_posted)
        news = bot.get_channel(NEWS)
        assert isinstance(news, discord.TextChannel)
        post = await news.send("Round 1 is out")
        await post.edit(content="Round 1 is out (edited)")
        await h.member(ALICE).send("Your match is at 18:00")
        thread = await post.create_thread(name="round-1")
        await thread.send("Board 1 starts")
        thread_id = thread.id
    assert first_posted == ["Round 1 is out", "Your match is at 18:00", "Board 1 starts"]

    with journal.open("a", encoding="utf-8") as file:
        file.write('{"op": "post", "id": 1, "chan')  # a line a kill cut off
    again: list[str] = []
    bot = a_bot()
    async with discord_harness(bot, guild_id=GUILD) as h:
        set_up(h, journal, again)
        assert again == first_posted  # the story as posted, told again
        assert [m.text for m in h.messages] == [
            "Round 1 is out (edited)",
            "Your match is at 18:00",
            "Board 1 starts",
        ]
        assert [m.text for m in h.dms_to(ALICE)] == ["Your match is at 18:00"]
        assert all(m.sent_at == AT for m in h.messages)
        restored = bot.get_channel(thread_id)
        assert isinstance(restored, discord.Thread) and restored.name == "round-1"
        news = bot.get_channel(NEWS)
        assert isinstance(news, discord.TextChannel)
        fetched = await news.fetch_message(h.messages[0].id)  # the bot can still edit it
        assert fetched.content == "Round 1 is out (edited)"
        await h.member(ALICE).send("A second DM")  # the same DM channel as before the restart
        assert [m.text for m in h.dms_to(ALICE)][-1] == "A second DM"
        assert h.dms_to(ALICE)[0].channel_id == h.dms_to(ALICE)[1].channel_id

    third: list[str] = []
    async with discord_harness(a_bot(), guild_id=GUILD) as h:
        set_up(h, journal, third)
        assert third == [*first_posted, "A second DM"]  # the cut-off line did not eat it


async def test_a_note_is_told_again_in_its_place_and_written_once_per_key(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "discord.jsonl"
    story: list[str] = []

    def set_up_notes(h: DiscordHarness) -> None:
        h.on_note = lambda note: story.append(f"note: {note['who']}: {note['text']}")
        set_up(h, journal, story)  # the journal is read back here

    bot = a_bot()
    async with discord_harness(bot, guild_id=GUILD) as h:
        set_up_notes(h)
        news = bot.get_channel(NEWS)
        assert isinstance(news, discord.TextChannel)
        h.note("register:alice", AT, "alice, registering", "runs /register")
        await news.send("The field is out")
    first = list(story)
    assert first == ["note: alice, registering: runs /register", "The field is out"]

    story.clear()
    bot = a_bot()
    async with discord_harness(bot, guild_id=GUILD) as h:
        set_up_notes(h)
        assert story == first  # told again, in its place
        h.note("register:alice", AT, "alice, registering", "runs /register")  # redone step
        assert story == first  # not a second time
