"""Alembic environment: uses the connection handed over by db.migrate, or opens its own."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from db.engine import make_engine
from db.models import Base

target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_with_own_engine(url: str) -> None:
    engine = make_engine(url, foreign_keys=False)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_run)
    finally:
        await engine.dispose()


connection = context.config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    asyncio.run(_run_with_own_engine(context.config.get_main_option("sqlalchemy.url") or ""))
