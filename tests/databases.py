"""Which database the suite runs on: a SQLite file per test, or a PostgreSQL database per test.

Set `ACWC_TEST_DATABASE` to a PostgreSQL server URL (`.ci/postgres` prints one) and every
test gets a database of its own on that server, created empty and dropped afterwards; the
tests migrate it exactly as they migrate a SQLite file. Unset, each test has a SQLite file in
its temporary folder.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

SERVER_URL_VARIABLE = "ACWC_TEST_DATABASE"


def postgres_server() -> str | None:
    """The PostgreSQL server the suite runs on, or None for SQLite."""
    return os.environ.get(SERVER_URL_VARIABLE) or None


def sqlite_url(folder: Path) -> str:
    return f"sqlite+aiosqlite:///{folder / 'test.sqlite3'}"


@asynccontextmanager
async def fresh_database(folder: Path) -> AsyncIterator[str]:
    """The URL of an empty database that exists for the duration of the block."""
    server = postgres_server()
    if server is None:
        yield sqlite_url(folder)
        return
    name = f"acwc_test_{uuid.uuid4().hex[:16]}"
    admin = create_async_engine(server, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as connection:
            await connection.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as connection:
            await connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()
