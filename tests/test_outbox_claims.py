"""Concurrent flushes claim each outbox row before sending it, so each message goes out once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import discord
import pytest
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import DiscordConfig
from bot.outbox import LEASE, OutboxWorker, enqueue_channel, enqueue_dm, enqueue_edit_of
from db.engine import transaction
from db.models import OutboxMessage
from tests.conftest import TD_ALERT_CHANNEL
from tests.harness import DiscordHarness
from tests.running import ALICE, RunningBot

CHANNEL = 4242
POST_MESSAGE = "/channels/{channel_id}/messages"
EDIT_MESSAGE = "/channels/{channel_id}/messages/{message_id}"

# Called in the middle of every message post or edit, with the request's JSON, after the
# request left and before Discord's answer.
MidSend = Callable[[dict[str, Any]], Awaitable[None]]


async def _pause(_json: dict[str, Any]) -> None:
    await asyncio.sleep(0.01)  # long enough for the other flush's database round trips


@asynccontextmanager
async def sends_that_yield(bot: ChampionshipBot, mid_send: MidSend = _pause) -> AsyncIterator[None]:
    """Every message post or edit awaits `mid_send` before the (fake) Discord records it."""
    recorded = bot.http.request

    async def request(route: Any, **kwargs: Any) -> Any:
        if (route.method, route.path) in {("POST", POST_MESSAGE), ("PATCH", EDIT_MESSAGE)}:
            await mid_send(kwargs.get("json") or {})
        return await recorded(route, **kwargs)

    bot.http.request = request  # type: ignore[method-assign]
    try:
        yield
    finally:
        bot.http.request = recorded  # type: ignore[method-assign]


def sessions_of(bot: ChampionshipBot) -> async_sessionmaker[AsyncSession]:
    assert bot.sessions is not None, "the bot has not run setup_hook"
    return bot.sessions


def second_worker(bot: ChampionshipBot, clock: FakeClock) -> OutboxWorker:
    """Another process's worker: its own lock and state, the same database."""
    settings = DiscordConfig(td_alert_channel_id=TD_ALERT_CHANNEL)
    return OutboxWorker(bot, sessions_of(bot), clock, settings=settings)


async def rows(bot: ChampionshipBot) -> list[OutboxMessage]:
    async with sessions_of(bot)() as session:
        return list((await session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))).all())


async def enqueue_three(bot: ChampionshipBot, clock: FakeClock) -> None:
    async with transaction(sessions_of(bot)) as session:
        for text in ("one", "two", "three"):
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content=text)
        enqueue_dm(session, user_id=ALICE, now=clock.now(), content="dm")


def assert_each_sent_once(h: DiscordHarness) -> None:
    assert sorted(m.content for m in h.in_channel(CHANNEL)) == ["one", "three", "two"]
    assert [m.content for m in h.dms_to(ALICE)] == ["dm"]


@pytest.mark.parametrize("workers", ["two workers, one database", "one worker twice"])
async def test_concurrent_flushes_send_each_message_once(
    running_bot: RunningBot, clock: FakeClock, workers: str
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "pairings")
        await enqueue_three(bot, clock)
        assert bot.outbox is not None
        other = second_worker(bot, clock) if workers.startswith("two") else bot.outbox
        async with sends_that_yield(bot):
            counts = await asyncio.gather(bot.outbox.flush(), other.flush())
        assert sum(counts) == 4
        if other is bot.outbox:
            assert counts == [4, 0]  # one flush at a time per worker: the second finds none
        assert_each_sent_once(h)
        sent = await rows(bot)
        assert all(r.sent_at == clock.now() and r.attempts == 1 for r in sent)
        assert all(r.claim_token is None and r.claimed_until is None for r in sent)
        by_content = {m.content: m.id for m in h.messages}
        assert all(r.discord_message_id == by_content[r.content] for r in sent)
        assert await bot.outbox.flush() == 0 and await other.flush() == 0
        assert_each_sent_once(h)


async def test_concurrent_flushes_post_and_edit_once(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "scores")
        async with transaction(sessions_of(bot)) as session:
            enqueue_channel(
                session, channel_id=CHANNEL, now=clock.now(), content="0–0", key="board:1"
            )
            enqueue_edit_of(
                session, key="board:1", channel_id=CHANNEL, now=clock.now(), content="1–0"
            )
        assert bot.outbox is not None
        other = second_worker(bot, clock)
        async with sends_that_yield(bot):
            await asyncio.gather(bot.outbox.flush(), other.flush())
            clock.advance(timedelta(seconds=5))  # an edit postponed while its post was sending
            await asyncio.gather(bot.outbox.flush(), other.flush())
        [board] = h.in_channel(CHANNEL)
        assert board.content == "1–0"
        assert [e.get("content") for e in board.edits] == ["1–0"]
        assert all(r.sent_at is not None and r.claim_token is None for r in await rows(bot))


async def test_a_later_edit_does_not_overtake_one_another_worker_is_sending(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "scores")
        async with transaction(sessions_of(bot)) as session:
            enqueue_channel(
                session, channel_id=CHANNEL, now=clock.now(), content="0–0", key="board:1"
            )
        assert bot.outbox is not None
        assert await bot.outbox.flush() == 1
        async with transaction(sessions_of(bot)) as session:
            for score in ("1–0", "2–0"):
                enqueue_edit_of(
                    session, key="board:1", channel_id=CHANNEL, now=clock.now(), content=score
                )
        other = second_worker(bot, clock)

        async def first_edit_is_slow(json: dict[str, Any]) -> None:
            await asyncio.sleep(0.1 if json.get("content") == "1–0" else 0.01)

        async with sends_that_yield(bot, first_edit_is_slow):
            await asyncio.gather(bot.outbox.flush(), other.flush())
            await asyncio.gather(bot.outbox.flush(), other.flush())
        [board] = h.in_channel(CHANNEL)
        assert [e.get("content") for e in board.edits] == ["1–0", "2–0"]
        assert board.content == "2–0"


async def _claim_directly(bot: ChampionshipBot, row_id: int, *, until: Any, token: str) -> None:
    async with transaction(sessions_of(bot)) as session:
        await session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id == row_id)
            .values(claimed_until=until, claim_token=token)
        )


async def test_an_expired_lease_is_retried_a_valid_one_is_not(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "pairings")
        async with transaction(sessions_of(bot)) as session:
            for text in ("expired", "held"):
                enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content=text)
        expired, held = await rows(bot)
        await _claim_directly(bot, expired.id, until=clock.now(), token="a" * 32)
        await _claim_directly(
            bot, held.id, until=clock.now() + timedelta(seconds=1), token="b" * 32
        )
        assert await second_worker(bot, clock).flush() == 1
        assert [m.content for m in h.in_channel(CHANNEL)] == ["expired"]
        expired, held = await rows(bot)
        assert expired.sent_at is not None and expired.claim_token is None
        assert held.sent_at is None and held.attempts == 0
        assert held.claim_token == "b" * 32 and held.claimed_until == clock.now() + timedelta(
            seconds=1
        )


async def test_a_crashed_flush_is_retried_once_its_lease_expires(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "pairings")
        async with transaction(sessions_of(bot)) as session:
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content="hello")
        assert bot.outbox is not None
        in_flight = asyncio.Event()

        async def hang(_json: dict[str, Any]) -> None:
            in_flight.set()
            await asyncio.Event().wait()  # never answered: the process dies here

        async with sends_that_yield(bot, hang):
            crashed = asyncio.create_task(bot.outbox.flush())
            await asyncio.wait_for(in_flight.wait(), 5)
            crashed.cancel()
            with pytest.raises(asyncio.CancelledError):
                await crashed
        [row] = await rows(bot)
        assert row.claim_token is not None and row.claimed_until == clock.now() + LEASE

        other = second_worker(bot, clock)
        clock.advance(LEASE - timedelta(seconds=1))
        assert await other.flush() == 0  # still leased to the dead flush
        assert h.in_channel(CHANNEL) == []
        clock.advance(timedelta(seconds=1))
        assert await other.flush() == 1
        assert [m.content for m in h.in_channel(CHANNEL)] == ["hello"]
        [row] = await rows(bot)
        assert row.sent_at == clock.now() and row.attempts == 1 and row.claim_token is None


def _server_error(_: Any) -> None:
    raise discord.HTTPException(_Response(500), {"code": 0, "message": "boom"})  # type: ignore[arg-type]


class _Response:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "Error"


@pytest.mark.parametrize("outcome", ["sent", "failed"])
async def test_a_flush_that_lost_its_claim_does_not_mark_the_row(
    running_bot: RunningBot, clock: FakeClock, outcome: str
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "pairings")
        async with transaction(sessions_of(bot)) as session:
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content="slow")
        assert bot.outbox is not None
        if outcome == "failed":
            h.on_request("POST", POST_MESSAGE, _server_error)
        taken_over_until = clock.now() + 2 * LEASE

        async def taken_over(_json: dict[str, Any]) -> None:
            # The send outlasted the lease and another flush claimed the row meanwhile.
            [row] = await rows(bot)
            await _claim_directly(bot, row.id, until=taken_over_until, token="c" * 32)

        async with sends_that_yield(bot, taken_over):
            assert await bot.outbox.flush() == 0
        [row] = await rows(bot)
        assert row.sent_at is None and row.failed_at is None
        assert row.attempts == 0 and row.last_error is None and row.discord_message_id is None
        assert row.next_attempt_at == row.created_at
        assert row.claim_token == "c" * 32 and row.claimed_until == taken_over_until


async def test_a_send_repeated_after_a_crash_does_not_post_twice(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    """Discord took the message, then the process died before the row was marked sent: the
    repeat carries the same nonce, and Discord answers it with the message it already made."""
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "pairings")
        async with transaction(sessions_of(bot)) as session:
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content="once")
        assert bot.outbox is not None
        worker = bot.outbox

        async def die_before_marking(*_: Any, **__: Any) -> bool:
            raise RuntimeError("killed after Discord answered")

        original = worker._release
        worker._release = die_before_marking  # type: ignore[method-assign]
        with pytest.raises(RuntimeError):
            await worker.flush()
        worker._release = original  # type: ignore[method-assign]
        assert [m.content for m in h.in_channel(CHANNEL)] == ["once"]
        first_id = h.in_channel(CHANNEL)[0].id

        clock.advance(LEASE + timedelta(seconds=1))
        assert await second_worker(bot, clock).flush() == 1
        assert [m.content for m in h.in_channel(CHANNEL)] == ["once"]  # not posted again
        [row] = await rows(bot)
        assert row.sent_at is not None and row.discord_message_id == first_id


async def test_a_slow_batch_sends_nothing_on_a_claim_that_could_run_out(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    """One UPDATE claims a whole batch; when sends are slow (rate-limit waits), the lease is
    renewed before a send that would start with less than half of it left."""
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "pairings")
        async with transaction(sessions_of(bot)) as session:
            for text in ("one", "two", "three", "four"):
                enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content=text)
        assert bot.outbox is not None
        left_at_send: list[timedelta] = []

        async def slow(json: dict[str, Any]) -> None:
            [row] = [r for r in await rows(bot) if r.content == json.get("content")]
            assert row.claimed_until is not None
            left_at_send.append(row.claimed_until - clock.now())
            clock.advance(LEASE * 0.4)  # each send takes 48 s of the 120 s lease

        async with sends_that_yield(bot, slow):
            assert await bot.outbox.flush() == 4
        assert [m.content for m in h.in_channel(CHANNEL)] == ["one", "two", "three", "four"]
        assert all(left > LEASE / 2 for left in left_at_send), left_at_send
        assert all(r.claim_token is None and r.sent_at is not None for r in await rows(bot))


async def test_a_bug_in_the_middle_of_a_batch_frees_the_rows_not_tried(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(CHANNEL, "pairings")
        async with transaction(sessions_of(bot)) as session:
            for text in ("one", "bug", "three"):
                enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content=text)
        assert bot.outbox is not None

        async def buggy(json: dict[str, Any]) -> None:
            if json.get("content") == "bug":
                raise RuntimeError("not a Discord answer")

        async with sends_that_yield(bot, buggy):
            with pytest.raises(RuntimeError):
                await bot.outbox.flush()
        assert [m.content for m in h.in_channel(CHANNEL)] == ["one"]
        one, bug, three = await rows(bot)
        assert one.sent_at is not None
        assert bug.sent_at is None and three.sent_at is None
        assert bug.claim_token is None and three.claim_token is None  # no lease to wait out
        assert await bot.outbox.flush() == 2
        assert [m.content for m in h.in_channel(CHANNEL)] == ["one", "bug", "three"]


async def test_a_bot_starting_frees_the_claims_a_killed_process_left(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, _):
        async with transaction(sessions_of(bot)) as session:
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content="hello")
        [row] = await rows(bot)
        # the process was killed in the middle of this row's send: its lease has time left
        await _claim_directly(bot, row.id, until=clock.now() + LEASE, token="d" * 32)
    async with running_bot() as (bot, h):  # the bot started again, on the same database
        h.add_text_channel(CHANNEL, "pairings")
        [row] = await rows(bot)
        assert row.claim_token is None and row.claimed_until is None
        assert bot.outbox is not None and await bot.outbox.flush() == 1  # at once, no wait
        assert [m.content for m in h.in_channel(CHANNEL)] == ["hello"]
