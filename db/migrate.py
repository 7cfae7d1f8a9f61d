"""Run Alembic programmatically, so there is no alembic.ini to keep in sync with config."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config as AlembicConfig
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import Connection

import migrations
from db.engine import make_engine
from db.models import Base

MIGRATIONS_DIR = Path(migrations.__file__).resolve().parent


def alembic_config(url: str) -> AlembicConfig:
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", url)
    return cfg


def _upgrade(connection: Connection, url: str, revision: str) -> None:
    cfg = alembic_config(url)
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, revision)


async def upgrade(url: str, revision: str = "head") -> None:
    """Apply pending migrations, on an engine with foreign keys off (see db.engine)."""
    engine = make_engine(url, foreign_keys=False)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_upgrade, url, revision)
    finally:
        await engine.dispose()


def _diff(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "render_as_batch": True}
    )
    return list(compare_metadata(context, Base.metadata))


async def drift(url: str) -> list[Any]:
    """Differences between the models and a database migrated to head; empty means in sync."""
    await upgrade(url)
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(_diff)
    finally:
        await engine.dispose()


def upgrade_sync(url: str) -> None:
    asyncio.run(upgrade(url))


if __name__ == "__main__":  # `python -m db.migrate`, as db.schema runs it
    import os

    from db.schema import URL_VARIABLE

    upgrade_sync(os.environ[URL_VARIABLE])
