"""A feed asked while it is built again is the one built before (issue 33: at 500 players
the championship's feed takes longer to build than an answer may; a feed is at most one
rebuild late, and a calendar application polls again by itself)."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.features.schedule import feeds
from bot.features.web.deps import WebDeps
from bot.features.web.server import build_app
from bot.wiring import Services
from tests.factories import wired
from tests.features.schedule.test_cog import (
    round_two_day,
    td_fixes_alice_eve,
)

WED_19 = b"DTSTART:20191009T190000Z"


@pytest.fixture
def services(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> Services:
    return wired(sessions, config, clock)


@pytest.mark.parametrize("path", ["/calendar.ics", "/players/Alice/calendar.ics"])
async def test_a_feed_asked_during_a_slow_rebuild_is_the_one_before_then_the_new_one(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
    path: str,
) -> None:
    monkeypatch.setattr(feeds, "QUICK", 0.0)  # every build is slow, as at 500 players
    ids = await round_two_day(sessions, config, clock)
    app = build_app(WebDeps(sessions, config, clock, read_only=True), [feeds.routes])
    async with TestClient(TestServer(app)) as client:
        before = await (await client.get(path)).read()
        assert b"BEGIN:VCALENDAR" in before and WED_19 not in before

        await td_fixes_alice_eve(services.rulings, ids)
        during = await client.get(path)
        assert during.status == 200 and await during.read() == before  # the one before
        for _ in range(500):  # built again in a thread of its own
            after = await (await client.get(path)).read()
            if after != before:
                break
            await asyncio.sleep(0.01)
        assert WED_19 in after  # one rebuild later: Alice vs Eve's agreed time


async def test_a_quick_feed_shows_a_change_at_once(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    services: Services,
) -> None:
    ids = await round_two_day(sessions, config, clock)
    app = build_app(WebDeps(sessions, config, clock, read_only=True), [feeds.routes])
    async with TestClient(TestServer(app)) as client:
        assert WED_19 not in await (await client.get("/calendar.ics")).read()
        await td_fixes_alice_eve(services.rulings, ids)
        assert WED_19 in await (await client.get("/calendar.ics")).read()
