"""The schema: built by the migrations, in step with the models, UTC in and out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError, StatementError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db import migrate
from db.engine import make_engine, transaction
from db.models import Player, Registration, RegistrationState
from tests.databases import sqlite_url


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


async def test_sqlite_files_run_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    """SQLite needs both switched on per connection; PostgreSQL has no such switches."""
    url = sqlite_url(tmp_path)
    await migrate.upgrade(url)
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            assert (await connection.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
            assert (await connection.execute(text("PRAGMA foreign_keys"))).scalar() == 1
    finally:
        await engine.dispose()


async def test_foreign_keys_are_enforced(sessions: async_sessionmaker[AsyncSession]) -> None:
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


async def test_upgrading_keeps_existing_rows(db_url: str) -> None:
    """Batch migrations rebuild tables; with foreign keys off no child row is lost."""
    await migrate.upgrade(db_url, "0001")
    engine = make_engine(db_url)
    now = "2019-09-10 12:00:00.000000"
    async with engine.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO players (id, lichess_id, lichess_username, created_at) "
                f"VALUES (1, 'alice', 'Alice', '{now}')"
            )
        )
        await conn.execute(
            text(
                "INSERT INTO registrations (player_id, state, problems, evidence, created_at, "
                f"updated_at) VALUES (1, 'approved', '[]', '{{}}', '{now}', '{now}')"
            )
        )
        await conn.execute(
            text("INSERT INTO stages (id, kind, state) VALUES (1, 'swiss', 'running')")
        )
        await conn.execute(
            text(
                "INSERT INTO rounds (id, stage_id, number, state, starts_at, deadline) "
                f"VALUES (1, 1, 1, 'published', '{now}', '{now}')"
            )
        )
        await conn.execute(
            text(
                "INSERT INTO matches (round_id, player_a_id, state, score_a, score_b) "
                "VALUES (1, 1, 'bye', 0, 0)"
            )
        )
    await engine.dispose()
    await migrate.upgrade(db_url)
    engine = make_engine(db_url)
    async with engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM registrations"))).scalar() == 1
        board = (await conn.execute(text("SELECT board, td_assigns FROM matches"))).one()
        assert tuple(board) == (1, 0)
    await engine.dispose()
