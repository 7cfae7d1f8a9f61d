"""APScheduler wiring: only short periodic jobs that read what is due from the DB and act."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler

log = logging.getLogger(__name__)

# Every job runs on multiples of its interval counted from this instant, so a 60-second
# sweep runs at the start of each UTC minute: a game link agreed for 19:00 goes out at
# 19:00:00, not up to a minute later.
ALIGNED_TO = datetime(2000, 1, 1, tzinfo=UTC)


def _survive(
    name: str, job: Callable[[], Awaitable[object]], in_flight: set[asyncio.Task[object]]
) -> Callable[[], Awaitable[None]]:
    """A failing run is logged and the next run happens as planned. A run under way is in
    `in_flight`, so a clean stop can let it finish (bot.app.ChampionshipBot.drain)."""

    async def run() -> None:
        task = asyncio.current_task()
        if task is not None:
            in_flight.add(task)
        try:
            await job()
        except Exception:
            log.exception("periodic job %s failed; it will run again", name)
        finally:
            if task is not None:
                in_flight.discard(task)

    return run


def build_scheduler(
    jobs: dict[str, tuple[Callable[[], Awaitable[object]], int]],
    in_flight: set[asyncio.Task[object]] | None = None,
) -> AsyncIOScheduler:
    """`jobs` maps a name to (coroutine function, interval in seconds); the runs under way
    are kept in `in_flight`."""
    running: set[asyncio.Task[object]] = in_flight if in_flight is not None else set()
    scheduler = AsyncIOScheduler(timezone="UTC")
    for name, (job, seconds) in jobs.items():
        scheduler.add_job(
            _survive(name, job, running),
            "interval",
            seconds=seconds,
            start_date=ALIGNED_TO,
            id=name,
            max_instances=1,
            coalesce=True,
            misfire_grace_time=seconds,
        )
    return scheduler
