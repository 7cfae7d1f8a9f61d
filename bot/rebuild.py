"""Reading the database again off the event loop, for the web's caches (issue 33: the public
pages' `SiteCache` and the calendar feeds), with what they share: a read and what is built
from it run in a worker thread with their own event loop and engine, so the bot's loop goes
on answering (from the value read before) meanwhile.

At 500 players a whole read costs some 100 ms of CPU; on the event loop every request
(and every Discord event) would wait behind it. The thread still shares the GIL with the
loop, so the work done there should stay small; `QUICK` is the rebuild a request may wait
for instead of being answered from the value before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.engine import make_engine, make_sessionmaker

T = TypeVar("T")
Work = Callable[[async_sessionmaker[AsyncSession]], Awaitable[T]]

#: Seconds: a rebuild whose last run took less is waited for (a small championship's: the
#: answer right after a change shows it); a slower one is not (the answer is the value
#: before, at most one rebuild late).
QUICK = 0.05


def database_url(sessions: async_sessionmaker[AsyncSession]) -> str | None:
    """The URL the sessions connect to (with its password: it opens a connection), or None
    when they are bound to no engine."""
    bind = sessions.kw.get("bind")
    url = getattr(bind, "url", None)
    return None if url is None else url.render_as_string(hide_password=False)


def _run_with_own_engine(url: str, work: Work[T]) -> T:
    """In the worker thread: its own loop and engine (an engine's connections belong to the
    loop that opened them)."""

    async def run() -> T:
        engine = make_engine(url)
        try:
            return await work(make_sessionmaker(engine))
        finally:
            await engine.dispose()

    return asyncio.run(run())


async def off_the_loop(sessions: async_sessionmaker[AsyncSession], work: Work[T]) -> T:
    """`work` run in a worker thread on a new engine to the same database (on these
    sessions, here, when they have no engine to open again)."""
    url = database_url(sessions)
    if url is None:
        return await work(sessions)
    return await asyncio.to_thread(_run_with_own_engine, url, work)
