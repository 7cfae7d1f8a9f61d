"""Shared fixtures: a migrated temporary database, a fake clock, the fake Lichess server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config, DiscordConfig, load_config
from bot.features.registration.service import RegistrationService
from bot.lichess.client import LichessClient
from bot.wiring import build_registration
from db import migrate
from db.engine import make_engine, make_sessionmaker
from tests.databases import fresh_database
from tests.fakes.lichess import FakeLichess, fake_lichess

# Tests never assert on wall-clock time (speed is the benchmarks' to measure): hypothesis's
# per-example deadline failed property tests on a loaded two-core machine, so it is off.
settings.register_profile("acwc", deadline=None)
settings.load_profile("acwc")

# Inside the 2019 registration window.
REGISTRATION_TIME = datetime(2019, 9, 10, 12, 0, tzinfo=UTC)
TD_ID = 900
TD_ROLE_ID = 2000
GUILD_ID = 1000
TD_ALERT_CHANNEL = 3000
ANNOUNCE_CHANNEL = 3001


def add_player(
    fake: FakeLichess,
    name: str,
    *,
    created_at: datetime = datetime(2017, 1, 1, tzinfo=UTC),
    games: int = 100,
    rating: int = 1800,
    games_end: datetime = datetime(2019, 8, 1, tzinfo=UTC),
    **user: object,
) -> None:
    """A Lichess account with `games` rated antichess games, one per hour up to `games_end`."""
    fake.add_user(name, created_at=created_at, **user)  # type: ignore[arg-type]
    for index in range(games):
        start = games_end - timedelta(hours=games - index)
        fake.add_game(
            white=name,
            black="sparring",
            created_at=start,
            last_move_at=start + timedelta(minutes=10),
            white_rating=rating,
            white_rating_diff=0,
        )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(REGISTRATION_TIME)


@pytest.fixture
async def fake() -> AsyncIterator[FakeLichess]:
    async with fake_lichess() as server:
        yield server


@pytest.fixture
async def db_url(tmp_path: Path) -> AsyncIterator[str]:
    async with fresh_database(tmp_path) as url:
        yield url


@pytest.fixture
def config(fake: FakeLichess, db_url: str) -> Config:
    base = load_config(None, environ={"LICHESS_BASE_URL": fake.base_url, "DATABASE_URL": db_url})
    return base.model_copy(
        update={
            "discord": DiscordConfig(
                guild_id=GUILD_ID,
                td_user_ids=(TD_ID,),
                td_role_id=TD_ROLE_ID,
                td_alert_channel_id=TD_ALERT_CHANNEL,
                announcement_channel_id=ANNOUNCE_CHANNEL,
            )
        }
    )


@pytest.fixture
async def sessions(db_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    await migrate.upgrade(db_url)
    engine = make_engine(db_url)
    yield make_sessionmaker(engine)
    await engine.dispose()


@pytest.fixture
async def lichess(fake: FakeLichess) -> AsyncIterator[LichessClient]:
    client = LichessClient(base_url=fake.base_url, timeout=5.0, rate_limit_pause=0.05)
    yield client
    await client.aclose()


@pytest.fixture
def registration(
    sessions: async_sessionmaker[AsyncSession],
    lichess: LichessClient,
    config: Config,
    clock: FakeClock,
) -> RegistrationService:
    return build_registration(sessions, config, clock, lichess)


# The running bot (the real command tree over the fake Lichess) for every test package. It
# needs the constants above, so it is imported last.
from tests.running import running_bot  # noqa: E402

__all__ = ["running_bot"]
