"""The clock is injected so that deadlines and cut-offs are testable without sleeping."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...


class SystemClock:
    """The real clock, always in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FakeClock:
    """A clock tests set and advance by hand."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FakeClock needs an aware datetime")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        return self._now

    def set(self, value: datetime) -> None:
        self._now = value.astimezone(UTC)

    def advance(self, delta: timedelta) -> None:
        self._now += delta


class FakeClockPause:
    """A waiting place on a FakeClock (the Lichess client's 429 pause, say): waiting moves the
    clock on by the time waited, so a simulation spends a 60 s pause in championship time
    without spending it in real time."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock

    def time(self) -> float:
        return self.clock.now().timestamp()

    async def sleep(self, seconds: float) -> None:
        self.clock.advance(timedelta(seconds=seconds))
        await asyncio.sleep(0)
