"""The schema: built by the migrations, in step with the models, UTC in and out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError, StatementError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db import migrate
from db.engine import transaction
from db.models import Player, Registration, RegistrationState


async def test_models_and_migrations_agree(db_url: str) -> None:
    assert await migrate.drift(db_url) == []


async def test_datetimes_come_back_aware_utc(sessions: async_sessionmaker[AsyncSession]) -> None:
    cest = timezone(timedelta(hours=2))
    async with transaction(sessions) as session:
        session.add(
            Player(
                lichess_id="a",
                lichess_username="A",
                created_at=datetime(2019, 9, 1, 0, 0, tzinfo=cest),
            )
        )
    async with sessions() as session:
        player = await session.get(Player, 1)
        assert player is not None
        assert player.created_at == datetime(2019, 8, 31, 22, 0, tzinfo=UTC)
        assert player.created_at.tzinfo is UTC


async def test_naive_datetimes_are_refused(sessions: async_sessionmaker[AsyncSession]) -> None:
    with pytest.raises(StatementError, match="naive datetime"):
        async with transaction(sessions) as session:
            session.add(
                Player(lichess_id="a", lichess_username="A", created_at=datetime(2019, 1, 1))
            )


async def test_wal_and_foreign_keys_are_on(sessions: async_sessionmaker[AsyncSession]) -> None:
    async with sessions() as session:
        assert (await session.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await session.execute(text("PRAGMA foreign_keys"))).scalar() == 1
    now = datetime.now(UTC)
    with pytest.raises(IntegrityError):
        async with transaction(sessions) as session:
            session.add(
                Registration(
                    player_id=999,
                    state=RegistrationState.PENDING,
                    problems=[],
                    evidence={},
                    created_at=now,
                    updated_at=now,
                )
            )


async def test_upgrade_twice_is_harmless(db_url: str) -> None:
    await migrate.upgrade(db_url)
    await migrate.upgrade(db_url)
    assert await migrate.drift(db_url) == []
