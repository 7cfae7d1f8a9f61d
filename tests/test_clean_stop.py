"""A clean stop (SIGTERM, SIGINT) lets the delivery under way finish and leaves nothing
half-sent; after a crash, a message that may have reached Discord is looked for before it
is sent again, however long the bot was down."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import select

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.outbox import OutboxWorker, enqueue_channel, enqueue_dm
from db.engine import transaction
from db.models import OutboxMessage
from tests.harness.discord import DiscordHarness, RecordedRequest
from tests.running import ALICE, RunningBot

CHANNEL = 4242
POST = "/channels/{channel_id}/messages"


async def queue(bot: ChampionshipBot, clock: FakeClock, count: int) -> None:
    assert bot.sessions is not None
    async with transaction(bot.sessions) as session:
        for n in range(count):
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content=f"message {n}")
        enqueue_dm(session, user_id=ALICE, now=clock.now(), content="your match is at 18:00")


async def rows(bot: ChampionshipBot) -> list[OutboxMessage]:
    assert bot.sessions is not None
    async with bot.sessions() as session:
        return list((await session.scalars(select(OutboxMessage))).all())


def slow_posts(h: DiscordHarness, started: asyncio.Event) -> None:
    """Each post takes a moment, as over the network: a flush is caught in the middle."""

    async def slow(req: RecordedRequest) -> Any:
        started.set()
        await asyncio.sleep(0.05)
        h.off_request("POST", POST)
        try:
            return await h._answer(req, [])
        finally:
            h.on_request("POST", POST, slow)

    h.on_request("POST", POST, slow)


async def test_a_stop_in_the_middle_of_a_flush_finishes_it_and_sends_nothing_twice(
    running_bot: RunningBot, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "announcements")
        await queue(bot, clock, 5)
        started = asyncio.Event()
        slow_posts(h, started)

        async def connected(self: ChampionshipBot, token: str) -> None:
            assert self.outbox is not None
            flush = asyncio.create_task(self.outbox.flush())
            self.jobs_in_flight.add(flush)  # as the periodic job would
            await asyncio.sleep(3600)  # the gateway, until the bot closes

        monkeypatch.setattr(ChampionshipBot, "start", connected)
        monkeypatch.setattr(ChampionshipBot, "close", _closed)
        stop = asyncio.Event()  # what SIGTERM and SIGINT set (ChampionshipBot.serve)
        serving = asyncio.create_task(bot.serve("token", stop))
        await started.wait()
        stop.set()
        await asyncio.wait_for(serving, timeout=15)
        sent = rows(bot)
        left = await sent
        assert all(r.claim_token is None for r in left), "no claim left behind"
        delivered = [m.content for m in h.in_channel(CHANNEL)]
        assert [r.sent_at is not None for r in left].count(True) == len(delivered) + len(
            h.dms_to(ALICE)
        )
        # The next start: nothing already delivered goes out again.
        h.off_request("POST", POST)
        h.forget_nonces()
        worker = OutboxWorker(bot, bot.sessions, clock)  # type: ignore[arg-type]
        await worker.release_claims_left_by_a_dead_process()
        await worker.flush()
        everything = [m.content for m in h.in_channel(CHANNEL)]
        assert sorted(everything) == [f"message {n}" for n in range(5)]
        assert [m.content for m in h.dms_to(ALICE)] == ["your match is at 18:00"]


async def _closed(self: ChampionshipBot) -> None:
    """The harness closes the bot at the end of the test; the stop only stops its jobs."""
    if self.scheduler is not None:
        self.scheduler.shutdown(wait=False)


async def test_a_message_sent_just_before_a_crash_is_found_not_sent_again(
    running_bot: RunningBot, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "announcements")
        await queue(bot, clock, 2)
        assert bot.outbox is not None
        real_release = OutboxWorker._release
        calls = {"n": 0}

        async def killed_after_the_second_send(self: OutboxWorker, *a: Any, **k: Any) -> bool:
            calls["n"] += 1
            if calls["n"] == 2:  # Discord has message 1; the bot dies before marking it
                raise asyncio.CancelledError
            return await real_release(self, *a, **k)

        monkeypatch.setattr(OutboxWorker, "_release", killed_after_the_second_send)
        with pytest.raises(asyncio.CancelledError):
            await bot.outbox.flush()
        monkeypatch.setattr(OutboxWorker, "_release", real_release)
        assert [m.content for m in h.in_channel(CHANNEL)] == ["message 0", "message 1"]

        h.forget_nonces()  # the restart comes after Discord's nonce memory
        restarted = OutboxWorker(bot, bot.sessions, clock)  # type: ignore[arg-type]
        assert await restarted.release_claims_left_by_a_dead_process() >= 1
        await restarted.flush()
        assert [m.content for m in h.in_channel(CHANNEL)] == ["message 0", "message 1"]
        assert [m.content for m in h.dms_to(ALICE)] == ["your match is at 18:00"]
        assert all(r.sent_at is not None for r in await rows(bot))


async def test_two_messages_alike_are_both_delivered_after_a_crash(
    running_bot: RunningBot, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looking for what a dead process sent must not take another row's message for it:
    two reminders with the same text both arrive."""
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "announcements")
        assert bot.sessions is not None and bot.outbox is not None
        async with transaction(bot.sessions) as session:
            for _ in range(2):
                enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content="Reminder")
        real_release = OutboxWorker._release
        calls = {"n": 0}

        async def killed_after_the_first_send(self: OutboxWorker, *a: Any, **k: Any) -> bool:
            calls["n"] += 1
            if calls["n"] == 1:  # the first is out but not marked; the second never went
                raise asyncio.CancelledError
            return await real_release(self, *a, **k)

        monkeypatch.setattr(OutboxWorker, "_release", killed_after_the_first_send)
        with pytest.raises(asyncio.CancelledError):
            await bot.outbox.flush()
        monkeypatch.setattr(OutboxWorker, "_release", real_release)
        h.forget_nonces()
        restarted = OutboxWorker(bot, bot.sessions, clock)
        await restarted.release_claims_left_by_a_dead_process()
        await restarted.flush()
        assert [m.content for m in h.in_channel(CHANNEL)] == ["Reminder", "Reminder"]
        stored = {r.discord_message_id for r in await rows(bot)}
        assert len(stored) == 2
