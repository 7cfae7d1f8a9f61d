"""What the login tests share: a web-enabled config, the site with the login's routes, and a
browser's walk from the link through the fake Lichess's /oauth and back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qs, urlsplit

import aiohttp
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config, WebConfig
from bot.features.registration import login
from bot.features.registration.login_limit import RateLimit
from bot.features.registration.service import RegistrationService
from bot.features.web.deps import WebDeps
from bot.features.web.routes import app_for
from db.models import OutboxMessage, Registration
from tests.conftest import add_player
from tests.fakes.lichess import FakeLichess

SITE = "http://acwc.test"
ALICE, BOB = 101, 102
Consent = Literal["approve", "deny"]


def web_config(config: Config, base_url: str = SITE) -> Config:
    return config.model_copy(update={"web": WebConfig(enabled=True, base_url=base_url)})


def path_of(url: str) -> str:
    """The path and query of a URL on the site (the test client knows the host)."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


@asynccontextmanager
async def site(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    service: RegistrationService | None,
    *,
    limit: RateLimit | None = None,
    read_only: bool = False,
) -> AsyncIterator[TestClient[aiohttp.web.Request, aiohttp.web.Application]]:
    """The whole site as the wiring builds it, the login among its parts; no access log,
    as `WebServer` runs it (the callback's query holds the code)."""
    deps = WebDeps(
        sessions,
        config,
        clock,
        read_only=read_only,
        register_verified=service.register_verified if service else None,
    )
    app = app_for(deps, [lambda d: login.routes(d, limit=limit or RateLimit(burst=100))])
    server = TestServer(app)
    await server.start_server(access_log=None)  # the client then uses it as started
    async with TestClient(server) as client:
        yield client


@dataclass
class Walk:
    """A browser's way through the login: each answer, and what it carried."""

    start: aiohttp.ClientResponse
    start_text: str
    at_lichess: str | None = None  # where the start page sent the browser
    back: str | None = None  # where Lichess sent it back
    page: aiohttp.ClientResponse | None = None  # the callback's page
    page_text: str = ""

    @property
    def code(self) -> str:
        assert self.back is not None
        return query_of(self.back).get("code", "")


async def walk(
    client: TestClient[aiohttp.web.Request, aiohttp.web.Application],
    link: str,
    *,
    to_callback: bool = True,
) -> Walk:
    """Click `link`, answer Lichess's prompt as the fake is set, and (unless `to_callback`
    is False) follow Lichess's redirect back to the site."""
    start = await client.get(path_of(link), allow_redirects=False)
    done = Walk(start, await start.text())
    if start.status != 303:
        return done
    done.at_lichess = start.headers["Location"]
    async with (
        aiohttp.ClientSession() as browser,
        browser.get(done.at_lichess, allow_redirects=False) as answer,
    ):
        assert answer.status == 303, await answer.text()
        done.back = answer.headers["Location"]
    assert done.back.startswith(f"{SITE}/login/callback?"), done.back
    if to_callback:
        done.page = await client.get(path_of(done.back), allow_redirects=False)
        done.page_text = await done.page.text()
    return done


async def count(sessions: async_sessionmaker[AsyncSession], model: type) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def outbox_ids(sessions: async_sessionmaker[AsyncSession]) -> list[int]:
    return [m.id for m in await outbox(sessions)]


async def outbox(sessions: async_sessionmaker[AsyncSession]) -> list[OutboxMessage]:
    async with sessions() as session:
        rows = await session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))
        return list(rows.all())


async def nothing_registered(sessions: async_sessionmaker[AsyncSession]) -> bool:
    return await count(sessions, Registration) == 0


async def link_for(service: RegistrationService, user: int, name: str) -> str:
    """/register's two steps for `name`: the ownership challenge, then its login link."""
    step = await service.start(discord_id=user, lichess_username=name, is_td=False)
    made = await service.login_link(challenge_id=step.challenge_id)
    assert made is not None
    return made[0]


async def alice_at_lichess(
    fake: FakeLichess, service: RegistrationService, *, consent: Consent = "approve"
) -> str:
    """Alice, an eligible Lichess account logged in at the fake Lichess (who will `consent`
    at its prompt), and the login link /register gave her."""
    add_player(fake, "Alice")
    fake.oauth_login("Alice", consent=consent)
    return await link_for(service, ALICE, "Alice")
