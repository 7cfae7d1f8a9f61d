"""The SQLite engine runs each statement in one trip to aiosqlite's thread; what SQLAlchemy
reads back (rows, row counts, new ids, errors) is what the stock adapter gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from db.engine import _OneTripCursor, make_engine


async def test_statements_rows_counts_ids_and_errors(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'one.sqlite3'}")
    try:
        async with engine.begin() as conn:
            await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"))
            inserted = await conn.execute(text("INSERT INTO t (v) VALUES ('a')"))
            assert inserted.lastrowid == 1
            many = await conn.execute(
                text("INSERT INTO t (v) VALUES (:v)"), [{"v": "b"}, {"v": "c"}]
            )
            assert many.rowcount == 2
            changed = await conn.execute(text("UPDATE t SET v = v || '!' WHERE id > 1"))
            assert changed.rowcount == 2
            rows = (await conn.execute(text("SELECT id, v FROM t ORDER BY id"))).all()
            assert [tuple(r) for r in rows] == [(1, "a"), (2, "b!"), (3, "c!")]
            assert (await conn.execute(text("SELECT v FROM t WHERE id = 9"))).first() is None
            mode = await conn.scalar(text("PRAGMA journal_mode"))
            assert mode == "wal"
            assert await conn.scalar(text("PRAGMA synchronous")) == 1  # NORMAL
        async with engine.connect() as conn:
            with pytest.raises(IntegrityError):
                await conn.execute(text("INSERT INTO t (v) VALUES ('a')"))
        async with engine.connect() as conn:
            cursor = (await conn.get_raw_connection()).dbapi_connection.cursor()  # type: ignore[union-attr]
            assert isinstance(cursor, _OneTripCursor)
    finally:
        await engine.dispose()
