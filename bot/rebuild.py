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
import sys
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


#: Seconds a thread may hold the GIL while another waits for it, while a rebuild runs
#: (`sys.setswitchinterval`; Python's default is 0.005). The loop gives the GIL up at every
#: socket read and write, and waits this long at worst to get it back from the rebuild: a
#: 2 MB calendar feed is some forty reads and writes, 200 ms at the default.
SWITCH_INTERVAL = 0.0005

_running = 0  # rebuilds in their threads now
_switch_before = sys.getswitchinterval()


async def off_the_loop(sessions: async_sessionmaker[AsyncSession], work: Work[T]) -> T:
    """`work` run in a worker thread on a new engine to the same database (on these
    sessions, here, when they have no engine to open again); meanwhile the GIL changes
    hands more often (`SWITCH_INTERVAL`), so the loop does not queue behind the thread."""
    global _running, _switch_before
    url = database_url(sessions)
    if url is None:
        return await work(sessions)
    if _running == 0:
        _switch_before = sys.getswitchinterval()
        sys.setswitchinterval(min(SWITCH_INTERVAL, _switch_before))
    _running += 1
    try:
        return await asyncio.to_thread(_run_with_own_engine, url, work)
    finally:
        _running -= 1
        if _running == 0:
            sys.setswitchinterval(_switch_before)
