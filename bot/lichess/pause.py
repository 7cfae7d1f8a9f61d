"""Where the client's 429 pause is measured and waited (the event loop's clock, or a
simulation's fake one)."""

from __future__ import annotations

import asyncio
from typing import Protocol


class PauseClock(Protocol):
    """Where the 429 pause is measured and waited: seconds on some monotonic scale."""

    def time(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class LoopPauseClock:
    """The real pause: the running event loop's clock and ``asyncio.sleep``."""

    def time(self) -> float:
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
