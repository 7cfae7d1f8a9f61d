"""The site with "Log in with Lichess" switched on, for the browser's login test: a migrated
database during the 2019 registration window (a FakeClock, as the registration feature
tests have it), the fake Lichess with its OAuth endpoints, and the site as `acwc run` serves
it (the wiring's parts, not read-only, registration's `register_verified`), each on a free
localhost port. All of it runs on an event loop in a thread of its own: synchronous
playwright keeps a loop of its own in the tests' thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config, DiscordConfig, WebConfig, load_config
from bot.features.registration.service import RegistrationService
from bot.features.web.deps import WebDeps
from bot.features.web.routes import app_for
from bot.lichess.client import LichessClient
from bot.wiring import WEB_PARTS, build_registration
from db import migrate
from db.engine import make_engine, make_sessionmaker
from db.models import LoginLink, OutboxMessage, Registration
from tests.conftest import (
    ANNOUNCE_CHANNEL,
    GUILD_ID,
    REGISTRATION_TIME,
    TD_ALERT_CHANNEL,
    TD_ID,
    TD_ROLE_ID,
)
from tests.databases import fresh_database
from tests.fakes.lichess import FakeLichess, fake_lichess
from tests.web_browser.site import free_port

T = TypeVar("T")


def login_config(lichess_url: str, db_url: str, port: int) -> Config:
    """The registration tests' config (the 2019 format, one TD) with the web part on at
    `port`: the links /register makes point there, and Lichess sends the browser back
    there."""
    base = load_config(None, environ={"LICHESS_BASE_URL": lichess_url, "DATABASE_URL": db_url})
    discord = DiscordConfig(
        guild_id=GUILD_ID,
        td_user_ids=(TD_ID,),
        td_role_id=TD_ROLE_ID,
        td_alert_channel_id=TD_ALERT_CHANNEL,
        announcement_channel_id=ANNOUNCE_CHANNEL,
    )
    web_config = WebConfig(enabled=True, port=port, base_url=f"http://127.0.0.1:{port}")
    return base.model_copy(update={"discord": discord, "web": web_config})


class LoginSite:
    """The fake Lichess, the database and the site with the login, until `stop`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.clock = FakeClock(REGISTRATION_TIME)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._stack = AsyncExitStack()
        self.fake: FakeLichess
        self.config: Config
        self.sessions: async_sessionmaker[AsyncSession]
        self.service: RegistrationService

    @property
    def url(self) -> str:
        return self.config.web.public_url()

    def start(self) -> None:
        self._thread.start()
        self.run(self._start)

    def stop(self) -> None:
        self.run(self._stack.aclose)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def run(self, coroutine: Callable[[], Awaitable[T]]) -> T:
        """`coroutine()` on the site's loop, waited for from the tests' thread."""

        async def wrapped() -> T:
            return await coroutine()

        return asyncio.run_coroutine_threadsafe(wrapped(), self._loop).result(timeout=60)

    async def _start(self) -> None:
        stack = self._stack
        self.fake = await stack.enter_async_context(fake_lichess())
        db_url = await stack.enter_async_context(fresh_database(self.folder))
        await migrate.upgrade(db_url)
        engine = make_engine(db_url)
        stack.push_async_callback(engine.dispose)
        self.sessions = make_sessionmaker(engine)
        self.config = login_config(self.fake.base_url, db_url, self.port)
        lichess = LichessClient(base_url=self.fake.base_url, timeout=5.0, rate_limit_pause=0.05)
        stack.push_async_callback(lichess.aclose)
        self.service = build_registration(self.sessions, self.config, self.clock, lichess)
        deps = WebDeps(  # as bot/app.py wires it for `acwc run`
            self.sessions,
            self.config,
            self.clock,
            read_only=False,
            register_verified=self.service.register_verified,
        )
        runner = web.AppRunner(app_for(deps, WEB_PARTS), access_log=None)
        await runner.setup()
        stack.push_async_callback(runner.cleanup)
        await web.TCPSite(runner, "127.0.0.1", self.port).start()

    def link_for(self, discord_id: int, name: str) -> str:
        """What /register does for `discord_id` naming `name`: the ownership challenge, then
        the login link its button opens (the cog's two calls)."""

        async def make() -> str:
            step = await self.service.start(
                discord_id=discord_id, lichess_username=name, is_td=False
            )
            made = await self.service.login_link(challenge_id=step.challenge_id)
            assert made is not None, "the web part is on: /register gives a link"
            return made[0]

        return self.run(make)

    def rows(self) -> Rows:
        """What the database holds of registration: the rows the login may write."""

        async def read() -> Rows:
            async with self.sessions() as session:
                registrations = list((await session.scalars(select(Registration))).all())
                outbox = list(
                    (await session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))).all()
                )
                links = list(
                    (await session.scalars(select(LoginLink).order_by(LoginLink.id))).all()
                )
            return Rows(registrations, outbox, links)

        return self.run(read)


class Rows:
    """A snapshot of the registrations, the outbox and the login links."""

    def __init__(
        self,
        registrations: list[Registration],
        outbox: list[OutboxMessage],
        links: list[LoginLink],
    ) -> None:
        self.registrations = registrations
        self.outbox = outbox
        self.links = links

    def key(self) -> tuple[Any, ...]:
        """Everything a visit could change, comparable before and after it."""
        return (
            [(r.id, r.player_id, r.state, r.updated_at) for r in self.registrations],
            [(m.id, m.target_id, m.content) for m in self.outbox],
            [(k.id, k.started_at, k.finished_at, k.outcome, k.code_verifier) for k in self.links],
        )
