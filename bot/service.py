"""What every use-case class holds, and the one way each declares its timers and events.

`bot.wiring` builds every service the same way and collects, from each one, the due-action
handlers it runs, the events it subscribes to and the steps the sweep runs for it.

This is the one base class of the features, and it holds only plumbing (the session
factory, the config, the clock, the Lichess client, the bus): what several use cases share
beyond it is a plain class `bot.wiring` gives each of them, never a base they inherit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.config import Config
from bot.due import DueKind, Handler, SweepStep
from bot.events import Event, EventBus
from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessAuthError, LichessError
from bot.lichess_failures import lichess_failure, tell_td_of_auth

Subscription = tuple[type[Event], Callable[[AsyncSession, Any, datetime], Awaitable[None]]]


class Service:
    """A feature's use cases: short DB transactions, Lichess calls outside them, events out."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        self.sessions = sessions
        self.config = config
        self.clock = clock
        self._lichess = lichess
        # A service built alone (in a unit test) gets a bus of its own with no subscribers.
        self.events = events or EventBus()

    @property
    def lichess(self) -> LichessClient:
        if self._lichess is None:
            raise RuntimeError(f"{type(self).__name__} was built without a Lichess client")
        return self._lichess

    async def lichess_failed(self, exc: LichessError) -> str:
        """A Lichess call of a use case failed: a refused token reaches the TD (once, with
        the fix, in its own transaction); returns the truth to tell the player."""
        if isinstance(exc, LichessAuthError):
            from db.engine import transaction

            async with transaction(self.sessions) as session:
                await tell_td_of_auth(
                    session, self.config, exc, self.clock.now(), self.lichess.token_key
                )
        return lichess_failure(exc)

    def due_handlers(self) -> dict[DueKind, Handler]:
        """The due-action kinds this service runs when they fall due."""
        return {}

    def subscriptions(self) -> list[Subscription]:
        """The events this service reacts to, inside the publisher's transaction."""
        return []

    def sweep_steps(self) -> dict[str, SweepStep]:
        """Idempotent work the minute sweep runs for this service (outside transactions)."""
        return {}
