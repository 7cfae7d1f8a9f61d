"""A page asked while the site is read again is answered from the read before (issue 33:
at 500 players a rebuild takes longer than a page may; a page is at most one rebuild late),
and the rebuild draws the pages most readers ask for (`Pages.predraw`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.features.web import public
from bot.features.web.deps import WebDeps
from bot.features.web.routes import app_for
from bot.wiring import WEB_PARTS, Services
from tests.factories import wired
from tests.features.schedule.test_cog import (
    round_two_day,
    td_fixes_alice_eve,
)

MATCH = "/matches/swiss/2/1"  # Alice vs Eve
AGREED = 'datetime="2019-10-09T19:00'


@pytest.fixture
def services(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> Services:
    return wired(sessions, config, clock)


async def until(client: TestClient[Any, Any], path: str, done: Callable[[str], bool]) -> str:
    """The page, asked again until `done` (the rebuild runs in a thread of its own)."""
    for _ in range(500):
        html = await (await client.get(path)).text()
        if done(html):
            return html
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never changed")


async def test_a_page_asked_during_a_slow_rebuild_is_the_one_before_then_the_new_one(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(public, "QUICK", 0.0)  # every rebuild is slow, as at 500 players
    ids = await round_two_day(sessions, config, clock)
    app = app_for(WebDeps(sessions, config, clock, read_only=True), WEB_PARTS)
    async with TestClient(TestServer(app)) as client:
        before = await (await client.get(MATCH)).text()
        assert "Alice" in before and "Eve" in before and AGREED not in before

        await td_fixes_alice_eve(services.rulings, ids)
        during = await (await client.get(MATCH)).text()
        assert during == before  # the read before, while the site is read again
        after = await until(client, MATCH, lambda html: html != before)
        assert AGREED in after  # one rebuild later: the agreed time
        round_page = await (await client.get("/stages/swiss/rounds/2")).text()
        assert AGREED in round_page  # the pre-drawn round page is of the new read too


async def test_a_quick_rebuild_is_waited_for(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    services: Services,
) -> None:
    """A small championship's rebuild is quick: the page right after a change shows it."""
    ids = await round_two_day(sessions, config, clock)
    app = app_for(WebDeps(sessions, config, clock, read_only=True), WEB_PARTS)
    async with TestClient(TestServer(app)) as client:
        assert AGREED not in await (await client.get(MATCH)).text()
        await td_fixes_alice_eve(services.rulings, ids)
        assert AGREED in await (await client.get(MATCH)).text()
