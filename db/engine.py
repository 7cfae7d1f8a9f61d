"""Engine and session setup: SQLite (WAL, foreign keys) or PostgreSQL, one short session per
use case."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)


def _sqlite_pragmas(foreign_keys: bool) -> Any:
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # In WAL mode, NORMAL syncs the log at checkpoints instead of at every commit. A
        # commit is still complete in the log before COMMIT returns, so a killed process
        # (SIGKILL, a crash) loses nothing: only a power cut or an OS crash can take back the
        # last few commits, never corrupt the file. FULL's fsync per commit was most of the
        # bot's system time (every outbox claim and mark is a commit).
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.close()

    return on_connect


def make_engine(url: str, *, foreign_keys: bool = True) -> AsyncEngine:
    """An async engine; for SQLite every connection gets WAL, a busy timeout and FK enforcement,
    for PostgreSQL pooled connections are checked before use.

    Migrations use `foreign_keys=False`: SQLite batch migrations rebuild tables, and with
    foreign keys on that rebuild would cascade-delete child rows.
    """
    if url.startswith("sqlite"):
        engine = create_async_engine(url)
    else:
        # A server restart or an idle timeout drops pooled connections; a months-long bot
        # checks each one before use instead of failing the next command.
        engine = create_async_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas(foreign_keys))
    return engine


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


@asynccontextmanager
async def transaction(
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[AsyncSession]:
    """One short unit of work: commit on success, roll back on any error."""
    async with sessions() as session, session.begin():
        yield session


# SQLSTATEs of PostgreSQL's transient write conflicts: serialization failure, deadlock.
_CONFLICT_STATES = frozenset({"40001", "40P01"})


def is_write_conflict(error: BaseException) -> bool:
    """Whether a database error means "another writer got there first; nothing was saved".

    The services order their writes so that racing writers queue instead of colliding; this
    is the safety net for a collision they did not foresee: the transaction was rolled back,
    so the person can be told to try again. SQLite reports a writer that waited past its busy
    timeout as "database is locked".
    """
    if not isinstance(error, DBAPIError):
        return False
    state = getattr(error.orig, "sqlstate", None) or getattr(error.orig, "pgcode", None)
    return state in _CONFLICT_STATES or "database is locked" in str(error.orig)
