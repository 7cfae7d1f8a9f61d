"""A row whose text is longer than Discord takes is delivered in parts cut between lines,
each within 2,000 characters, the closed-DM prefix included; an edit is cut and marked."""

from __future__ import annotations

import re

from sqlalchemy import select

from bot.clock import FakeClock
from bot.message_text import SHORTENED
from bot.outbox import enqueue_channel, enqueue_dm, enqueue_edit
from db.engine import transaction
from db.models import OutboxMessage
from tests.running import ALICE, RunningBot

CHANNEL, FALLBACK = 4242, 4343
LINES = [f"line {n:03}: " + "word " * 20 for n in range(60)]  # about 7,000 characters
LONG = "\n".join(LINES)


async def rows(bot: object) -> list[OutboxMessage]:
    async with bot.sessions() as session:  # type: ignore[attr-defined]
        return list((await session.scalars(select(OutboxMessage))).all())


def assert_whole(texts: list[str], prefix: str = "") -> None:
    """Every part fits, each line is whole in one part, in order."""
    assert len(texts) > 1 and all(len(t) <= 2000 for t in texts)
    shown = [
        re.sub(r" \(part \d+ of \d+\)$", "", line)
        for t in texts
        for line in t.removeprefix(prefix).split("\n")
    ]
    kept = [line for line in shown if line.startswith("line ")]
    assert [line.split(":")[0] for line in kept] == [line.split(":")[0] for line in LINES]
    assert all(line in LINES for line in kept)


async def test_a_long_post_is_sent_in_parts(running_bot: RunningBot, clock: FakeClock) -> None:
    async with running_bot() as (bot, h):
        assert bot.outbox is not None
        async with transaction(bot.sessions) as session:
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content=LONG)
        assert await bot.outbox.flush() == 1
        sent = h.in_channel(CHANNEL)
        assert_whole([m.content for m in sent])
        [row] = await rows(bot)
        assert row.sent_at is not None and row.failed_at is None
        assert row.discord_message_id == sent[0].id
        assert await bot.outbox.flush() == 0  # sent once


async def test_a_long_dm_reaches_the_player(running_bot: RunningBot, clock: FakeClock) -> None:
    async with running_bot() as (bot, h):
        assert bot.outbox is not None
        async with transaction(bot.sessions) as session:
            enqueue_dm(session, user_id=ALICE, now=clock.now(), content=LONG)
        assert await bot.outbox.flush() == 1
        assert_whole([m.content for m in h.dms_to(ALICE)])


async def test_a_long_dm_to_closed_dms_falls_back_in_parts(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        assert bot.outbox is not None
        h.add_text_channel(FALLBACK, "match-thread")
        h.dm_closed.add(ALICE)
        async with transaction(bot.sessions) as session:
            enqueue_dm(
                session, user_id=ALICE, now=clock.now(), content=LONG, fallback_channel_id=FALLBACK
            )
        await bot.outbox.flush()
        posted = [m.content for m in h.in_channel(FALLBACK)]
        prefix = f"<@{ALICE}> (your DMs are closed) "
        assert all(t.startswith(prefix) for t in posted)
        assert_whole(posted, prefix)
        [row] = await rows(bot)
        assert row.sent_at is not None and row.failed_at is None


async def test_a_dm_just_under_the_limit_fits_the_fallback(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    """2,000 characters fit a DM, but not behind the fallback's prefix: it is cut between
    lines there too, never refused."""
    text = "\n".join(["a" * 999, "b" * 1000])
    async with running_bot() as (bot, h):
        assert bot.outbox is not None
        h.add_text_channel(FALLBACK, "match-thread")
        h.dm_closed.add(ALICE)
        async with transaction(bot.sessions) as session:
            enqueue_dm(
                session, user_id=ALICE, now=clock.now(), content=text, fallback_channel_id=FALLBACK
            )
        await bot.outbox.flush()
        posted = [m.content for m in h.in_channel(FALLBACK)]
        assert len(posted) == 2 and all(len(t) <= 2000 for t in posted)
        assert "a" * 999 in posted[0] and "b" * 1000 in posted[1]


async def test_a_long_edit_is_cut_and_marked(running_bot: RunningBot, clock: FakeClock) -> None:
    async with running_bot() as (bot, h):
        assert bot.outbox is not None
        async with transaction(bot.sessions) as session:
            enqueue_channel(session, channel_id=CHANNEL, now=clock.now(), content="short")
        await bot.outbox.flush()
        [first] = h.in_channel(CHANNEL)
        async with transaction(bot.sessions) as session:
            enqueue_edit(
                session, channel_id=CHANNEL, message_id=first.id, now=clock.now(), content=LONG
            )
        await bot.outbox.flush()
        [edited] = h.in_channel(CHANNEL)
        assert len(edited.content) <= 2000 and edited.content.endswith(SHORTENED)
        assert all(row.failed_at is None for row in await rows(bot))
