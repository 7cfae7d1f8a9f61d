"""Events: how one feature tells the others what happened without importing them.

A service publishes an event inside the transaction that caused it; the subscribers run in
that same transaction, so their effects (the next round paired, deadlines scheduled) commit
together with the cause or not at all. Every event the bot knows is declared here, and the
subscriptions are made in one place, `bot.wiring`.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Event:
    """Base of every event; `actor` is who or what caused it (for the audit log)."""

    actor: Actor


@dataclass(frozen=True)
class RoundPublished(Event):
    """A round's pairings are stored: its matches need their negotiation deadlines."""

    round_id: int


@dataclass(frozen=True)
class MatchAgreed(Event):
    """A match time was fixed (agreed, chosen, assigned or rescheduled)."""

    match_id: int
    time: datetime
    previous: datetime | None


@dataclass(frozen=True)
class MatchFinished(Event):
    """A match got its result on the board (read from Lichess, or entered by the TD), or was
    ruled a draw when its negotiation failed (`format.no_offers`, `format.no_fault`)."""

    match_id: int
    round_id: int


@dataclass(frozen=True)
class PlayerForfeited(Event):
    """Matches of a player were decided off the board in these rounds: a forfeit (rule
    VI.F), or what a disqualification did to their results (rule VIII)."""

    player_id: int
    round_ids: tuple[int, ...]


@dataclass(frozen=True)
class PlayerLeft(Event):
    """A player withdrew or was disqualified (rule VIII): the stages that follow adapt
    (a finalist who leaves is replaced, rule VIII.C)."""

    player_id: int


@dataclass(frozen=True)
class PlayerReinstated(Event):
    """The TD reversed a disqualification: before round 1 the public field changes."""

    player_id: int


@dataclass(frozen=True)
class RoundComplete(Event):
    """Every match of a round has a result and the round is closed."""

    round_id: int
    stage_id: int


@dataclass(frozen=True)
class StageFinished(Event):
    """Every round of a stage is decided (its outcome, qualifiers or winner, follows)."""

    stage_id: int
    kind: str  # a StageKind value


E = TypeVar("E", bound=Event)
Handler = Callable[[AsyncSession, Any, datetime], Awaitable[None]]


class EventBus:
    """In-process, in-transaction publish/subscribe: handlers run in subscription order."""

    def __init__(self) -> None:
        self._handlers: dict[type[Event], list[Handler]] = defaultdict(list)

    def subscribe(
        self, kind: type[E], handler: Callable[[AsyncSession, E, datetime], Awaitable[None]]
    ) -> None:
        self._handlers[kind].append(handler)

    async def publish(self, session: AsyncSession, event: Event, now: datetime) -> None:
        """Run every subscriber of the event's type; an error rolls the whole cause back."""
        handlers = self._handlers.get(type(event), [])
        log.debug("event %s to %d subscriber(s)", type(event).__name__, len(handlers))
        for handler in handlers:
            await handler(session, event, now)
