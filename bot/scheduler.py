"""APScheduler wiring: only short periodic jobs that read what is due from the DB and act."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from apscheduler.schedulers.asyncio import AsyncIOScheduler

log = logging.getLogger(__name__)


def _survive(name: str, job: Callable[[], Awaitable[object]]) -> Callable[[], Awaitable[None]]:
    """A failing run is logged and the next run happens as planned."""

    async def run() -> None:
        try:
            await job()
        except Exception:
            log.exception("periodic job %s failed; it will run again", name)

    return run


def build_scheduler(
    jobs: dict[str, tuple[Callable[[], Awaitable[object]], int]],
) -> AsyncIOScheduler:
    """`jobs` maps a name to (coroutine function, interval in seconds)."""
    scheduler = AsyncIOScheduler(timezone="UTC")
    for name, (job, seconds) in jobs.items():
        scheduler.add_job(
            _survive(name, job),
            "interval",
            seconds=seconds,
            id=name,
            max_instances=1,
            coalesce=True,
            misfire_grace_time=seconds,
        )
    return scheduler
