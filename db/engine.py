"""Engine and session setup: SQLite (WAL, foreign keys) or PostgreSQL, one short session per
use case."""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
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


def _run_statement(connection: Any, operation: Any, parameters: Any, many: bool) -> Any:
    """In aiosqlite's thread: open a cursor, run the statement, read its rows, close."""
    cursor = connection._conn.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, cursor.rowcount, cursor.lastrowid, rows
    finally:
        cursor.close()


class _OneTripCursor(AsyncAdapt_aiosqlite_cursor):
    """A statement in one trip to aiosqlite's thread instead of four.

    The stock adapter awaits aiosqlite for opening the cursor, executing, fetching the rows
    and closing: four hand-offs between the event loop and the connection's thread, each a
    queue put, a thread wake-up and a loop wake-up. The bot runs short statements (an outbox
    mark, a due-action check), so those hand-offs were most of the time the event loop spent
    waiting on SQLite. This cursor does the same four steps in one hand-off; rows, row count,
    last row id and description are those of the same sqlite3 cursor.
    """

    __slots__ = ("_description", "_lastrowid", "_rowcount")
    _awaitable_cursor_close = False  # nothing left open to close

    def __init__(self, adapt_connection: Any) -> None:
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._soft_closed_memoized = {}  # type: ignore[assignment]
        self._rows = collections.deque()
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> int:
        return self._lastrowid  # type: ignore[return-value]

    @property
    def arraysize(self) -> int:
        return 1

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        pass

    def close(self) -> None:
        self._rows.clear()

    async def _execute_async(self, operation: Any, parameters: Any) -> Any:
        return await self._run(operation, parameters, many=False)

    async def _executemany_async(self, operation: Any, seq_of_parameters: Any) -> Any:
        return await self._run(operation, seq_of_parameters, many=True)

    async def _run(self, operation: Any, parameters: Any, *, many: bool) -> None:
        async with self._adapt_connection._execute_mutex:
            connection = self._connection
            found = await connection._execute(
                _run_statement, connection, operation, parameters, many
            )
            self._description, self._rowcount, self._lastrowid, rows = found
            self._rows = collections.deque(rows)


# How long a connection SQLAlchemy terminates may take to close before it is stopped.
GRACEFUL_CLOSE_SECONDS = 10.0


class _OneTripConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()
    _cursor_cls = _OneTripCursor

    async def _terminate_graceful_close(self) -> None:
        """Close a connection SQLAlchemy terminates (invalidated, e.g. cancelled mid-query),
        never waiting forever. aiosqlite's own close() ends by queueing a stop for its worker
        thread and awaiting it, even when a stop SQLAlchemy forced meanwhile (the cancelled
        case) has already ended that thread: it then waits forever, and so does the event
        loop's last cleanup (a stopped bot hung so). Here the stop, which closes the SQLite
        connection after what is queued and ends the thread, is awaited only while the thread
        lives, and for a few seconds at most."""
        worker = self._connection
        done = worker.stop()
        if done is not None and worker._thread.is_alive():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done, GRACEFUL_CLOSE_SECONDS)


async def _open(*arg: Any, **kw: Any) -> Any:
    """Open an aiosqlite connection; when opening fails (a missing folder, a locked file),
    wait for its worker thread to end before raising. aiosqlite then queues a stop for that
    thread and does not await it: the thread's answer would reach an event loop that
    `asyncio.run` has closed meanwhile ("Event loop is closed" in a thread, after a one-line
    `cannot use the database`)."""
    import aiosqlite

    connection = aiosqlite.connect(*arg, **kw)
    connection._thread.daemon = True  # as SQLAlchemy's adapter does: never blocks an exit
    try:
        return await connection
    except BaseException:
        await asyncio.to_thread(connection._thread.join, GRACEFUL_CLOSE_SECONDS)
        raise


class _OneTripDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """SQLAlchemy's aiosqlite adapter with `_OneTripCursor` (its server-side cursors, used
    for streamed results, stay the stock ones)."""

    def connect(self, *arg: Any, **kw: Any) -> AsyncAdapt_aiosqlite_connection:
        kw.setdefault("async_creator_fn", _open)
        adapted = super().connect(*arg, **kw)
        adapted.__class__ = _OneTripConnection
        return adapted


def _one_trip_dbapi() -> _OneTripDBAPI | None:
    """The adapter, if this aiosqlite still queues functions the way the cursor relies on."""
    import sqlite3

    import aiosqlite

    if not callable(getattr(aiosqlite.Connection, "_execute", None)):
        return None
    return _OneTripDBAPI(aiosqlite, sqlite3)


def make_engine(url: str, *, foreign_keys: bool = True) -> AsyncEngine:
    """An async engine; for SQLite every connection gets WAL, a busy timeout and FK enforcement,
    for PostgreSQL pooled connections are checked before use.

    Migrations use `foreign_keys=False`: SQLite batch migrations rebuild tables, and with
    foreign keys on that rebuild would cascade-delete child rows.
    """
    dbapi = _one_trip_dbapi() if url.startswith("sqlite+aiosqlite") else None
    if dbapi is not None:
        engine = create_async_engine(url, module=dbapi)
    elif url.startswith("sqlite"):
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


AFTER_COMMIT = "after_commit"  # session.info key: the work to run once it has committed


def after_commit(session: AsyncSession, work: Callable[[], Awaitable[object]]) -> None:
    """Run `work` once this transaction (of `transaction`) has committed and its session is
    closed, before `transaction` returns to its caller; never when it rolls back.

    For what must follow a change but must not hold its transaction open (a slow
    computation whose result is written in a transaction of its own): `work` re-checks the
    state it acts on, and catches its own errors (the change it follows has committed).
    """
    session.info.setdefault(AFTER_COMMIT, []).append(work)


@asynccontextmanager
async def transaction(
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[AsyncSession]:
    """One short unit of work: commit on success, roll back on any error; then the work
    `after_commit` left, with no session open."""
    async with sessions() as session, session.begin():
        yield session
    for work in session.info.pop(AFTER_COMMIT, []):
        await work()


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
