"""A connection SQLAlchemy terminates after aiosqlite's worker thread has stopped closes in
bounded time (aiosqlite's own close would wait on the gone thread forever, and a stopped
bot's event loop with it)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

import db.engine as engine_module
from db.engine import make_engine


async def test_a_terminated_connection_whose_thread_is_gone_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_module, "GRACEFUL_CLOSE_SECONDS", 0.2)
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'terminate.sqlite3'}")
    try:
        async with engine.connect() as connection:
            fairy = await connection.get_raw_connection()
            adapted = fairy.dbapi_connection
            assert adapted is not None
            worker = adapted._connection  # type: ignore[attr-defined]
            busy = asyncio.create_task(worker._execute(time.sleep, 0.3))  # the thread is busy
            await asyncio.sleep(0.05)
            closing = asyncio.create_task(adapted._terminate_graceful_close())  # type: ignore[attr-defined]
            await asyncio.sleep(0.05)  # its close is queued behind the busy statement
            worker.stop()  # SQLAlchemy's forced close of a cancelled connection, meanwhile
            await busy
            # aiosqlite's close then waits on a thread that has ended: without the bound it
            # never returns (this test's own 5 s limit says so)
            await asyncio.wait_for(closing, 5)
            await asyncio.to_thread(worker._thread.join, 5)  # it ends right after answering
            assert not worker._thread.is_alive()
            await connection.invalidate()
    finally:
        await engine.dispose()
