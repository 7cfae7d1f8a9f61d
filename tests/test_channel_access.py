"""A channel Discord refuses the bot (403 50001/50013) and a missing pairings channel: the TD
hears once, with the channel and what is missing; the bot stops retrying every few seconds,
loses nothing, and posts as soon as Discord lets it."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config
from bot.outbox import enqueue_channel
from db.engine import transaction
from db.models import OutboxMessage, Round
from tests.conftest import TD_ID
from tests.factories import seed_round
from tests.harness.discord import DiscordHarness
from tests.running import ALICE, BOB, RunningBot

CHANNEL = 4242
PAIRINGS = 4300
PLAYERS = [(ALICE, "Alice"), (BOB, "Bob"), (None, "Carol"), (None, "Dave")]


def attempts_in(h: DiscordHarness, channel_id: int) -> int:
    return sum(1 for r in h.requests if r.params.get("channel_id") == str(channel_id))


def td_notices(h: DiscordHarness, text: str) -> list[str]:
    return [m.content for m in h.dms_to(TD_ID) if text in m.content]


async def deliver(bot: ChampionshipBot) -> None:
    await bot.deliver()
    await bot.deliver()  # what the first one queued (the TD's notice) goes out too


async def test_a_refused_channel_reaches_the_td_once_and_waits_without_losing_anything(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "announcements")
        h.refused_channels[CHANNEL] = 50013
        assert bot.sessions is not None
        async with transaction(bot.sessions) as session:
            for text in ("Round 1 is out", "Standings after round 1"):
                enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content=text)
        await deliver(bot)
        [notice] = td_notices(h, f"<#{CHANNEL}>")
        assert "50013 Missing Permissions" in notice and "posting a message" in notice
        assert "Send Messages" in notice and "Nothing is lost" in notice
        tried = attempts_in(h, CHANNEL)
        assert tried == 1  # the second message did not knock: the channel is known refused

        for _ in range(20):  # the 5-second job, for 100 seconds: no knocking, no new notice
            clock.advance(timedelta(seconds=5))
            await deliver(bot)
        assert attempts_in(h, CHANNEL) == tried
        clock.advance(timedelta(minutes=10))
        await deliver(bot)  # the pause is over: one try, refused again, no second notice
        assert attempts_in(h, CHANNEL) == tried + 1
        assert len(td_notices(h, f"<#{CHANNEL}>")) == 1

        async with bot.sessions() as session:
            pending = (await session.scalars(select(OutboxMessage))).all()
        assert [m.failed_at for m in pending if m.target_id == CHANNEL] == [None, None]

        del h.refused_channels[CHANNEL]  # the TD fixes the channel; Discord says so
        bot.dispatch("guild_channel_update", None, None)
        await h.settle()
        await deliver(bot)
        shown = [m.content for m in h.in_channel(CHANNEL)]
        assert shown == ["Round 1 is out", "Standings after round 1"]
        assert len(td_notices(h, f"<#{CHANNEL}>")) == 1


async def test_a_restarted_bot_does_not_tell_the_td_again(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "announcements")
        h.refused_channels[CHANNEL] = 50001
        assert bot.sessions is not None
        async with transaction(bot.sessions) as session:
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content="hello")
        await deliver(bot)
        [notice] = td_notices(h, f"<#{CHANNEL}>")
        assert "50001 Missing Access" in notice and "cannot see the channel" in notice
    clock.advance(timedelta(hours=2))
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "announcements")
        h.refused_channels[CHANNEL] = 50001
        await deliver(bot)
        assert attempts_in(h, CHANNEL) == 1
        assert td_notices(h, f"<#{CHANNEL}>") == []
        del h.refused_channels[CHANNEL]
        clock.advance(timedelta(hours=2))
        await deliver(bot)
        assert [m.content for m in h.in_channel(CHANNEL)] == ["hello"]


async def test_a_refused_pairings_channel_is_not_retried_every_five_seconds(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    cfg = config.model_copy(
        update={"discord": config.discord.model_copy(update={"pairings_channel_id": PAIRINGS})}
    )
    async with running_bot(cfg) as (bot, h):
        h.add_text_channel(PAIRINGS, "pairings")
        h.refused_channels[PAIRINGS] = 50013
        assert bot.sessions is not None
        await seed_round(bot.sessions, cfg, PLAYERS, thread_id=None)
        await deliver(bot)
        [notice] = td_notices(h, f"<#{PAIRINGS}>")
        assert "posting the pairings of round 1" in notice
        for _ in range(12):
            clock.advance(timedelta(seconds=5))
            await deliver(bot)
        assert attempts_in(h, PAIRINGS) == 1
        del h.refused_channels[PAIRINGS]
        bot.dispatch("guild_role_update", None, None)
        await h.settle()
        await deliver(bot)
        post = h.in_channel(PAIRINGS)[0]
        assert "Alice" in post.content and len(td_notices(h, f"<#{PAIRINGS}>")) == 1


async def test_a_round_with_no_pairings_channel_is_told_to_the_td_once_and_posted_later(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    assert config.discord.pairings_channel_id is None
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        await seed_round(bot.sessions, config, PLAYERS, thread_id=None)
        for _ in range(3):
            await deliver(bot)
            clock.advance(timedelta(seconds=5))
        [notice] = td_notices(h, "no pairings channel is")
        assert "Swiss round 1 is published" in notice and "/td setup" in notice
        assert "no ping" in notice
    cfg = config.model_copy(
        update={"discord": config.discord.model_copy(update={"pairings_channel_id": PAIRINGS})}
    )
    async with running_bot(cfg) as (bot, h):
        h.add_text_channel(PAIRINGS, "pairings")
        await deliver(bot)
        assert h.in_channel(PAIRINGS), "the round is posted once a channel is set"
        assert bot.sessions is not None
        async with bot.sessions() as session:
            round_ = await session.scalar(select(Round))
        assert round_ is not None and round_.thread_id is not None
