"""The outbox worker delivers each queued message once, retries failures, survives restarts."""

from __future__ import annotations

from datetime import timedelta

import discord
from sqlalchemy import select

from bot.clock import FakeClock
from bot.outbox import MAX_ATTEMPTS, enqueue_channel, enqueue_dm
from db.engine import transaction
from db.models import OutboxMessage
from tests.conftest import TD_ALERT_CHANNEL
from tests.harness.discord import RecordedRequest
from tests.running import ALICE, RunningBot

CHANNEL = 4242
POST_MESSAGE = "/channels/{channel_id}/messages"


def server_error(_: RecordedRequest) -> None:
    raise discord.HTTPException(_Response(500), {"code": 0, "message": "boom"})  # type: ignore[arg-type]


class _Response:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "Error"


async def rows(bot) -> list[OutboxMessage]:
    async with bot.sessions() as session:
        return list((await session.scalars(select(OutboxMessage))).all())


async def test_delivered_once_with_its_message_id(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        async with transaction(bot.sessions) as session:
            enqueue_channel(
                session,
                channel_id=CHANNEL,
                now=clock.now(),
                content="Round 1 is out",
                embeds=[{"title": "Pairings"}],
            )
        assert await bot.outbox.flush() == 1
        assert await bot.outbox.flush() == 0
        [sent] = h.in_channel(CHANNEL)
        assert sent.content == "Round 1 is out" and sent.embeds[0]["title"] == "Pairings"
        [row] = await rows(bot)
        assert row.sent_at == clock.now() and row.discord_message_id == sent.id


async def test_failures_are_retried_with_backoff(running_bot: RunningBot, clock: FakeClock) -> None:
    async with running_bot() as (bot, h):
        async with transaction(bot.sessions) as session:
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content="hello")
        h.on_request("POST", POST_MESSAGE, server_error)
        assert await bot.outbox.flush() == 0
        [row] = await rows(bot)
        assert row.attempts == 1 and row.sent_at is None and row.next_attempt_at > clock.now()
        assert "HTTPException" in (row.last_error or "")
        h.off_request("POST", POST_MESSAGE)
        assert await bot.outbox.flush() == 0  # not due yet
        clock.advance(timedelta(hours=1))
        assert await bot.outbox.flush() == 1
        assert [m.content for m in h.in_channel(CHANNEL)] == ["hello"]


async def test_gives_up_after_max_attempts(running_bot: RunningBot, clock: FakeClock) -> None:
    async with running_bot() as (bot, h):
        async with transaction(bot.sessions) as session:
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content="hello")
        h.on_request("POST", POST_MESSAGE, server_error)
        for _ in range(MAX_ATTEMPTS + 2):
            await bot.outbox.flush()
            clock.advance(timedelta(hours=2))
        [row] = await rows(bot)
        assert row.attempts == MAX_ATTEMPTS and row.failed_at is not None


async def test_closed_dms_fall_back_and_tell_the_td(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.dm_closed.add(ALICE)
        async with transaction(bot.sessions) as session:
            enqueue_dm(
                session,
                user_id=ALICE,
                now=clock.now(),
                content="Your match is at 18:00",
                fallback_channel_id=CHANNEL,
            )
        assert await bot.outbox.flush() == 1
        [fallback] = h.in_channel(CHANNEL)
        assert fallback.content.startswith(f"<@{ALICE}>") and "18:00" in fallback.content
        [note] = h.in_channel(TD_ALERT_CHANNEL)
        assert f"<@{ALICE}>" in note.content and "DMs closed" in note.content


async def test_queued_messages_survive_a_restart(running_bot: RunningBot, clock: FakeClock) -> None:
    async with running_bot() as (bot, _h):
        async with transaction(bot.sessions) as session:
            enqueue_dm(session, user_id=ALICE, now=clock.now(), content="Welcome")
    async with running_bot() as (bot2, h2):
        assert await bot2.outbox.flush() == 1
        assert [m.content for m in h2.dms_to(ALICE)] == ["Welcome"]


async def test_an_edit_by_key_waits_for_its_message_then_edits_it(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    from bot.outbox import enqueue_edit_of

    async with running_bot() as (bot, h):
        async with transaction(bot.sessions) as session:
            enqueue_edit_of(
                session,
                key="scoreboard:1",
                channel_id=CHANNEL,
                now=clock.now(),
                content="too early",
            )
        assert await bot.outbox.flush() == 0  # nothing to edit yet
        async with transaction(bot.sessions) as session:
            enqueue_channel(
                session, channel_id=CHANNEL, now=clock.now(), content="0–0", key="scoreboard:1"
            )
            enqueue_edit_of(
                session, key="scoreboard:1", channel_id=CHANNEL, now=clock.now(), content="1–0"
            )
        assert await bot.outbox.flush() == 2  # the post, then the queued edit of it
        clock.advance(timedelta(seconds=5))
        assert await bot.outbox.flush() == 0  # the early edit is stale: a later one was shown
        [board] = h.in_channel(CHANNEL)
        assert board.content == "1–0"
        assert [e.get("content") for e in board.edits] == ["1–0"]
